#!/usr/bin/env bash
# The project's one test command (what .ci/run runs in CI).
#
# Starts a throwaway PostgreSQL 15 in a temporary directory (with
# scripts/pg-start.sh), exports
# TEST_DATABASE_URL for the PostgreSQL-backed tests, runs `go vet` and
# `go test`, checks api/openapi.yaml and the Go client generated from it
# (client/flexd.gen.go) are up to date, lints the spec with Spectral
# and Redocly, replays its examples against flexd with Dredd, and clicks the Swagger UI's Try it out in Chromium (when no
# packages were named), and stops the
# server and removes the directory on every exit path.
#
# Usage: scripts/test.sh [go test flags] [packages]
#   With no package patterns it tests ./... ; arguments starting with "./"
#   or the module path, or ending in "/...", are package patterns (also
#   given to go vet); every argument goes to go test as is.
#   Examples: scripts/test.sh
#             scripts/test.sh ./store/... ./migrations/...
#             scripts/test.sh -race -run TestConformance ./store/...
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { printf 'test.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# --- arguments -------------------------------------------------------------
module="$(go list -m)"
packages=()
for arg in "$@"; do
	case "$arg" in
	./* | "$module" | "$module"/* | */...) packages+=("$arg") ;;
	esac
done
full_run=false
test_args=("$@")
if [ ${#packages[@]} -eq 0 ]; then
	full_run=true
	packages=(./...)
	test_args+=(./...)
fi

# --- a throwaway server ----------------------------------------------------
# scripts/pg-start.sh finds (or installs) PostgreSQL and starts it; the load
# measurements of tests/README.md start theirs with it too.
pg_log_prefix=test.sh
# shellcheck source=scripts/pg-start.sh
. "$repo_root/scripts/pg-start.sh"

# Long commands run in the background in a process group of their own
# (set -m) and are waited for, so that an INT or TERM runs the cleanup at
# once (bash defers traps until a foreground command ends) and the cleanup
# can stop go and its test binaries together.
set -m
child=""
run() {
	"$@" &
	child=$!
	local rc=0
	wait "$child" || rc=$?
	child=""
	return "$rc"
}

tmp="$(mktemp -d "${TMPDIR:-/tmp}/flexd-test.XXXXXX")"
pg_started=false
cleanup() {
	local status=$?
	if [ -n "$child" ]; then
		kill -TERM -- "-$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if $pg_started; then
		pg_stop || log "could not stop PostgreSQL (data in $pgdata)"
	fi
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

pg_start "$tmp" flexd_test || die "could not start PostgreSQL"
export TEST_DATABASE_URL="$PG_URL"
log "PostgreSQL on 127.0.0.1:$port; TEST_DATABASE_URL=$TEST_DATABASE_URL"

# --- checks ----------------------------------------------------------------
status=0
log "go vet ${packages[*]}"
run go vet "${packages[@]}" || status=$?

log "go test ${test_args[*]}"
run go test "${test_args[@]}" || status=$?

if $full_run && [ -f scripts/check-openapi.sh ]; then
	log "checking api/openapi.yaml is up to date"
	run bash scripts/check-openapi.sh || status=$?
fi
if $full_run && [ -f scripts/check-client.sh ]; then
	log "checking client/flexd.gen.go is up to date"
	run bash scripts/check-client.sh || status=$?
fi
if $full_run && [ -f scripts/lint-openapi.sh ]; then
	log "linting api/openapi.yaml (Spectral, Redocly)"
	run bash scripts/lint-openapi.sh || status=$?
fi
if $full_run && [ -f scripts/dredd.sh ]; then
	log "replaying the spec's examples against flexd (Dredd)"
	run bash scripts/dredd.sh || status=$?
fi
if $full_run && [ -f scripts/browser-test.sh ]; then
	log "the Swagger UI's Try it out in Chromium"
	run bash scripts/browser-test.sh || status=$?
fi

if [ "$status" -eq 0 ]; then
	log "all checks passed"
else
	log "FAILED (status $status)"
fi
exit "$status"
