#!/usr/bin/env bash
# browser-test.sh checks the Swagger UI as a person uses it: it starts flexd
# on a loopback port and, in Debian's Chromium driven by playwright-core
# (pinned in tests/browser), clicks Try it out and Execute on POST /v1/solve
# and on the epoch POST with the example bodies the UI offers, and fails
# unless both render a 200. flexd runs on PostgreSQL (a database of its own
# on TEST_DATABASE_URL's server when set, as under scripts/test.sh, else a
# throwaway server from scripts/pg-start.sh) with a token made by `flexd
# token create`, which the browser pastes, as printed, into Authorize: so
# access control is on and the 200s show the printed token works. Screenshots of both answers go
# to SHOTS_DIR (default: a temporary directory; docs/ holds the committed
# ones).
#
# Usage: scripts/browser-test.sh [SHOTS_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'browser-test.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if ! command -v chromium >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] || die "Chromium is needed: sudo apt-get install -y chromium"
	log "installing Chromium"
	apt-get install -y -qq chromium >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }
fi
command -v npm >/dev/null || die "npm is needed (apt-get install -y npm)"
if [ ! -d tests/browser/node_modules/playwright-core ]; then
	(cd tests/browser && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/flexd-browser.XXXXXX")"
shots="${1:-$tmp}"
flexd_pid=""
pg_log_prefix=browser-test.sh
# shellcheck source=scripts/pg-start.sh
. "$root/scripts/pg-start.sh"
own_pg=false
cleanup() {
	[ -n "$flexd_pid" ] && kill "$flexd_pid" 2>/dev/null && wait "$flexd_pid" 2>/dev/null
	if $own_pg; then pg_stop || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# A database of this run's own for the token.
db="flexd_browser_$$"
if [ -n "${TEST_DATABASE_URL:-}" ]; then
	pg_bin="$(pg_find_bin)" || die "PostgreSQL's client programs are needed"
	hostport="${TEST_DATABASE_URL#*@}"
	hostport="${hostport%%/*}"
	"$pg_bin/createdb" -h "${hostport%:*}" -p "${hostport##*:}" -U postgres "$db" || die "createdb $db failed"
	db_url="postgres://postgres@$hostport/$db?sslmode=disable"
else
	pg_start "$tmp" "$db" || die "could not start PostgreSQL"
	own_pg=true
	db_url="$PG_URL"
fi

go build -o "$tmp/flexd" ./cmd/flexd
port=""
for candidate in $(seq 18380 18480); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
		port="$candidate"
		break
	fi
done
[ -n "$port" ] || die "no free loopback port in 18380-18480"
base="http://127.0.0.1:$port"
token="$(FLEXD_DATABASE_URL="$db_url" "$tmp/flexd" token create --cluster swagger-demo 2>"$tmp/token.log")" ||
	{ cat "$tmp/token.log" >&2; die "flexd token create failed"; }
FLEXD_DATABASE_URL="$db_url" "$tmp/flexd" serve --addr "127.0.0.1:$port" --spool-max-bytes 0 --shutdown-delay 0 >"$tmp/flexd.log" 2>&1 &
flexd_pid=$!
for _ in $(seq 1 100); do
	curl -sf "$base/readyz" >/dev/null && break
	sleep 0.1
done
curl -sf "$base/readyz" >/dev/null || { cat "$tmp/flexd.log" >&2; die "flexd did not get ready"; }
mkdir -p "$shots"
# Access control is on: without the token the epoch POST is refused.
code="$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d @examples/epoch.json "$base/v1/clusters/swagger-demo/epochs")"
[ "$code" = 401 ] || die "without the token the epoch POST answered $code, want 401"
node tests/browser/swagger.mjs "$base" "$shots" "$token" || die "the Swagger UI did not answer 200 to both examples with the pasted token"
log "ok: with the token pasted as printed into Authorize, both examples answered 200 in the Swagger UI (screenshots in $shots)"
