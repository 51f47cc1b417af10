#!/usr/bin/env bash
# What FLEX is worth with the work a real shim can give it (docs/estimation.md):
# mean response time of FLEX told the true work (oracle), FLEX on flexd's
# FLEX 4.2 estimates from task counts and the mean of completed tasks
# (extrapolate, extrapolate_elapsed), and FAIR, on the FLEX 4.2 workload
# (10 jobs, all at once) across slack 15..95% at sigma 1, sigma 0..4,
# mean inter-arrival 0.5..2 min and 20 and 40 jobs at slack 75%, at
# task-time CV 0, 0.3 and 1.0; then on the SWIM trace.
# Prints one markdown table per CV with, per cell, each mean and the share of
# FLEX(oracle)'s gain over FAIR that each estimate keeps.
#
# Usage: scripts/estimation-study.sh [extra `flexd simulate run` flags]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
go build -o "${TMPDIR:-/tmp}/flexd-estimation" ./cmd/flexd
flexd="${TMPDIR:-/tmp}/flexd-estimation"

run() { # cv, label, flags...: one markdown row
	local cv=$1 label=$2
	shift 2
	"$flexd" simulate run --policies flex,fair --estimate oracle,extrapolate,extrapolate_elapsed \
		--task-cv "$cv" --quiet --format csv "$@" |
		awk -F, -v label="$label" 'NR > 1 { v[$1] = $8 }
		END {
			o = v["flex/static/ss=0.05"]; e = v["flex/static/ss=0.05/est=extrapolate"]
			x = v["flex/static/ss=0.05/est=extrapolate_elapsed"]; f = v["fair/static/ss=0.05"]
			printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f%% | %.0f%% | %.0f%% |\n", label, o, e, x, f,
				100 * (f - o) / f, 100 * (f - e) / (f - o), 100 * (f - x) / (f - o)
		}'
}

for cv in 0 0.3 1.0; do
	echo
	echo "task-time CV $cv"
	echo
	echo "| cell | FLEX oracle (s) | FLEX extrapolate | FLEX extrapolate_elapsed | FAIR | oracle below FAIR | extrapolate keeps | elapsed keeps |"
	echo "|---|---|---|---|---|---|---|---|"
	for slack in 0.15 0.35 0.55 0.75 0.95; do
		ms=$(awk -v s="$slack" 'BEGIN { printf "%.2f", 1 - s }')
		run "$cv" "slack $slack" --workload flex42 --lambda 0 --sigma 1 --min-share "$ms" "$@"
	done
	for sigma in 0 2 3 4; do
		run "$cv" "sigma $sigma (slack 0.75)" --workload flex42 --lambda 0 --sigma "$sigma" --min-share 0.25 "$@"
	done
	for lambda in 30 60 90 120; do
		run "$cv" "lambda $lambda s (slack 0.75)" --workload flex42 --lambda "$lambda" --sigma 1 --min-share 0.25 "$@"
	done
	for jobs in 20 40; do
		run "$cv" "$jobs jobs (slack 0.75)" --workload flex42 --jobs "$jobs" --lambda 0 --sigma 1 --min-share 0.25 "$@"
	done
	run "$cv" "SWIM, 200 jobs" --workload swim --jobs 200 --compress 10 --map-slots 30 --reduce-slots 15 "$@"
done
