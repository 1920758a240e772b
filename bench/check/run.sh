#!/bin/sh
# Checker benchmark: states/s and operations/s of `themis explore` for three
# filesystem pairs at a fixed depth and seed, side by side with a baseline
# run in the same machine that backtracks the way an in-OS checker must
# (unmount, write the saved images back, mount again: --baseline-remount),
# exploring the very same states; and the figures next to Metis's published
# per-worker rates (FAST'24: ext4 112.6 states/s, xfs 8.8 states/s, with
# SPIN reloading whole device images at each backtrack).
#   bench/check/run.sh [--depth N] [--branch K] [--states N] [--build DIR]
# Never fails on speed; exits nonzero only if a run fails.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build depth=4 branch=8 states=400
while [ $# -gt 0 ]; do
	case $1 in
	--depth) depth=$2; shift 2 ;;
	--branch) branch=$2; shift 2 ;;
	--states) states=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	*) echo "usage: bench/check/run.sh [--depth N] [--branch K] [--states N] [--build DIR]" >&2; exit 2 ;;
	esac
done
themis=$b/themis
[ -x "$themis" ] || { echo "check bench: $themis missing (run make)" >&2; exit 2; }

# run PAIR [extra...] -> "states ops seconds"
run() {
	fs=$1
	shift
	# shellcheck disable=SC2086
	out=$("$themis" explore $fs --depth "$depth" --branch "$branch" --seed 1 \
		--max-states "$states" --quiet "$@" 2>&1) || [ $? -eq 1 ] ||
		{ echo "check bench: explore $fs $* failed: $out" >&2; exit 1; }
	echo "$out" | sed -n 's/.*: \([0-9]*\) states, [0-9]* unique, \([0-9]*\) operations, [0-9]* restores in \([0-9.]*\) s.*/\1 \2 \3/p'
}

printf '%-12s %-9s %8s %8s %10s %10s %8s\n' pair mode states ops "states/s" "ops/s" "x base"
for pair in "ext4 ext2" "xfs ext4" "btrfs ext4"; do
	set -- $(run "$pair")
	fs_states=$1 fs_ops=$2 fs_s=$3
	set -- $(run "$pair" --baseline-remount)
	bl_states=$1 bl_ops=$2 bl_s=$3
	fr=$(echo "$fs_states / $fs_s" | bc -l) br=$(echo "$bl_states / $bl_s" | bc -l)
	printf '%-12s %-9s %8s %8s %10.1f %10.1f %8.1f\n' "$(echo $pair | tr ' ' +)" fork \
		"$fs_states" "$fs_ops" "$fr" "$(echo "$fs_ops / $fs_s" | bc -l)" "$(echo "$fr / $br" | bc -l)"
	printf '%-12s %-9s %8s %8s %10.1f %10.1f %8s\n' "" remount "$bl_states" "$bl_ops" "$br" \
		"$(echo "$bl_ops / $bl_s" | bc -l)" 1.0
done
echo
echo "depth $depth, $branch candidates a node, seed 1, at most $states states a run; one worker."
echo "Metis (FAST'24), per worker: ext4 112.6 states/s, xfs 8.8 states/s."
echo "A state here is one operation applied to every filesystem of the pair and compared."
