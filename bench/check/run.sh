#!/bin/sh
# Checker benchmark: states/s of the default `themis explore` (exhaustive,
# both views) for filesystem pairs, with one worker, with two, and with two
# sharing the run through a Redis server on loopback (the run's command and
# one worker started apart, as on two hosts), side by side with a baseline
# run in the same machine that backtracks the way an in-OS checker must
# (unmount, write the saved images back, mount again: --baseline-remount,
# one worker). By default every run explores the whole scope to --depth,
# so all of them check exactly the same states and the ratios compare like
# with like (--states N caps the runs instead: then the states differ).
# Every run takes the on-disk view the same way (--durability, default
# drop-caches), so the ratios measure the backtracking and the workers.
# Also: the cost of the on-disk view (one worker, --durability off,
# drop-caches, remount), and Metis's published per-worker rates (FAST'24:
# ext4 112.6 states/s, xfs 8.8 states/s).
# This host's speed moves by 10-20% from one run to the next, so every
# Themis figure is the median of --rounds runs (default 5); the baseline,
# 15-70 times slower and so minutes long, runs once.
#   bench/check/run.sh [--depth N] [--states N] [--rounds N] [--pairs "A+B C+D"] [--build DIR]
# Never fails on speed; exits nonzero only if a run fails.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build depth=2 states="" rounds=5 pairs="ext4+ext2 xfs+ext4 btrfs+ext4"
while [ $# -gt 0 ]; do
	case $1 in
	--depth) depth=$2; shift 2 ;;
	--states) states=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	*) echo "usage: bench/check/run.sh [--depth N] [--states N] [--rounds N] [--pairs \"A+B ...\"] [--build DIR]" >&2; exit 2 ;;
	esac
done
themis=$b/themis
[ -x "$themis" ] || { echo "check bench: $themis missing (run make)" >&2; exit 2; }
work=$(mktemp -d)
. "$top/tests/lib.sh"
trap 'stop_redis; rm -rf "$work"' EXIT
start_redis >&2 || exit 2

# rate PAIR [extra...] -> states/s of one run (the summary's figure: the
# run's states over its time from the root state's check to its end; the
# boot before it, about 0.4 s, is not counted)
rate() {
	fs=$(echo "$1" | tr + ' ')
	shift
	# shellcheck disable=SC2086
	out=$("$themis" explore $fs --depth "$depth" ${states:+--max-states "$states"} --quiet "$@" 2>&1) ||
		[ $? -eq 1 ] || { echo "check bench: explore $fs $* failed: $out" >&2; exit 1; }
	echo "$out" | sed -n 's/.*(\([0-9.]*\) states\/s).*/\1/p' | head -n 1
}

# median CMD ARGS...: the median of --rounds results of CMD ARGS
median() {
	: >"$work/rounds"
	for _ in $(seq "$rounds"); do
		r=$("$@") || exit 1
		echo "$r" >>"$work/rounds"
	done
	sort -n "$work/rounds" |
		awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# The run's command and one worker apart, through Redis.
rate_redis() {
	redis-cli -u "$redis_url" del themis:config >/dev/null
	(
		for _ in $(seq 300); do
			[ "$(redis-cli -u "$redis_url" exists themis:config 2>/dev/null)" = 1 ] && break
			sleep 0.1
		done
		"$themis" explore --worker "$redis_url" --jobs 1 >"$work/worker.out" 2>&1
	) &
	rate "$1" --jobs 1 --redis "$redis_url"
	wait
}

printf '%-12s %9s %9s %9s %9s %9s %9s %9s\n' pair remount "1 job" "2 jobs" "2 redis" \
	"1j/base" "2j/base" "2j/1j"
for pair in $pairs; do
	base=$(rate "$pair" --jobs 1 --baseline-remount)
	one=$(median rate "$pair" --jobs 1)
	two=$(median rate "$pair" --jobs 2)
	red=$(median rate_redis "$pair")
	printf '%-12s %9.1f %9.1f %9.1f %9.1f %8.2fx %8.2fx %8.2fx\n' "$pair" "$base" "$one" "$two" \
		"$red" "$(echo "$one / $base" | bc -l)" "$(echo "$two / $base" | bc -l)" \
		"$(echo "$two / $one" | bc -l)"
done
echo
echo "the on-disk view, ext4+ext2, one worker:"
off=$(median rate ext4+ext2 --jobs 1 --durability off)
for d in drop-caches remount; do
	r=$(median rate ext4+ext2 --jobs 1 --durability $d)
	printf '  %-12s %8.1f states/s  (%.2fx the cost of --durability off)\n' "$d" "$r" \
		"$(echo "$off / $r" | bc -l)"
done
printf '  %-12s %8.1f states/s\n' off "$off"
echo
echo "depth $depth, every operation of the default scope${states:+, at most $states states a run};"
echo "each Themis figure the median of $rounds runs, the baseline one run."
echo "Metis (FAST'24), per worker: ext4 112.6 states/s, xfs 8.8 states/s (no on-disk view)."
echo "A state here is one operation applied to every filesystem of the pair and checked."
