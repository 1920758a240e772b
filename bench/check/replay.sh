#!/bin/sh
# Replay benchmark: `themis replay TRACE --passes N` (the trace N times
# from power-on, the whole machine hashed after each pass) against its
# baseline run side by side: the same trace replayed once, as a user
# replays a finding (boot, the operations, both views checked). Reports
# the distinct hashes (1 expected under the virtual clock), the seconds a
# pass, and a pass as a ratio to the single replay, with the host.
#   bench/check/replay.sh [--passes N] [--build DIR]
# Never fails on speed; exits nonzero if a run fails or the passes differ.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build passes=100
while [ $# -gt 0 ]; do
	case $1 in
	--passes) passes=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	*) echo "usage: bench/check/replay.sh [--passes N] [--build DIR]" >&2; exit 2 ;;
	esac
done
themis=$b/themis
[ -x "$themis" ] || { echo "replay bench: $themis missing (run make)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The trace: the Y2038 witness (ext2's image through the ext2 and the ext4
# driver, the clock moved past 2038), as tests/check/test_replay.sh finds it.
ext2=$b/images/ext2.img
"$themis" explore ext2 ext4 --disk "$ext2" --disk "$ext2" --time --ops create,settime,write \
	--depth 3 --jobs 1 --quiet --stop-on-first --out "$work/run" >/dev/null 2>&1 || true
trace=$(ls "$work/run"/discrepancy-*.trace 2>/dev/null | head -n 1)
[ -n "$trace" ] || { echo "replay bench: the search found no trace to replay" >&2; exit 1; }

t0=$(date +%s.%N)
"$themis" replay "$trace" >"$work/once" 2>&1 || [ $? -eq 1 ] ||
	{ cat "$work/once" >&2; exit 1; }
t1=$(date +%s.%N)
"$themis" replay "$trace" --passes "$passes" >"$work/passes" 2>&1 ||
	{ tail -n 3 "$work/passes" >&2; exit 1; }
t2=$(date +%s.%N)
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
echo "trace: $(grep -c '^op ' "$trace") operations on ext2 ext4 ($(basename "$trace"))"
echo "replay --passes $passes: $(tail -n 1 "$work/passes")"
echo "$t0 $t1 $t2 $passes" | awk '{ once = $2 - $1; pass = ($3 - $2) / $4;
	printf "single replay (boot, operations, both views): %.3f s; a pass: %.3f s = %.2fx the single replay\n",
	once, pass, pass / once }'
