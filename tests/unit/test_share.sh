#!/bin/sh
# tier: fast
# test_share.c's driver: starts a throwaway Redis server (tests/lib.sh's
# start_redis: loopback only), runs the test against it (the shared-memory
# share and the Redis one), and stops the server. redis-server is
# required, not optional: without it this fails, naming the package.
#   tests/unit/test_share.sh [TEST_BINARY | BUILD_DIR]
#   (default build/asan/test_share; BUILD_DIR: BUILD_DIR/asan/test_share)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$top/build}
[ ! -d "$bin" ] || bin=$bin/asan/test_share
work=$(mktemp -d)
. "$top/tests/lib.sh"
trap 'stop_redis; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
start_redis || exit 1
"$bin" "$redis_url"
rc=$?
[ "$rc" -eq 0 ] || { echo "redis-server's log:"; tail -n 10 "$work/redis.log" | sed 's/^/    /'; }
exit "$rc"
