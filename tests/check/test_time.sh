#!/bin/sh
# tier: fast
# 6.12: fast
# Time in the explored state (explore --time, the settime and utimes
# operations). Properties guarded:
#   - one instant per operation on every filesystem: ext4 against ext4
#     with times in the fingerprints agrees to depth 2 (without the held
#     clock, 46 false discrepancies 10 ms apart);
#   - each filesystem is held to its own declared range: one ext2 image
#     under the ext2 driver (clamps at 2038, as declared) and the ext4
#     driver (keeps the time) past 2038, and ext4 and xfs clamping utimes
#     to 2514 each at its own last second, report nothing and count the
#     states as time clamps (report.json's time_clamps, the summary);
#   - a time read back as its 2038 wrap after a remount (the planted
#     guest/bugs/ext4-epoch: ext4 declares 2446) is found, replays, and is
#     missed without --time; the stock kernel: nothing;
#   - a truncate to the same size (ext4 stamps mtime and ctime, xfs not:
#     POSIX leaves it open) is masked by the times rule of
#     rules/common.rules; without the rule it is reported;
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

# The oracle holds each filesystem to its own declared range: one image
# (ext2, 256-byte inodes) under the ext2 driver and the ext4 driver, past
# 2038: the ext2 driver clamps at its declared last second, the ext4
# driver keeps the time; one instant explains both, so nothing is reported
# and the states are counted as time clamps.
explore ext2 ext4 --disk "$ext2" --disk "$ext2" --time --ops create,settime --depth 2 --out "$work/y2038"
clamps=$(sed -n 's/.*"time_clamps": \([0-9]*\).*/\1/p' "$work/y2038/report.json")
if grep -q '^exit 0' "$work/out" && grep -q '^0 discrepancies' "$work/out" &&
	[ "${clamps:-0}" -gt 0 ] && grep -q "^time clamps: $clamps states" "$work/out"; then
	ok "Y2038 under two drivers, each within its declared range: nothing reported, $clamps states counted as time clamps"
	"$themis" report "$work/y2038" >/dev/null 2>&1 &&
		grep -q "<p class=\"time-clamps\">Time clamps: $clamps states" "$work/y2038/report.html" &&
		ok "the report's rules section says the $clamps time clamps" ||
		fail "the report does not say the time clamps"
else
	fail "ext2 and ext4 drivers past 2038 (clamps '${clamps:-}'):"
	tail -n 5 "$work/out"
fi

# A filesystem that leaves its own range is found: the planted wrong
# epoch (guest/bugs/ext4-epoch) writes a time past 2038 as its wrap, which
# ext4 (declared to 2446) reads back after a remount: neither the time
# written nor a clamp of it.
need_kernel ext4-epoch
escope="ext4 xfs --time --ops create,settime,remount --paths f0 --depth 3"
# shellcheck disable=SC2086
explore $escope --kernel "$b/guest/Image-ext4-epoch" --out "$work/epoch"
want='mtime=-2147483648.000000000 on ext4 (at ext4.s declared first second), mtime=2147483648.000000000 on xfs'
trace=$(grep -l "$want" "$work/epoch"/discrepancy-*.trace 2>/dev/null | head -n 1)
if grep -q '^exit 1' "$work/out" && [ -n "$trace" ] && grep -q '^op remount$' "$trace"; then
	ok "a time read back as its 2038 wrap after a remount is found ($(grep -o '^[0-9]* discrepanc[a-z]*' "$work/out"))"
	expect 1 "reproduced" -- "$themis" replay "$trace"
else
	fail "the wrong epoch was not found:"
	tail -n 5 "$work/out"
fi
# shellcheck disable=SC2086
explore $escope
grep -q '^0 discrepancies' "$work/out" &&
	ok "the same scope on the stock kernel: nothing" ||
	{ fail "stock ext4 and xfs, settime, create, remount:"; tail -n 5 "$work/out"; }
explore ext4 xfs --kernel "$b/guest/Image-ext4-epoch" --ops create,settime,remount --paths f0 --depth 3
grep -q '^0 discrepancies' "$work/out" &&
	ok "without --time the same search is silent: the time-excluded fingerprint misses the wrap" ||
	{ fail "ext4-epoch without --time:"; tail -n 5 "$work/out"; }

# Range clamps, each at its filesystem's declared edge: utimes to 2514,
# ext4 at 2446-05-10T22:38:55Z, xfs at 2486-07-02T20:20:24Z. Counted.
explore ext4 xfs --time --ops create,utimes --depth 2 --out "$work/range"
clamps=$(sed -n 's/.*"time_clamps": \([0-9]*\).*/\1/p' "$work/range/report.json")
grep -q '^0 discrepancies' "$work/out" && [ "${clamps:-0}" -gt 0 ] &&
	ok "utimes to 2514: ext4 and xfs each clamp at their own last second: $clamps states counted, none reported" ||
	{ fail "ext4/xfs clamp:"; tail -n 5 "$work/out"; }

# What POSIX leaves open is a rule (rules/common.rules): a truncate to the
# size the file has stamps mtime and ctime on ext4 and not on xfs. Without
# the rule (a rules folder lacking it) the difference is reported. (That
# the waiver follows the file through links and renames:
# tests/check/test_time_scope.sh, on the whole scope.)
tscope="ext4 xfs --time --ops create,write,truncate --paths f0 --depth 3"
# shellcheck disable=SC2086
explore $tscope --out "$work/trunc"
masked=$(sed -n 's/^  common.rules:[0-9]* *times truncate mtime ctime *\([0-9]*\) states.*/\1/p' "$work/out")
grep -q '^0 discrepancies' "$work/out" && [ "${masked:-0}" -gt 0 ] &&
	ok "a truncate to the same size: ext4 stamps, xfs does not; the times rule masked $masked states" ||
	{ fail "the truncate rule:"; tail -n 8 "$work/out"; }
mkdir -p "$work/rules"
cp "$top"/rules/*.rules "$work/rules/"
awk '/^times /{skip=1; next} /^[^\t]/{skip=0} !skip' "$top/rules/common.rules" >"$work/rules/common.rules"
# shellcheck disable=SC2086
explore $tscope --rules "$work/rules" --out "$work/norule"
grep -q '^exit 1' "$work/out" && grep -q '^discrepancy state:[mc]time' "$work/norule"/*.trace &&
	ok "without the times rule the same scope reports the truncate's times ($(grep -o '^[0-9]* discrepanc[a-z]*' "$work/out"))" ||
	{ fail "no discrepancy without the times rule:"; tail -n 5 "$work/out"; }

# Bad clocks: exit 2, one clear line.
expect 2 "1970 to 2262-04-11" -- "$themis" explore ext4 --clock 2300-01-01T00:00:00Z
expect 2 "got 'soon'" -- "$themis" explore ext4 --clock soon
expect 2 "got '-5'" -- "$themis" boot --clock -5

finish "time"
