#!/bin/sh
# Whole-machine replay (themis replay --passes). Properties guarded:
#   - a trace replayed 10 times from power-on leaves the whole machine
#     (RAM, hart, devices, every disk's content) with one hash, after every
#     operation as well as at the end;
#   - a fresh process replays it to the same hash (nothing of the host
#     process leaks into the machine);
#   - with the host's clock (--clock host) the passes differ: the one
#     nondeterminism a user can opt into shows in the hash;
#   - bad input: exit 2 (among it a trace from another build, whose hashes
#     cannot match, and one whose kernel changed).
#   tests/check/test_replay.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$top/build}
themis=$b/themis
work=$(mktemp -d)
. "$top/tests/lib.sh"
trap 'rm -rf "$work"' EXIT

# A trace of a few operations: the Y2038 witness (settime, create) and a
# write, found by a short search.
ext2=$b/images/ext2.img
"$themis" explore ext2 ext4 --disk "$ext2" --disk "$ext2" --time --ops create,settime,write \
	--depth 3 --jobs 1 --quiet --stop-on-first --out "$work/run" >/dev/null 2>&1
trace=$(ls "$work/run"/discrepancy-*.trace 2>/dev/null | head -n 1)
[ -n "$trace" ] || { fail "no trace to replay"; finish "replay"; exit 1; }
nops=$(grep -c '^op ' "$trace")

"$themis" replay "$trace" --passes 10 --hash-every-op >"$work/p10" 2>&1
st=$?
hashes=$(grep '^pass ' "$work/p10" | awk '{ print $4 }' | sort -u | wc -l)
opl=$(grep -c '^  op [0-9]* hash ' "$work/p10")
ophashes=$(grep '^  op ' "$work/p10" | sort -u | wc -l)
if [ "$st" -eq 0 ] && [ "$(grep -c '^pass ' "$work/p10")" -eq 10 ] && [ "$hashes" -eq 1 ] &&
	[ "$opl" -eq $((10 * nops)) ] && [ "$ophashes" -eq "$nops" ] &&
	grep -q '^10 passes, 1 distinct hash (virtual clock)' "$work/p10"; then
	ok "10 passes of $nops operations: one whole-machine hash, and one per operation ($(tail -n 1 "$work/p10"))"
else
	fail "10 passes (exit $st, $hashes distinct, $opl op lines, $ophashes distinct op lines):"
	tail -n 5 "$work/p10"
fi
h10=$(grep '^pass 1 ' "$work/p10" | awk '{ print $4 }')
"$themis" replay "$trace" --passes 1 >"$work/p1" 2>&1
h1=$(grep '^pass 1 ' "$work/p1" | awk '{ print $4 }')
[ -n "$h1" ] && [ "$h1" = "$h10" ] && ok "a fresh process replays to the same hash ($h1)" ||
	fail "fresh process: '$h1', earlier '$h10'"

"$themis" replay "$trace" --passes 2 --clock host >"$work/ph" 2>&1
st=$?
[ "$st" -eq 1 ] && grep -q '^2 passes, 2 distinct hashes (the host.s clock)' "$work/ph" &&
	ok "with the host's clock the passes differ (exit 1)" ||
	{ fail "--clock host: exit $st"; cat "$work/ph"; }

# Another build's trace: its hashes mean nothing here. A trace whose
# kernel changed since: refused before anything runs.
sed 's/^build .*/build 00000000000000000000000000000000/' "$trace" >"$work/other.trace"
expect 2 "only the build that recorded the trace" -- "$themis" replay "$work/other.trace" --passes 2
sed 's/^\(kernel .*\) [0-9a-f]*$/\1 00000000000000000000000000000000/' "$trace" >"$work/kernel.trace"
expect 2 "the kernel (.*) changed since the trace was recorded" -- "$themis" replay "$work/kernel.trace" --passes 2
expect 2 "needs a count" -- "$themis" replay "$trace" --passes 0
expect 2 "go with --passes" -- "$themis" replay "$trace" --hash-every-op
expect 2 "takes only 'host'" -- "$themis" replay "$trace" --passes 2 --clock 2030-01-01T00:00:00Z
expect 2 "do not go together" -- "$themis" replay "$trace" --passes 2 --save-disks "$work/d"
finish "replay"
