#!/usr/bin/env bash
# dredd.sh replays api/openapi.yaml's examples against a running flexd with
# Dredd (pinned in api/dredd/package-lock.json, installed with npm ci under
# api/dredd/node_modules, ignored by git): it starts flexd (memory store) on
# a loopback port, runs Dredd with api/dredd/hooks.js and --sorted (POSTs
# first, so the GETs read back the example epoch), prints Dredd's count and
# fails on any failing transaction or error, or when nothing passed.
#
# Every operation's 2xx transaction sends the spec's request example and
# must answer with the status, the Content-Type, the headers and the keys
# of the spec's response example (the values are checked by api's
# TestResponseExamples). The 4xx and 5xx transactions are skipped and
# counted: they need other requests than the single example (hooks.js).
#
# Usage: scripts/dredd.sh [BASE_URL]
#   With BASE_URL, runs against that server instead of starting one
#   (FLEXD_TOKEN, when set, is sent as the bearer token).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'dredd.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

command -v npm >/dev/null || die "npm is needed (apt-get install -y npm)"
if [ ! -x api/dredd/node_modules/.bin/dredd ]; then
	(cd api/dredd && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/flexd-dredd.XXXXXX")"
flexd_pid=""
cleanup() {
	[ -n "$flexd_pid" ] && kill "$flexd_pid" 2>/dev/null && wait "$flexd_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

base="${1:-}"
if [ -z "$base" ]; then
	go build -o "$tmp/flexd" ./cmd/flexd
	port=""
	for candidate in $(seq 18480 18580); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
			port="$candidate"
			break
		fi
	done
	[ -n "$port" ] || die "no free loopback port in 18480-18580"
	base="http://127.0.0.1:$port"
	"$tmp/flexd" serve --addr "127.0.0.1:$port" >"$tmp/flexd.log" 2>&1 &
	flexd_pid=$!
	for _ in $(seq 1 100); do
		curl -sf "$base/readyz" >/dev/null && break
		sleep 0.1
	done
	curl -sf "$base/readyz" >/dev/null || { cat "$tmp/flexd.log" >&2; die "flexd did not get ready"; }
fi

rc=0
(cd api/dredd && node_modules/.bin/dredd ../openapi.yaml "$base" --sorted --hookfiles=hooks.js \
	--loglevel=error --color=false) >"$tmp/dredd.log" 2>&1 || rc=$?
# Dredd's own warnings about the OpenAPI 3 keys its parser does not read
# (tags, minimum, allOf, ...) are noise here; failures are printed whole.
grep -E '^(pass|fail|skip):' "$tmp/dredd.log" >&2 || true
summary="$(grep -E '^complete: [0-9]+ passing' "$tmp/dredd.log" || true)"
if [ "$rc" -ne 0 ] || [ -z "$summary" ]; then
	cat "$tmp/dredd.log" >&2
	die "Dredd failed (exit $rc)"
fi
read -r passing failing errors skipped total < <(sed -E 's/^complete: ([0-9]+) passing, ([0-9]+) failing, ([0-9]+) errors, ([0-9]+) skipped, ([0-9]+) total.*/\1 \2 \3 \4 \5/' <<<"$summary")
log "$summary"
[ "$failing" -eq 0 ] && [ "$errors" -eq 0 ] || { cat "$tmp/dredd.log" >&2; die "$failing failing, $errors errors"; }
[ "$passing" -gt 0 ] || die "no transaction passed"
log "ok: $passing of $total transactions passed, 0 failed, $skipped skipped (4xx and 5xx answers, see api/dredd/hooks.js)"
