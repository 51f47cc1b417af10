#!/usr/bin/env bash
# Rebuilds cmd/flexd/default.pgo, the CPU profile `go build`, `go run` and
# `go install` of ./cmd/flexd compile with (profile-guided optimisation,
# on by default since Go 1.21: https://go.dev/doc/pgo). The profile is what
# flexd spends its CPU on in service, from the benchmarks that stand for
# it, merged:
#   - the epoch path in process (decode, validate, decide, encode, save;
#     tests BenchmarkEpochPost, 200 jobs, memory store): the shim's calls;
#   - POST /v1/solve's request path at 1,000 and 10,000 jobs (httpapi
#     BenchmarkSolveRequest);
#   - FLEX's search at scale, every metric at 100 and 200 jobs, and the
#     1,000-job solves (solver BenchmarkSolve): what an operator's choice of
#     a deadline or SLA metric costs.
# Rerun it when the hot code changes much; an old profile still builds
# (Go matches it to the code by function), it only helps less.
#
# Usage: scripts/pgo.sh
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/flexd-pgo.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

log() { printf 'pgo.sh: %s\n' "$*" >&2; }

# -pgo=off: the profile is of the code as written, not as the last profile
# had it optimised.
log "profiling the epoch path"
go test -pgo=off ./tests -run '^$' -bench 'BenchmarkEpochPost/jobs=200/store=memory' -benchtime 3000x \
	-cpuprofile "$tmp/epoch.pprof" -o "$tmp/tests.test" >/dev/null
log "profiling POST /v1/solve"
go test -pgo=off ./httpapi -run '^$' -bench 'BenchmarkSolveRequest' -benchtime 20x \
	-cpuprofile "$tmp/solve.pprof" -o "$tmp/httpapi.test" >/dev/null
log "profiling the solver"
go test -pgo=off ./solver -run '^$' -bench 'BenchmarkSolve/policy=flex/metric=.*/jobs=(100|200|1000)/' -benchtime 10x \
	-cpuprofile "$tmp/solver.pprof" -o "$tmp/solver.test" >/dev/null
go tool pprof -proto "$tmp/epoch.pprof" "$tmp/solve.pprof" "$tmp/solver.pprof" >"$tmp/default.pgo"
mv "$tmp/default.pgo" cmd/flexd/default.pgo
log "wrote cmd/flexd/default.pgo ($(wc -c <cmd/flexd/default.pgo) bytes)"
