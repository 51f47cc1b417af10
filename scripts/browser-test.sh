#!/usr/bin/env bash
# browser-test.sh checks the Swagger UI as a person uses it: it starts flexd
# (memory store) on a loopback port and, in Debian's Chromium driven by
# playwright-core (pinned in tests/browser), clicks Try it out and Execute on
# POST /v1/solve and on the epoch POST with the example bodies the UI
# offers, and fails unless both render a 200. Screenshots of both answers go
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
cleanup() {
	[ -n "$flexd_pid" ] && kill "$flexd_pid" 2>/dev/null && wait "$flexd_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

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
"$tmp/flexd" serve --addr "127.0.0.1:$port" >"$tmp/flexd.log" 2>&1 &
flexd_pid=$!
for _ in $(seq 1 100); do
	curl -sf "$base/readyz" >/dev/null && break
	sleep 0.1
done
curl -sf "$base/readyz" >/dev/null || { cat "$tmp/flexd.log" >&2; die "flexd did not get ready"; }
mkdir -p "$shots"
node tests/browser/swagger.mjs "$base" "$shots" || die "the Swagger UI did not answer 200 to both examples"
log "ok: both examples answered 200 in the Swagger UI (screenshots in $shots)"
