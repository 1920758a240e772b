#!/bin/sh
# A/B benchmark: the states/s of two themis binaries (or of one binary on
# two kernels, --kernel-a/--kernel-b) on the same explore command, run in turns (A B A B ...) so that the host's slow and fast
# minutes fall on both alike. This host's speed drifts by 20% over a day:
# a change is judged by this ratio, never by two figures taken apart.
# With --together (for one-job commands on a two-core host), each round runs
# A and B at the same time, one per core.
#   bench/ab/run.sh [--rounds N] [--together] [--kernel-a IMG --kernel-b IMG] OLD NEW [explore args...]
# Default explore args: ext4 ext2 --depth 2 --jobs 2. Prints each round and
# the medians; never fails on speed, exits nonzero only if a run fails.
set -eu
rounds=7 together=0 kernel_a="" kernel_b=""
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--together) together=1; shift ;;
	--kernel-a) kernel_a=$2; shift 2 ;;
	--kernel-b) kernel_b=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || {
	echo "usage: bench/ab/run.sh [--rounds N] [--together] [--kernel-a IMG --kernel-b IMG] OLD NEW [explore args...]" >&2
	exit 2
}
old=$1 new=$2
shift 2
[ $# -gt 0 ] || set -- ext4 ext2 --depth 2 --jobs 2
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "ab bench: $b is not an executable" >&2; exit 2; }
done
for k in "$kernel_a" "$kernel_b"; do
	[ -z "$k" ] || [ -f "$k" ] || { echo "ab bench: kernel $k does not exist" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# rate BINARY KERNEL OUT ARGS...: one run's states/s (the summary's figure)
# into OUT; KERNEL "" is the binary's default.
rate() {
	bin=$1 kern=$2 out=$3
	shift 3
	[ -z "$kern" ] || set -- "$@" --kernel "$kern"
	rc=0
	"$bin" explore "$@" --quiet >"$out.log" 2>&1 || rc=$?
	[ $rc -le 1 ] || { echo "ab bench: $bin explore $* failed:" >&2; cat "$out.log" >&2; return 1; }
	sed -n 's/.*(\([0-9.]*\) states\/s).*/\1/p' "$out.log" | head -n 1 >"$out"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "explore $*, $rounds rounds$([ $together = 1 ] && echo ', A and B at once')"
printf '%6s %10s %10s %8s\n' round A B B/A
for r in $(seq "$rounds"); do
	if [ $together = 1 ]; then
		rate "$old" "$kernel_a" "$work/a" "$@" & pa=$!
		rate "$new" "$kernel_b" "$work/b" "$@" & pb=$!
		wait $pa && wait $pb
	else
		rate "$old" "$kernel_a" "$work/a" "$@"
		rate "$new" "$kernel_b" "$work/b" "$@"
	fi
	a=$(cat "$work/a") b=$(cat "$work/b")
	echo "$a" >>"$work/as"
	echo "$b" >>"$work/bs"
	printf '%6d %10.1f %10.1f %7.3fx\n' "$r" "$a" "$b" "$(echo "$b / $a" | bc -l)"
done
ma=$(median <"$work/as") mb=$(median <"$work/bs")
printf '%6s %10.1f %10.1f %7.3fx\n' median "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
echo "A: $old${kernel_a:+ --kernel $kernel_a}"
echo "B: $new${kernel_b:+ --kernel $kernel_b}"
