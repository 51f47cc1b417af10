#!/usr/bin/env bash
# Counts, over seeds and arrival rates, how often each ratio mode beats its
# static baseline on the mixed workload (docs/phase-budgets.md, "Over seeds
# and arrival rates"). Each cell of the output is wins out of
# seeds x {flex, fair} x slowstart {0.05, 1}, with the worst ratio of the
# mode's makespan to its baseline's.
#
#   bash scripts/dhsa-robustness.sh                # seeds 1-6, lambda 0 5 15 30: about 4 minutes on 2 cores
#   SEEDS="1 2" LAMBDAS="5" bash scripts/dhsa-robustness.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=${SEEDS:-"1 2 3 4 5 6"}
lambdas=${LAMBDAS:-"0 5 15 30"}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/flexd" ./cmd/flexd

for mix in 0.8 0.2; do
	for lambda in $lambdas; do
		for seed in $seeds; do
			"$bin/flexd" simulate run --workload mixed --map-heavy "$mix" --lambda "$lambda" --seed "$seed" --quiet \
				--policies flex,fair --ratio static,pi_dhsa,pd_dhsa,fresh --slowstart 0.05,1 \
				--static-sweep 4 --pool-static-sweep 4 --on-best-split --format csv |
				awk -F, -v mix="$mix" -v lambda="$lambda" 'NR > 1 {
					split($1, p, "/")  # policy/mode/ss=x[/m/r]
					print mix, lambda, p[1], p[3], p[2], $9
				}'
		done
	done
done | awk '
# Input: mix lambda policy ss=x mode makespan, one line per run of one seed;
# a new seed starts when the first mode of a (mix, lambda) group repeats.
function check(name, a, b,   k) {
	k = name SUBSEP cell
	runs[k]++
	if (a < b) wins[k]++
	if (!(k in worst) || a / b > worst[k]) worst[k] = a / b
}
function flush(   pol, ss, key) {
	for (key in m) {
		split(key, f, SUBSEP); pol = f[1]; ss = f[2]
		if (f[3] != "static") continue
		check("PI-DHSA on best static < it", m[pol, ss, "pi_dhsa-on-static-best"], m[pol, ss, "static-best"])
		check("PD-DHSA on best pool-fair < it", m[pol, ss, "pd_dhsa-on-pool-static-best"], m[pol, ss, "pool-static-best"])
		check("PI-DHSA 40/40 < best static", m[pol, ss, "pi_dhsa"], m[pol, ss, "static-best"])
		check("PD-DHSA 40/40 < best static", m[pol, ss, "pd_dhsa"], m[pol, ss, "static-best"])
		check("PD-DHSA 40/40 < best pool-fair", m[pol, ss, "pd_dhsa"], m[pol, ss, "pool-static-best"])
		check("FRESH < 50/50", m[pol, ss, "fresh"], m[pol, ss, "static"])
	}
	delete m
}
{
	c = ($1 == 0.8 ? "map-heavy" : "reduce-heavy") ", lambda " $2
	if (($3, $4, $5) in m) flush()
	if (c != cell) { flush(); cell = c; cells[++ncells] = c }
	m[$3, $4, $5] = $6
}
END {
	flush()
	n = split("PI-DHSA on best static < it|PD-DHSA on best pool-fair < it|PI-DHSA 40/40 < best static|PD-DHSA 40/40 < best static|PD-DHSA 40/40 < best pool-fair|FRESH < 50/50", names, "|")
	printf "| claim |"
	for (i = 1; i <= ncells; i++) printf " %s |", cells[i]
	printf "\n|---|"
	for (i = 1; i <= ncells; i++) printf "---|"
	printf "\n"
	for (j = 1; j <= n; j++) {
		printf "| %s |", names[j]
		for (i = 1; i <= ncells; i++) {
			k = names[j] SUBSEP cells[i]
			printf " %d of %d (%.3f) |", wins[k], runs[k], worst[k]
		}
		printf "\n"
	}
}'
