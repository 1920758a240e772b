#!/bin/sh
# tier: fast
# 6.12: fast
# Time in the explored state (explore --time, the settime and utimes
# operations). Properties guarded:
#   - one instant per operation on every filesystem: ext4 against ext4
#     with times in the fingerprints agrees to depth 2 (without the held
#     clock, 46 false discrepancies 10 ms apart);
#   - the Y2038 witness, found by explore: one ext2 image (256-byte
#     inodes) under the ext2 driver and under the ext4 driver, past 2038,
#     differ in mtime, the ext2 side at its declared last second; the
#     time-excluded fingerprint misses it; the trace replays;
#   - a time beyond ext4's range (utimes to 2514) is clamped at its
#     declared last second, and xfs's at 2486-07-02T20:20:24Z;
#   - settime moves the clock the next operation stamps, and a moved clock
#     is a new state (the visited key carries it);
#   - bad clocks are refused with exit 2.
#   tests/check/test_time.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
cd "$work" || exit 1 # explore writes explore-out/ here by default
ext2=$b/images/ext2.img

# explore ARGS...: run, keep the summary (no progress line) in $work/out.
explore() {
	"$themis" explore "$@" --jobs 1 --quiet >"$work/out" 2>&1
	echo "exit $?" >>"$work/out"
}

explore ext4 ext4 --time --depth 2
grep -q '^0 discrepancies' "$work/out" && grep -q 'the whole scope' "$work/out" &&
	grep -q '^  settime  *time 3/3' "$work/out" &&
	ok "ext4 vs ext4 with times, settime and utimes in scope: $(grep -o '[0-9]* states, [0-9]* unique' "$work/out"), 0 discrepancies" ||
	{ fail "ext4 vs ext4 --time:"; cat "$work/out"; }

# The Y2038 witness.
explore ext2 ext4 --disk "$ext2" --disk "$ext2" --time --ops create,settime --depth 2 --out "$work/y2038"
want='mtime=2147483647.000000000 on ext2 (ext2.s declared last second: a clamp), mtime=2147483648.000000000 on ext4'
if grep -q '^exit 1' "$work/out" && grep -q "$want" "$work/y2038"/discrepancy-*.trace; then
	ok "Y2038: ext2 driver clamps at 2038, ext4 driver stores past it ($(grep -o '^[0-9]* discrepanc[a-z]*' "$work/out"))"
else
	fail "Y2038 witness not found:"
	cat "$work/out"
	head -n 20 "$work/y2038"/*.trace 2>/dev/null
fi
trace=$(grep -l "$want" "$work/y2038"/discrepancy-*.trace | head -n 1)
if [ -n "$trace" ]; then
	expect 1 "reproduced" -- "$themis" replay "$trace"
fi
explore ext2 ext4 --disk "$ext2" --disk "$ext2" --ops create,settime --depth 2
grep -q '^0 discrepancies' "$work/out" &&
	ok "without --time the same search is silent: the time-excluded fingerprint misses Y2038" ||
	{ fail "ext2/ext4 without --time:"; cat "$work/out"; }

# Range clamps, each at its filesystem's declared edge.
explore ext4 xfs --time --ops create,utimes --depth 2 --out "$work/range"
grep -q 'atime=15032385535.000000000 on ext4 (ext4.s declared last second: a clamp), atime=16299260424.000000000 on xfs (xfs.s declared last second: a clamp)' "$work/range"/*.trace 2>/dev/null &&
	ok "utimes to 2514: ext4 clamps at 2446-05-10T22:38:55Z, xfs at 2486-07-02T20:20:24Z" ||
	{ fail "ext4/xfs clamp:"; cat "$work/out"; head -n 20 "$work/range"/*.trace 2>/dev/null; }

# Bad clocks: exit 2, one clear line.
expect 2 "1970 to 2262-04-11" -- "$themis" explore ext4 --clock 2300-01-01T00:00:00Z
expect 2 "got 'soon'" -- "$themis" explore ext4 --clock soon
expect 2 "got '-5'" -- "$themis" boot --clock -5

finish "time"
