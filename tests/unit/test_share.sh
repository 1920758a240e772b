#!/bin/sh
# test_share.c's driver: starts a throwaway Redis server (loopback only, a
# free port, nothing saved, its files in a temporary directory), runs the
# test against it (the shared-memory share and the Redis one), and stops
# the server. redis-server is required, not optional: without it this
# fails, naming the package (scripts/deps.sh installs it).
#   tests/unit/test_share.sh [TEST_BINARY]   (default build/asan/test_share)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$top/build/asan/test_share}
if ! command -v redis-server >/dev/null 2>&1; then
	echo "FAIL: test_share needs redis-server (Debian package redis-server; scripts/deps.sh installs it)"
	exit 1
fi
work=$(mktemp -d)
pid=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A random high port, another one if the server cannot listen there (any
# other program may hold the port picked).
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
	p=$(($(od -An -N2 -tu2 /dev/urandom) % 20000 + 30000))
	: >"$work/redis.log"
	redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
		--logfile "$work/redis.log" --daemonize no >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		if grep -q "Ready to accept connections" "$work/redis.log"; then
			port=$p
			break 2
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=""
done
if [ -z "$port" ]; then
	echo "FAIL: test_share: could not start redis-server on loopback; its log:"
	tail -n 5 "$work/redis.log" | sed 's/^/    /'
	exit 1
fi
"$bin" "redis://127.0.0.1:$port"
rc=$?
[ "$rc" -eq 0 ] || { echo "redis-server's log:"; tail -n 10 "$work/redis.log" | sed 's/^/    /'; }
exit "$rc"
