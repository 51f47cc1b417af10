#!/usr/bin/env bash
# Scores FLEX on instances the search was not tuned on: the FLEX 4.1
# generator's seeds 10 to 13 (seed 1 is the committed reference sets'; -s
# for others), 10 base-case instances (80% small jobs, 75% slack; -i) and 5
# of the second setting (50% small, 35% slack) per seed, so 40 and 20
# instances per cell,
# S = 10 J, FLEX at the default effort (-e), against best-known references
# from `flexd simulate study --reference search` (solver.BestKnown at
# 100,000 evaluations per instance and metric; -r 20 for 200,000). It
# prints, per metric, the average and worst ratio over each setting's
# instances (docs/solver-at-scale.md, "On instances it was not tuned on"),
# then each study (seed and setting) past issue 10's bar, the figures it is
# checked on.
#
# References are cached in the cache directory: the first run at a size
# searches them (minutes per seed and setting at J = 200), later runs and
# other builds reuse them, so two builds are compared on the same
# references. Once FLEX improves, search them again from its new answers,
# keeping the lower value, before reading the figures:
#   go run sim/testdata/references/refresh.go -dir CACHE -metrics m1,m2
#
# Usage: scripts/unseen.sh [-j jobs] [-m metrics] [-c cache] [-b flexd] [-e effort] [-r effort] [-n seeds] [-s seeds] [-i instances]
#   -j  J, jobs per instance (default 200)
#   -m  comma-separated metrics, or all (default: the five sums of deadline
#       penalties)
#   -c  reference cache (default ~/.cache/flexd/unseen-references)
#   -b  a flexd binary to score (default: built from this checkout)
#   -e  FLEX's search effort (default 1; 0 the candidate orders alone)
#   -r  the references' effort (default 10: 100,000 evaluations; issue 10's
#       check on unseen seeds asks for a larger budget than FLEX's own, and
#       docs/solver-at-scale.md's table is at 20)
#   -n  seeds of FLEX's random kicks each instance is solved with, its value
#       their mean (default 1; `simulate study --search-seeds`): comparing
#       two builds, 8 tells a change from the kicks' luck
#   -s  the generator's seeds, space-separated (default "10 11 12 13")
#   -i  base-case instances per seed (default 10; the second setting's 5)
# Example, the build at HEAD~1 against HEAD on the same references:
#   git worktree add /tmp/prev HEAD~1 && (cd /tmp/prev && go build -o /tmp/flexd-prev ./cmd/flexd)
#   scripts/unseen.sh -j 100 -m avg_tardiness -b /tmp/flexd-prev; scripts/unseen.sh -j 100 -m avg_tardiness
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { printf 'unseen.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

jobs=200
metrics=avg_tardiness,weighted_tardiness,tardy_jobs,weighted_tardy_jobs,sla_cost
cache="${HOME}/.cache/flexd/unseen-references"
bin=""
effort=1
ref_effort=10
search_seeds=1
seeds="10 11 12 13"
base_instances=10
while getopts "j:m:c:b:e:r:n:s:i:" opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	m) metrics=$OPTARG ;;
	c) cache=$OPTARG ;;
	b) bin=$OPTARG ;;
	e) effort=$OPTARG ;;
	r) ref_effort=$OPTARG ;;
	n) search_seeds=$OPTARG ;;
	s) seeds=$OPTARG ;;
	i) base_instances=$OPTARG ;;
	*) die "usage: scripts/unseen.sh [-j jobs] [-m metrics] [-c cache] [-b flexd] [-e effort] [-r effort] [-n seeds] [-s seeds] [-i instances]" ;;
	esac
done
[[ $jobs =~ ^[0-9]+$ ]] && ((jobs > 10)) || die "-j: want a number of jobs above 10, got '$jobs'"
[[ $seeds =~ ^[0-9]+( [0-9]+)*$ ]] || die "-s: want space-separated seeds, got '$seeds'"
[[ $base_instances =~ ^[0-9]+$ ]] && ((base_instances > 0)) || die "-i: want a number of instances, got '$base_instances'"
# --metrics with a list; nothing (the study's whole menu) with all.
metric_flags=(--metrics "$metrics")
[ "$metrics" = all ] && metric_flags=()

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
	log "building flexd"
	go build -o "$work/flexd" ./cmd/flexd
	bin="$work/flexd"
fi
[ -x "$bin" ] || die "-b: $bin is not an executable"
mkdir -p "$cache"

study() { # seed setting-name flags...
	local seed=$1 name=$2
	shift 2
	"$bin" simulate study --jobs "$jobs" --seed "$seed" "${metric_flags[@]}" --policies flex \
		--effort "$effort" --search-seeds "$search_seeds" --reference search --reference-effort "$ref_effort" --reference-cache "$cache" \
		--quiet --format csv "$@" >"$work/$name-$seed.csv" ||
		die "simulate study failed (seed $seed, $name)"
}
for seed in $seeds; do
	log "J = $jobs, seed $seed"
	study "$seed" base --instances "$base_instances"
	study "$seed" second --instances 5 --slack 0.35 --small 0.5
done

# The study's csv: metric,policy,avg,worst,instances,skipped,worst_instance.
# Averages are weighted by the instances scored (those with a positive
# reference), worsts are the largest.
cell() { # metric setting-name
	awk -F, -v m="$1" '$1 == m { s += $3 * $5; n += $5; if ($4 > w) w = $4 }
		END { if (n > 0) printf "%.4f / %.3f (%d)", s / n, w, n; else printf "-" }' "$work"/"$2"-*.csv
}
printf '%-26s %-26s %s\n' "metric (J = $jobs)" "base case: avg / worst" "second setting: avg / worst"
if [ "$metrics" = all ]; then
	# The metrics as the study printed them, in its order.
	metrics=$(awk -F, 'NR > 1 { printf "%s%s", sep, $1; sep = "," }' "$(ls "$work"/base-*.csv | head -1)")
fi
IFS=, read -ra ms <<<"$metrics"
for m in "${ms[@]}"; do
	printf '%-26s %-26s %s\n' "$m" "$(cell "$m" base)" "$(cell "$m" second)"
done

# Issue 10's bar is a study's (one seed, one setting): each cell past it.
echo
echo "cells past the bar (1% on average or 10% on the worst instance):"
past=0
for seed in $seeds; do
	for name in base second; do
		while IFS= read -r line; do
			printf '  seed %s, %s: %s\n' "$seed" "$name" "$line"
			past=$((past + 1))
		done < <(awk -F, 'NR > 1 && $3 != "" && ($3 > 1.01 || $4 > 1.10) {
			printf "%s %.4f / %.3f (instance %s)\n", $1, $3, $4, $7 }' "$work/$name-$seed.csv")
	done
done
((past > 0)) || echo "  none"
