#!/bin/sh
# Lens benchmark: what the io lens costs the checker, and what a profile
# costs per operation.
#   - explore states/s with `--lens io` against without, one worker, the
#     same scope (exhaustive to --depth, so both runs check the same
#     states), alternated round by round on one host; the medians and their
#     ratio (goal: io within 10%);
#   - `themis profile` for ext2, ext4 and xfs: its own figure, the host
#     milliseconds per measure (each a write fork and a cold-read fork),
#     and that as a ratio to one checker state of the run above;
#   - `themis clock`, the full sweep of 20 variants: seconds, and seconds a
#     variant as a ratio to one boot to the agent;
#   - `themis corrupt`, a sweep of 4 bits per structure class of ext2, ext4
#     and btrfs: flips classified per second (each a fork, a flip, a mount,
#     a walk and the filesystem's own checker beside it), and a flip as a
#     ratio to one checker state.
#   bench/lens/run.sh [--depth N] [--rounds N] [--pair A+B] [--build DIR]
# Never fails on speed; exits nonzero only if a run fails.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build depth=2 rounds=5 pair=ext4+ext2
while [ $# -gt 0 ]; do
	case $1 in
	--depth) depth=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--pair) pair=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	*) echo "usage: bench/lens/run.sh [--depth N] [--rounds N] [--pair A+B] [--build DIR]" >&2; exit 2 ;;
	esac
done
themis=$b/themis
[ -x "$themis" ] || { echo "lens bench: $themis missing (run make)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fs=$(echo "$pair" | tr + ' ')

rate() {
	# shellcheck disable=SC2086
	out=$("$themis" explore $fs --depth "$depth" --jobs 1 --quiet "$@" 2>&1) ||
		[ $? -eq 1 ] || { echo "lens bench: explore $fs $* failed: $out" >&2; exit 1; }
	echo "$out" | sed -n 's/.*(\([0-9.]*\) states\/s).*/\1/p' | head -n 1
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$work/plain"
: >"$work/io"
for r in $(seq "$rounds"); do
	rate >>"$work/plain"
	rate --lens io >>"$work/io"
	echo "round $r: without $(tail -n 1 "$work/plain"), with --lens io $(tail -n 1 "$work/io") states/s" >&2
done
p=$(median "$work/plain") i=$(median "$work/io")
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
echo "explore $fs --depth $depth --jobs 1, medians of $rounds alternated rounds:"
echo "  without lenses: $p states/s; with --lens io: $i states/s; ratio $(echo "$i $p" | awk '{ printf "%.3f", $1 / $2 }')"
"$themis" profile ext2 ext4 xfs >"$work/profile" 2>&1 || { cat "$work/profile" >&2; exit 1; }
ms=$(tail -n 1 "$work/profile" | sed -n 's/.*: \([0-9.]*\) ms each.*/\1/p')
echo "profile ext2 ext4 xfs: $(tail -n 1 "$work/profile")"
# The baseline of a measure: one state of the checker above (a fork, the
# operation on every disk, both views, a restore), from the same host.
echo "  a profile measure costs $(echo "$ms $p" | awk '{ printf "%.2f", $1 / (1000 / $2) }') checker states ($(echo "$p" | awk '{ printf "%.2f", 1000 / $1 }') ms each)"
# The clock sweep: all 20 variants (a fresh mkfs, a boot and ~60 guest
# commands each), against its baseline run side by side: booting the same
# kernel to the agent with one disk, the cost every variant pays before its
# first instant.
t0=$(date +%s.%N)
"$themis" clock --json "$work/clock.json" >"$work/clock.md" 2>"$work/clock.err" || {
	cat "$work/clock.err" >&2
	exit 1
}
t1=$(date +%s.%N)
"$themis" boot --disk "$b/images/ext4.img" >/dev/null 2>&1 || { echo "lens bench: boot failed" >&2; exit 1; }
t2=$(date +%s.%N)
echo "clock sweep: $(tail -n 1 "$work/clock.err" | sed 's/^clock: //'); $(echo "$t0 $t1 $t2" | awk '{ printf "%.1f s wall, %.2f s a variant = %.1f boots to the agent (a boot: %.2f s)", $2 - $1, ($2 - $1) / 20, ($2 - $1) / 20 / ($3 - $2), $3 - $2 }')"
# The corrupt sweep: flips classified per second, from its own summary.
"$themis" corrupt ext2 ext4 btrfs --sweep --bits 4 --quiet >"$work/corrupt" 2>&1 || [ $? -eq 1 ] || {
	tail -n 5 "$work/corrupt" >&2
	exit 1
}
fps=$(tail -n 1 "$work/corrupt" | sed -n 's/.*: \([0-9.]*\) flips\/s.*/\1/p')
echo "corrupt ext2 ext4 btrfs --sweep --bits 4: $(tail -n 1 "$work/corrupt")"
echo "  a flip costs $(echo "$fps $p" | awk '{ printf "%.2f", $2 / $1 }') checker states"
