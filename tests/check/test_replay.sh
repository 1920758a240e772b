#!/bin/sh
# tier: fast
# 6.12: full
# Whole-machine replay (themis replay --passes). Properties guarded:
#   - a trace replayed 10 times from power-on leaves the whole machine
#     (RAM, hart, devices, every disk's content) with one hash, after every
#     operation as well as at the end;
#   - a fresh process replays it to the same hash (nothing of the host
#     process leaks into the machine);
#   - with the host's clock (--clock host) the passes differ: the one
#     nondeterminism a user can opt into shows in the hash;
#   - bad input: exit 2 (among it a trace from another build, whose hashes
#     cannot match, one whose kernel changed, and a hand-edited one with a
#     malformed operation: named by file and line);
#   - traces travel (docs/trace.md): written without --out (explore-out/),
#     with absolute paths and everything that decides the run; replayed
#     from another working directory; moved to another folder with their
#     files, and with their files gone from the recorded paths but found
#     by content in the build; options in any order (--kernel K TRACE).
#   tests/check/test_replay.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
cd "$work" || exit 1 # explore writes explore-out/ here by default

# A trace of a few operations: the planted wrong epoch (settime past 2038,
# create, remount: ext4 reads back the wrap), found by a short search.
need_kernel ext4-epoch
epoch=$b/guest/Image-ext4-epoch
"$themis" explore ext4 xfs --kernel "$epoch" --time --ops create,settime,remount --paths f0 \
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

# Traces that travel. No --out: the trace is in explore-out/ all the same,
# and names its files by absolute paths, however they were given.
mkdir -p "$work/a" "$work/mine"
truncate -s 64M "$work/mine/my.img" && mkfs.ext4 -q -F "$work/mine/my.img"
(cd "$work/a" && "$themis" explore ext4 xfs --kernel "$epoch" --disk ../mine/my.img \
	--disk "$b/images/xfs.img" --time --ops create,settime,remount --paths f0 --depth 3 --jobs 1 \
	--stop-on-first >"$work/noout" 2>&1)
t=$work/a/explore-out/discrepancy-0001.trace
if [ -f "$t" ] && grep -q "^image ext4 $work/mine/my.img [0-9a-f]*$" "$t" &&
	grep -q '^kernel /' "$t" && grep -q '^kernel-version Linux version ' "$t" &&
	grep -q '^op-budget 8000000000$' "$t" && grep -q '^warnings 0$' "$t" &&
	grep -q '^options ext4 xfs --kernel .* --disk ../mine/my.img' "$t"; then
	ok "without --out: a trace in explore-out/, absolute paths, kernel version, op budget, options"
else
	fail "no trace in explore-out/ without --out, or it lacks what decides the run:"
	cat "$work/noout" "$t" 2>/dev/null | head -n 30
fi
expect 1 "reproduced" -- sh -c "cd / && '$themis' replay '$t'"
# Moved to another folder with its image, the original gone; the kernel
# and initramfs gone from their recorded paths too, found by content among
# the build's files.
mkdir -p "$work/elsewhere"
sed -e 's|^\(kernel\) [^ ]* |\1 /nonexistent/Image |' \
	-e 's|^\(initrd\) [^ ]* |\1 /nonexistent/initramfs.cpio.gz |' "$t" >"$work/elsewhere/moved.trace"
mv "$work/mine/my.img" "$work/elsewhere/"
expect 1 "reproduced" -- sh -c "cd / && '$themis' replay '$work/elsewhere/moved.trace'"
grep -q "my.img is not at $work/mine/my.img any more: found at $work/elsewhere/my.img" "$work/out" ||
	grep -q "found at $work/elsewhere/my.img" "$work/out" &&
	ok "the moved image is said to be found beside the trace" ||
	{ fail "no note of the moved image"; head -n 3 "$work/out"; }
expect 2 "cannot be read\|changed since" -- sh -c "cd / && '$themis' replay '$t'"
# Options in any order (the stock kernel: the wrap is gone).
expect 0 "not reproduced" -- "$themis" replay --kernel "$b/guest/Image" "$work/elsewhere/moved.trace"
# A hand-edited trace: a malformed operation is bad input, not a finding.
sed 's/^op settime @\([0-9]*\)$/op settime @soon/' "$work/elsewhere/moved.trace" \
	>"$work/elsewhere/bad-op.trace"
line=$(grep -n '^op settime @soon' "$work/elsewhere/bad-op.trace" | cut -d: -f1)
expect 2 "bad-op.trace:$line: malformed trace: malformed settime" -- "$themis" replay "$work/elsewhere/bad-op.trace"
sed 's/^op create f0 0644 -$/op create f0 0644/' "$work/elsewhere/moved.trace" >"$work/elsewhere/short.trace"
expect 2 "short.trace:[0-9]*: malformed trace: malformed create" -- "$themis" replay "$work/elsewhere/short.trace"
grep -v '^op-budget ' "$work/elsewhere/moved.trace" >"$work/elsewhere/nobudget.trace"
expect 2 "header lacks a line" -- "$themis" replay "$work/elsewhere/nobudget.trace"
# A format 2 trace (no warnings, op-budget or kernel-version lines) still reads.
sed -e 's/^themis-trace 3$/themis-trace 2/' -e '/^warnings /d' -e '/^op-budget /d' \
	-e '/^kernel-version /d' -e '/^options /d' "$work/elsewhere/moved.trace" >"$work/elsewhere/v2.trace"
expect 1 "reproduced" -- "$themis" replay "$work/elsewhere/v2.trace"
finish "replay"
