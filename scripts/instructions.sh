#!/usr/bin/env bash
# Counts the instructions a Go benchmark runs at each of several git
# revisions, with cachegrind: an A/B of the solver's cost that the machine's
# noise does not move (wall times on the 2-core VM drift by 20% and more
# between runs; an instruction count repeats to about 0.3%, the runtime's
# scheduling and garbage collector making the rest). It does not see cache
# misses or branch mispredictions, so it complements a wall-time A/B
# rather than replacing it: a change that saves heap operations gains more
# time than instructions, one that adds a table lookup may lose less.
#
# Each revision is checked out in a temporary worktree and its test binary
# built with the binary's PGO profile (cmd/flexd/default.pgo, when the
# revision has one), then run under valgrind with one CPU
# (GOMAXPROCS=1: the parallel searches then take turns; the count is the
# same work) and a fixed iteration count. The output is one line per
# revision: the instructions and their ratio to the first revision's.
#
# Usage: scripts/instructions.sh [-p package] [-n iterations] 'benchmark regex' rev...
#   -p  the package whose benchmarks run (default ./solver)
#   -n  -test.benchtime in iterations (default 5)
# Example, the search at J = 200 on tardiness before and after the MPS
# runs were made cheaper (same budgets, same answers):
#   scripts/instructions.sh 'BenchmarkSolve/policy=flex/metric=avg_tardiness/jobs=200$/slots=2000$' f76582e 1aef2be
# BenchmarkSolve's scale cases score every instance once before timing, so
# the count covers those solves too, the same at every revision.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { printf 'instructions.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

pkg=./solver
iters=5
while getopts "p:n:" opt; do
	case $opt in
	p) pkg=$OPTARG ;;
	n) iters=$OPTARG ;;
	*) die "usage: scripts/instructions.sh [-p package] [-n iterations] 'benchmark regex' rev..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || die "usage: scripts/instructions.sh [-p package] [-n iterations] 'benchmark regex' rev..."
regex=$1
shift
command -v valgrind >/dev/null || die "valgrind not found (Debian: apt-get install valgrind)"

work=$(mktemp -d)
cleanup() {
	for wt in "$work"/wt-*; do
		[ -d "$wt" ] && git worktree remove --force "$wt" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

first=""
for rev in "$@"; do
	sha=$(git rev-parse --verify --quiet "$rev^{commit}") || die "unknown revision $rev"
	wt="$work/wt-${sha:0:12}"
	[ -d "$wt" ] || git worktree add --detach --quiet "$wt" "$sha"
	bin="$work/${sha:0:12}.test"
	pgo=()
	[ -f "$wt/cmd/flexd/default.pgo" ] && pgo=(-pgo="$wt/cmd/flexd/default.pgo")
	(cd "$wt" && go test -c "${pgo[@]}" -o "$bin" "$pkg") || die "building $pkg at $rev failed"
	# GODEBUG=cpu.rdtscp=off: Go's runtime reads the clock with RDTSCP
	# where the CPU has it, an instruction valgrind 3.19 cannot decode
	# (SIGILL at runtime.cputicks); RDTSC does the same for the count.
	out=$(cd "$wt/$pkg" && GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$bin" -test.run '^$' -test.bench "$regex" -test.benchtime "${iters}x" -test.cpu 1 2>&1) ||
		die "running the benchmark at $rev failed: $(printf '%s\n' "$out" | tail -5)"
	printf '%s\n' "$out" | grep -q '^Benchmark' || die "no benchmark matched $regex at $rev"
	count=$(printf '%s\n' "$out" | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
	[ -n "$count" ] || die "no instruction count from valgrind at $rev"
	if [ -z "$first" ]; then
		first=$count
	fi
	awk -v rev="$rev" -v c="$count" -v f="$first" 'BEGIN { printf "%-12s %16.0f instructions  %.4f\n", rev, c, c / f }'
done
