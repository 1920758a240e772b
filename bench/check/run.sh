#!/bin/sh
# Checker benchmark: states/s of the default `themis explore` (exhaustive,
# both views) for filesystem pairs, with one worker, with two, and with two
# sharing the run through a Redis server on loopback, side by side with a
# baseline run in the same machine that backtracks the way an in-OS checker
# must (unmount, write the saved images back, mount again:
# --baseline-remount; one worker, the same states as the one-worker run).
# Every run takes the on-disk view the same way (--durability, default
# drop-caches), so the ratios measure the backtracking and the workers.
# Also: the cost of the on-disk view (one worker, --durability off,
# drop-caches, remount), and Metis's published per-worker rates (FAST'24:
# ext4 112.6 states/s, xfs 8.8 states/s).
#   bench/check/run.sh [--depth N] [--states N] [--build DIR]
# Never fails on speed; exits nonzero only if a run fails.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build depth=3 states=3000
while [ $# -gt 0 ]; do
	case $1 in
	--depth) depth=$2; shift 2 ;;
	--states) states=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	*) echo "usage: bench/check/run.sh [--depth N] [--states N] [--build DIR]" >&2; exit 2 ;;
	esac
done
themis=$b/themis
[ -x "$themis" ] || { echo "check bench: $themis missing (run make)" >&2; exit 2; }
command -v redis-server >/dev/null || { echo "check bench: redis-server missing (scripts/deps.sh)" >&2; exit 2; }

work=$(mktemp -d)
port=$((20000 + $$ % 20000))
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
	--daemonize yes --pidfile "$work/redis.pid" >/dev/null
trap 'kill "$(cat "$work/redis.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$work"' EXIT
sleep 0.3

# rate PAIR [extra...] -> states/s of one run
rate() {
	fs=$1
	shift
	# shellcheck disable=SC2086
	out=$("$themis" explore $fs --depth "$depth" --max-states "$states" --quiet "$@" 2>&1) ||
		[ $? -eq 1 ] || { echo "check bench: explore $fs $* failed: $out" >&2; exit 1; }
	echo "$out" | sed -n 's/.*(\([0-9.]*\) states\/s).*/\1/p' | head -n 1
}

printf '%-12s %10s %10s %10s %10s %9s %9s\n' pair remount "1 job" "2 jobs" "2 redis" "1j/base" "2j/base"
for pair in "ext4 ext2" "xfs ext4" "btrfs ext4"; do
	base=$(rate "$pair" --jobs 1 --baseline-remount)
	one=$(rate "$pair" --jobs 1)
	two=$(rate "$pair" --jobs 2)
	red=$(rate "$pair" --jobs 2 --redis "redis://127.0.0.1:$port")
	printf '%-12s %10.1f %10.1f %10.1f %10.1f %8.1fx %8.1fx\n' "$(echo "$pair" | tr ' ' +)" \
		"$base" "$one" "$two" "$red" "$(echo "$one / $base" | bc -l)" "$(echo "$two / $base" | bc -l)"
done
echo
echo "the on-disk view, ext4+ext2, one worker:"
off=$(rate "ext4 ext2" --jobs 1 --durability off)
for d in drop-caches remount; do
	r=$(rate "ext4 ext2" --jobs 1 --durability $d)
	printf '  %-12s %8.1f states/s  (%.2fx the cost of --durability off)\n' "$d" "$r" \
		"$(echo "$off / $r" | bc -l)"
done
printf '  %-12s %8.1f states/s\n' off "$off"
echo
echo "depth $depth, every operation of the default scope, at most $states states a run."
echo "Metis (FAST'24), per worker: ext4 112.6 states/s, xfs 8.8 states/s (no on-disk view)."
echo "A state here is one operation applied to every filesystem of the pair and checked."
