#!/usr/bin/env bash
# The throughput measurement of issue 5 in one command: builds flexd and
# flexd-load, starts a throwaway PostgreSQL (scripts/pg-start.sh, as the
# tests run it), serves flexd on it on a free loopback port, runs the load
# tool against it, and prints the load tool's report followed by the CPU
# time each party used per answered epoch: flexd, PostgreSQL (every process
# of the server started here, exited ones included), the load tool, and
# what else ran on the machine meanwhile. Everything it started is stopped
# on every exit path.
#
# Usage: scripts/load.sh [flexd-load flags]
#   default flags: --clusters 150 --jobs 200 --warmup 10s --duration 20s
#   (FLEX's cadence, 2 epochs/s per cluster: 300 epochs/s; the first 10 s,
#   a cold server's, reported on their own line). --url is set by the
#   script. The CPU figures are per epoch answered over the whole run,
#   warm-up included.
#   FLEXD_SERVE_ARGS adds flags to `flexd serve`.
#   Flags given replace the defaults, the warm-up included.
#   LOAD_PG_OUTAGE=AT:FOR stops PostgreSQL AT seconds into the load (its
#   warm-up included: past 10 to fall in the measured window) for FOR
#   seconds (flexd spools meanwhile, in the run's temporary directory), then
#   checks that every epoch the load tool saw answered 200 is in PostgreSQL
#   once the spool has drained. The CPU figures then count the first
#   PostgreSQL server only.
# Example: scripts/load.sh --clusters 150 --jobs 200 --duration 60s
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { printf 'load.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

args=("$@")
if [ ${#args[@]} -eq 0 ]; then
	args=(--clusters 150 --jobs 200 --warmup 10s --duration 20s)
fi

pg_log_prefix=load.sh
# shellcheck source=scripts/pg-start.sh
. "$repo_root/scripts/pg-start.sh"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/flexd-load.XXXXXX")"
pg_started=false
flexd_pid=""
cleanup() {
	local status=$?
	if [ -n "$flexd_pid" ]; then
		kill "$flexd_pid" 2>/dev/null || true
		wait "$flexd_pid" 2>/dev/null || true
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

log "building flexd and flexd-load"
go build -o "$tmp/flexd" ./cmd/flexd
go build -o "$tmp/flexd-load" ./cmd/flexd-load

pg_start "$tmp" flexd || die "could not start PostgreSQL"
port_pg="$port"

port=""
for candidate in $(seq 18080 18180); do
	if pg_port_free "$candidate"; then
		port="$candidate"
		break
	fi
done
[ -n "$port" ] || die "no free loopback port in 18080-18180"
url="http://127.0.0.1:$port"

# shellcheck disable=SC2086 # FLEXD_SERVE_ARGS is a list of flags
"$tmp/flexd" serve --addr "127.0.0.1:$port" --database-url "$PG_URL" --spool-dir "$tmp/spool" --shutdown-delay 0 ${FLEXD_SERVE_ARGS:-} 2>"$tmp/serve.log" &
flexd_pid=$!
for _ in $(seq 1 100); do
	if curl -sf "$url/healthz" >/dev/null 2>&1; then
		break
	fi
	kill -0 "$flexd_pid" 2>/dev/null || { cat "$tmp/serve.log" >&2; die "flexd did not start"; }
	sleep 0.1
done

postmaster="$(head -n1 "$pgdata/postmaster.pid")"
ticks="$(getconf CLK_TCK)"
# flexd_cpu prints the CPU ticks (user + system) flexd has used.
flexd_cpu() { awk '{print $14 + $15}' "/proc/$flexd_pid/stat"; }
# pg_cpu prints the ticks of the PostgreSQL started here: the postmaster,
# the children it has reaped, and the children alive now, read in one pass.
# (cat, not awk, opens the files: a process may exit meanwhile.)
pg_cpu() {
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$postmaster" '
		$2 == "(postgres)" && $1 == pm { t += $14 + $15 + $16 + $17 }
		$2 == "(postgres)" && $4 == pm { t += $14 + $15 }
		END { print t + 0 }'
}
# machine_cpu prints the ticks all CPUs spent busy.
machine_cpu() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
# answered prints the epochs the load tool saw answered 200, its warm-up's
# included.
answered() {
	awk '/^epochs ok/ { n += $3 } /^warm-up/ { for (i = 1; i < NF; i++) if ($i == "ok") n += $(i + 1) } END { print n + 0 }' "$tmp/report"
}

log "load: flexd-load --url $url ${args[*]}"
uptime >&2
flexd0="$(flexd_cpu)" pg0="$(pg_cpu)" all0="$(machine_cpu)"
start="$(date +%s.%N)"
# The load tool's CPU is read from this shell's reaped children, around it.
kids0="$(awk '{print $16 + $17}' "/proc/$$/stat")"
status=0
outage_pid=""
if [ -n "${LOAD_PG_OUTAGE:-}" ]; then
	at="${LOAD_PG_OUTAGE%%:*}" for="${LOAD_PG_OUTAGE##*:}"
	(sleep "$at" && log "PostgreSQL stopped for ${for}s" && pg_outage "$for" && log "PostgreSQL back") &
	outage_pid=$!
fi
"$tmp/flexd-load" --url "$url" "${args[@]}" >"$tmp/report" || status=$?
if [ -n "$outage_pid" ]; then
	wait "$outage_pid" || die "the PostgreSQL outage did not run"
	for _ in $(seq 1 600); do
		[ "$(curl -s "$url/readyz" | grep -o '"status":"[a-z_]*"')" = '"status":"ready"' ] && break
		sleep 0.1
	done
	stored="$("$pg_bin/psql" -h 127.0.0.1 -p "$port_pg" -U postgres -d flexd -Atc 'SELECT count(*) FROM epochs')"
	answered="$(answered)"
	log "after the outage: $answered epochs answered 200, $stored stored in PostgreSQL"
	# Requests still in flight when the load tool stops may be stored
	# without being counted: at least every answered one must be there.
	[ "$stored" -ge "$answered" ] || { log "FAILED: fewer epochs stored than answered"; status=1; }
fi
kids1="$(awk '{print $16 + $17}' "/proc/$$/stat")"
end="$(date +%s.%N)"
flexd1="$(flexd_cpu)" pg1="$(pg_cpu)" all1="$(machine_cpu)"
cat "$tmp/report"

ok="$(answered)"
if [ -n "$ok" ] && [ "$ok" -gt 0 ]; then
	awk -v ok="$ok" -v hz="$ticks" -v start="$start" -v end="$end" -v ncpu="$(nproc)" \
		-v flexd=$((flexd1 - flexd0)) -v pg=$((pg1 - pg0)) -v load=$((kids1 - kids0)) -v all=$((all1 - all0)) 'BEGIN {
		secs = end - start
		ms = 1000 / hz / ok
		printf "cpu ms/epoch    flexd %.2f  postgresql %.2f  load tool %.2f  (total %.2f)\n", flexd * ms, pg * ms, load * ms, (flexd + pg + load) * ms
		other = (all - flexd - pg - load) / hz / secs * 100
		printf "machine         %.0f%% busy of %d CPUs; other processes used %.0f%% of one CPU\n",
			all / hz / secs * 100 / ncpu, ncpu, (other > 0 ? other : 0)
	}'
fi
exit "$status"
