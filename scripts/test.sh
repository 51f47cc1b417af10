#!/usr/bin/env bash
# The project's one test command (what .ci/run runs in CI).
#
# Starts a throwaway PostgreSQL 15 in a temporary directory, exports
# TEST_DATABASE_URL for the PostgreSQL-backed tests, runs `go vet` and
# `go test`, checks api/openapi.yaml is up to date (when
# scripts/check-openapi.sh exists and no packages were named), and stops the
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

# --- PostgreSQL binaries ---------------------------------------------------
find_pg_bin() {
	local dir
	for dir in /usr/lib/postgresql/15/bin \
		"$(dirname "$(dpkg -L postgresql-15 2>/dev/null | grep '/bin/initdb$' | head -n1)" 2>/dev/null)"; do
		if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
			echo "$dir"
			return 0
		fi
	done
	# Any other installed major version will do, newest first.
	dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
	if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
		echo "$dir"
		return 0
	fi
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

if ! pg_bin="$(find_pg_bin)"; then
	if [ "$(id -u)" -ne 0 ]; then
		die "PostgreSQL's initdb was not found and installing it needs root: run 'sudo apt-get install -y postgresql' (or set PATH to a PostgreSQL bin directory), then retry"
	fi
	log "PostgreSQL not found; installing it with apt-get"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
	pg_bin="$(find_pg_bin)" || die "installed postgresql but still found no initdb"
fi
log "using PostgreSQL from $pg_bin"

# --- a throwaway server ----------------------------------------------------
# initdb refuses to run as root, so as root the server runs as the
# unprivileged postgres user; otherwise as whoever runs this.
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
	id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to run the server as"
	as_pg=(runuser -u postgres --)
fi

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
pgdata="$tmp/data"
started=false
cleanup() {
	local status=$?
	if [ -n "$child" ]; then
		kill -TERM -- "-$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if $started; then
		"${as_pg[@]}" "$pg_bin/pg_ctl" stop -D "$pgdata" -m immediate -s >/dev/null 2>&1 ||
			log "could not stop PostgreSQL (data in $pgdata)"
	fi
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ ${#as_pg[@]} -gt 0 ]; then
	chown postgres "$tmp"
fi

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
for candidate in $(seq 54329 54429); do
	if port_free "$candidate"; then
		port="$candidate"
		break
	fi
done
[ -n "$port" ] || die "no free loopback port in 54329-54429"

"${as_pg[@]}" "$pg_bin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --no-locale >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log" >&2; die "initdb failed"; }

# Durability is pointless for a throwaway database; speed is not.
"${as_pg[@]}" "$pg_bin/pg_ctl" start -D "$pgdata" -l "$tmp/postgres.log" -s -w -t 60 \
	-o "-p $port -k $tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" ||
	{ cat "$tmp/postgres.log" >&2; die "PostgreSQL did not start"; }
started=true

ready=false
for _ in $(seq 1 60); do
	if "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
		ready=true
		break
	fi
	sleep 0.5
done
$ready || { cat "$tmp/postgres.log" >&2; die "PostgreSQL not ready after 30s"; }

"$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U postgres flexd_test
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/flexd_test?sslmode=disable"
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

if [ "$status" -eq 0 ]; then
	log "all checks passed"
else
	log "FAILED (status $status)"
fi
exit "$status"
