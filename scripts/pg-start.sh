#!/usr/bin/env bash
# Starts a throwaway PostgreSQL the way the tests use it: a fresh cluster in
# a directory of its own, on a free loopback port in 54329-54429, trust auth,
# durability off (fsync, synchronous_commit, full_page_writes; PG_DURABLE=1
# keeps them on), 300 connections. scripts/test.sh sources this file; load measurements run it
# directly so they see the same server:
#
#   scripts/pg-start.sh DIR [DBNAME]   start in DIR (created if absent), create
#                                      DBNAME (default flexd), print its URL
#   scripts/pg-start.sh --stop DIR     stop the server started in DIR
#   scripts/pg-start.sh --pause DIR    stop it as an outage would (fast
#                                      shutdown: every connection cut)
#   scripts/pg-start.sh --resume DIR   start a paused server again, as it was
#
# Sourced, it defines pg_start DIR DBNAME (sets pg_bin, as_pg, pgdata, port,
# pg_started=true and PG_URL) and pg_stop, and leaves traps to the caller.

pg_log() { printf '%s: %s\n' "${pg_log_prefix:-pg-start.sh}" "$*" >&2; }

# pg_find_bin prints the directory of initdb, preferring PostgreSQL 15.
pg_find_bin() {
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

# pg_setup finds (or, as root, installs) PostgreSQL and decides whom the
# server runs as: initdb refuses to run as root, so as root it runs as the
# unprivileged postgres user.
pg_setup() {
	if ! pg_bin="$(pg_find_bin)"; then
		if [ "$(id -u)" -ne 0 ]; then
			pg_log "PostgreSQL's initdb was not found and installing it needs root: run 'sudo apt-get install -y postgresql' (or set PATH to a PostgreSQL bin directory), then retry"
			return 1
		fi
		pg_log "PostgreSQL not found; installing it with apt-get"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
		pg_bin="$(pg_find_bin)" || { pg_log "installed postgresql but still found no initdb"; return 1; }
	fi
	pg_log "using PostgreSQL from $pg_bin"
	as_pg=()
	if [ "$(id -u)" -eq 0 ]; then
		id postgres >/dev/null 2>&1 || { pg_log "running as root but there is no 'postgres' user to run the server as"; return 1; }
		as_pg=(runuser -u postgres --)
	fi
}

pg_port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pg_start DIR DBNAME starts a server with its data in DIR/data and its log
# in DIR/postgres.log, and creates DBNAME. pg_started is set as soon as
# there is a server to stop, so a caller's cleanup can stop it.
pg_start() {
	local dir="$1" db="$2" candidate ready=false
	pg_started=false
	pg_setup || return 1
	pgdata="$dir/data"
	if [ ${#as_pg[@]} -gt 0 ]; then
		chown postgres "$dir"
	fi
	port=""
	for candidate in $(seq 54329 54429); do
		if pg_port_free "$candidate"; then
			port="$candidate"
			break
		fi
	done
	[ -n "$port" ] || { pg_log "no free loopback port in 54329-54429"; return 1; }

	"${as_pg[@]}" "$pg_bin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; pg_log "initdb failed"; return 1; }

	# Durability is pointless for a throwaway database; speed is not.
	# (So no figure about durability may come from this server: a stopped
	# one can lose what it acknowledged. flexd's spool fsyncs on its own.)
	# PG_DURABLE=1 keeps PostgreSQL's durable defaults, for fault tests
	# that count what a stopped server still holds.
	# The settings go into the cluster's own configuration, so a paused
	# server starts again as it was (--resume, pg_outage).
	local durability=off
	if [ "${PG_DURABLE:-0}" = 1 ]; then
		durability=on
	fi
	"${as_pg[@]}" tee -a "$pgdata/postgresql.conf" >/dev/null <<-CONF
		port = $port
		unix_socket_directories = '$dir'
		listen_addresses = '127.0.0.1'
		max_connections = 300
		fsync = $durability
		synchronous_commit = $durability
		full_page_writes = $durability
	CONF
	"${as_pg[@]}" "$pg_bin/pg_ctl" start -D "$pgdata" -l "$dir/postgres.log" -s -w -t 60 ||
		{ cat "$dir/postgres.log" >&2; pg_log "PostgreSQL did not start"; return 1; }
	pg_started=true

	for _ in $(seq 1 60); do
		if "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
			ready=true
			break
		fi
		sleep 0.5
	done
	$ready || { cat "$dir/postgres.log" >&2; pg_log "PostgreSQL not ready after 30s"; return 1; }

	"$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$db" || { pg_log "createdb $db failed"; return 1; }
	PG_URL="postgres://postgres@127.0.0.1:$port/$db?sslmode=disable"
}

# pg_pause stops the server in $pgdata as an outage would (fast shutdown:
# every connection cut); pg_resume starts it again as it was.
pg_pause() { "${as_pg[@]}" "$pg_bin/pg_ctl" stop -D "$pgdata" -m fast -s >/dev/null 2>&1; }
pg_resume() {
	"${as_pg[@]}" "$pg_bin/pg_ctl" start -D "$pgdata" -l "$(dirname "$pgdata")/postgres.log" -s -w -t 60 >/dev/null 2>&1
}

# pg_outage SECONDS pauses the server pg_start started and resumes it
# SECONDS later.
pg_outage() {
	pg_pause || return 1
	sleep "$1"
	pg_resume
}

# pg_stop stops the server pg_start started (immediately: nothing in it is
# worth a checkpoint).
pg_stop() {
	"${as_pg[@]}" "$pg_bin/pg_ctl" stop -D "$pgdata" -m immediate -s >/dev/null 2>&1
}

# Run directly rather than sourced.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-}" in
	"" | -h | --help)
		sed -n '2,16p' "$0" >&2
		exit 2
		;;
	--stop)
		[ -n "${2:-}" ] || { pg_log "--stop needs the directory"; exit 2; }
		pg_setup
		pgdata="$2/data"
		pg_stop || { pg_log "could not stop PostgreSQL in $2"; exit 1; }
		;;
	--pause | --resume)
		[ -n "${2:-}" ] || { pg_log "$1 needs the directory"; exit 2; }
		pg_setup
		pgdata="$(cd "$2" && pwd)/data"
		if [ "$1" = --pause ]; then
			pg_pause || { pg_log "could not stop PostgreSQL in $2"; exit 1; }
		else
			pg_resume || { pg_log "could not start PostgreSQL in $2 again"; exit 1; }
		fi
		;;
	*)
		mkdir -p "$1"
		dir="$(cd "$1" && pwd)"
		pg_start "$dir" "${2:-flexd}"
		echo "$PG_URL"
		;;
	esac
fi
