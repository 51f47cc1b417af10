#!/usr/bin/env bash
# dredd.sh replays api/openapi.yaml's examples against a running flexd with
# Dredd (pinned in api/dredd/package-lock.json, installed with npm ci under
# api/dredd/node_modules, ignored by git), with api/dredd/hooks.js and
# --sorted (POSTs first, so the GETs read back the example epoch).
#
# Every executed transaction sends the spec's own request example and must
# get the status, the Content-Type, the headers and the keys of the spec's
# response example (the values are checked by api's TestResponseExamples).
# An operation has one request example, so the status a transaction can get
# depends on the server alone. Three flexd servers (memory store, loopback)
# are run in turn, each with the transactions it must answer:
#   plain                          the 2xx
#   --body-limit 64                the 413 (every example body is larger)
#   --rate-limit 0.001, burst 1,   the 429 (every request is over the limit)
#     its bursts spent first
# The other transactions need another request than the example (400, 401,
# 404, 409, 415, 422) or a server shutting down or without its database
# (503): skipped in every run, and counted.
#
# Fails on any failing transaction or error, or a run where nothing passed.
#
# Usage: scripts/dredd.sh [BASE_URL]
#   With BASE_URL, runs only the 2xx transactions against that server
#   instead (FLEXD_TOKEN, when set, is sent as the bearer token).
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
stop_flexd() {
	if [ -n "$flexd_pid" ]; then
		kill "$flexd_pid" 2>/dev/null || true
		wait "$flexd_pid" 2>/dev/null || true
		flexd_pid=""
	fi
}
cleanup() {
	stop_flexd
	rm -rf "$tmp"
}
trap cleanup EXIT

# start_flexd FLAGS...: a flexd on a free loopback port; sets base.
start_flexd() {
	local port="" candidate
	for candidate in $(seq 18480 18580); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
			port="$candidate"
			break
		fi
	done
	[ -n "$port" ] || die "no free loopback port in 18480-18580"
	base="http://127.0.0.1:$port"
	"$tmp/flexd" serve --addr "127.0.0.1:$port" --shutdown-delay 0 "$@" >"$tmp/flexd.log" 2>&1 &
	flexd_pid=$!
	for _ in $(seq 1 100); do
		curl -sf "$base/readyz" >/dev/null && return 0
		sleep 0.1
	done
	cat "$tmp/flexd.log" >&2
	die "flexd did not get ready"
}

executed=0
total=0
# run_dredd NAME STATUSES: Dredd against $base, running the transactions
# whose expected status matches the regular expression STATUSES.
run_dredd() {
	local name="$1" statuses="$2" rc=0 summary passing failing errors skipped
	(cd api/dredd && FLEXD_DREDD_STATUSES="$statuses" node_modules/.bin/dredd ../openapi.yaml "$base" \
		--sorted --hookfiles=hooks.js --loglevel=error --color=false) >"$tmp/dredd.log" 2>&1 || rc=$?
	# Dredd's own warnings about the OpenAPI 3 keys its parser does not
	# read (tags, minimum, allOf, ...) are left out; failures are printed
	# whole.
	grep -E '^(pass|fail):' "$tmp/dredd.log" | sed "s/^/  [$name] /" >&2 || true
	summary="$(grep -E '^complete: [0-9]+ passing' "$tmp/dredd.log" || true)"
	if [ "$rc" -ne 0 ] || [ -z "$summary" ]; then
		cat "$tmp/dredd.log" >&2
		die "$name: Dredd failed (exit $rc)"
	fi
	read -r passing failing errors skipped total < <(sed -E \
		's/^complete: ([0-9]+) passing, ([0-9]+) failing, ([0-9]+) errors, ([0-9]+) skipped, ([0-9]+) total.*/\1 \2 \3 \4 \5/' <<<"$summary")
	log "$name: $summary"
	[ "$failing" -eq 0 ] && [ "$errors" -eq 0 ] || { cat "$tmp/dredd.log" >&2; die "$name: $failing failing, $errors errors"; }
	[ "$passing" -gt 0 ] || die "$name: no transaction passed"
	executed=$((executed + passing))
}

if [ -n "${1:-}" ]; then
	base="$1"
	run_dredd "$base" '^2\d\d$'
	log "ok: $executed of $total transactions passed, 0 failed"
	exit 0
fi

go build -o "$tmp/flexd" ./cmd/flexd

start_flexd
run_dredd plain '^2\d\d$'
stop_flexd

start_flexd --body-limit 64
run_dredd body-limit '^413$'
stop_flexd

start_flexd --rate-limit 0.001 --rate-burst 1
# Spend the bursts of one: an anonymous caller's bucket is its address's,
# or, on a cluster's paths, the cluster's (httpapi's limitKey). After these
# two requests every example request is over the limit.
for path in /v1/metrics /v1/clusters/c1/epochs; do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$base$path")" = 200 ] || die "rate-limited flexd: the first GET $path was refused"
done
run_dredd rate-limited '^429$'
stop_flexd

log "ok: $executed of $total transactions passed in some run, 0 failed; $((total - executed)) skipped in every run (400, 401, 404, 409, 415, 422, 503: see api/dredd/hooks.js)"
