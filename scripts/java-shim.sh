#!/usr/bin/env bash
# java-shim.sh compiles examples/shim-java/Shim.java (plain Java 17 and
# Gson from Debian's libgoogle-gson-java), starts flexd on a loopback port
# with the memory store, runs the shim against it for SECONDS (default 60),
# stops it with SIGTERM, and checks that every epoch was answered 200 and
# is stored (the cluster's epochs.jsonl has one line per epoch).
#
# Usage: scripts/java-shim.sh [SECONDS]
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'java-shim.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

command -v javac >/dev/null || die "javac (Java 17) is needed: apt-get install -y openjdk-17-jdk-headless"
gson=/usr/share/java/gson.jar
if [ ! -f "$gson" ]; then
	[ "$(id -u)" -eq 0 ] || die "Gson is needed: sudo apt-get install -y libgoogle-gson-java"
	log "installing Gson (libgoogle-gson-java)"
	apt-get install -y -qq libgoogle-gson-java >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq libgoogle-gson-java >/dev/null; }
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/flexd-java-shim.XXXXXX")"
flexd_pid=""
cleanup() {
	[ -n "$flexd_pid" ] && kill "$flexd_pid" 2>/dev/null && wait "$flexd_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/flexd" ./cmd/flexd
javac -cp "$gson" -d "$tmp/classes" examples/shim-java/Shim.java

port=""
for candidate in $(seq 18180 18280); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
		port="$candidate"
		break
	fi
done
[ -n "$port" ] || die "no free loopback port in 18180-18280"
base="http://127.0.0.1:$port"
"$tmp/flexd" serve --addr "127.0.0.1:$port" --shutdown-delay 0 >"$tmp/flexd.log" 2>&1 &
flexd_pid=$!
for _ in $(seq 1 100); do
	curl -sf "$base/readyz" >/dev/null && break
	sleep 0.1
done
curl -sf "$base/readyz" >/dev/null || { cat "$tmp/flexd.log" >&2; die "flexd did not get ready"; }

log "running the Java shim against $base for ${seconds}s"
status=0
timeout --preserve-status -s TERM "$seconds" java -cp "$gson:$tmp/classes" Shim "$base" shim-java >"$tmp/shim.out" || status=$?
cat "$tmp/shim.out"
answered="$(sed -n 's/^epochs answered \([0-9]*\), failed \([0-9]*\)$/\1/p' "$tmp/shim.out")"
failed="$(sed -n 's/^epochs answered \([0-9]*\), failed \([0-9]*\)$/\2/p' "$tmp/shim.out")"
[ -n "$answered" ] || die "the shim printed no summary (exit status $status)"
stored="$(curl -sf "$base/v1/clusters/shim-java/epochs.jsonl" | wc -l)"
log "answered $answered, failed $failed, stored $stored, shim exit status $status"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$stored" -eq "$answered" ] && [ "$answered" -gt 0 ] ||
	die "FAILED: every epoch must be answered 200 and stored"
log "ok"
