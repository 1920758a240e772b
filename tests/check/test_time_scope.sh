#!/bin/sh
# tier: full
# timeout: 1800
# The time oracle on a whole default scope (issue 32): the stock kernel
# under `explore ext4 xfs --time --depth 3` reports nothing. Before the
# oracle held each filesystem to its own declared range, the same run
# reported 23 clamps at depth 2 and 480 differences at depth 3, all of
# them either two clamps as declared or times POSIX leaves open (a
# truncate to the same size, a fallocate that leaves the size as it was),
# which rules/common.rules now names. Properties guarded:
#   - 0 discrepancies on the whole scope; time clamps counted; each times
#     rule (truncate, fallocate, setxattr, renameat2) masked states
#     (through links, renames and exchanges of the file: without that, 8
#     remained). The setxattr and renameat2 rules came when the agent got
#     cheaper and two calls fell in different clock ticks: without them, 39
#     discrepancies (ext4 keeps ctime on a set to the same value, xfs does
#     not; ext4 stamps both files of an exchange, xfs neither).
#   tests/check/test_time_scope.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
cd "$work" || exit 1
"$themis" explore ext4 xfs --time --depth 3 --quiet --out "$work/scope" >"$work/out" 2>&1
st=$?
clamps=$(sed -n 's/.*"time_clamps": \([0-9]*\).*/\1/p' "$work/scope/report.json")
trunc=$(sed -n 's/^  common.rules:[0-9]* *times truncate mtime ctime *\([0-9]*\) states.*/\1/p' "$work/out")
falloc=$(sed -n 's/^  common.rules:[0-9]* *times fallocate mtime ctime *\([0-9]*\) states.*/\1/p' "$work/out")
xattr=$(sed -n 's/^  common.rules:[0-9]* *times setxattr ctime *\([0-9]*\) states.*/\1/p' "$work/out")
exch=$(sed -n 's/^  common.rules:[0-9]* *times renameat2 ctime *\([0-9]*\) states.*/\1/p' "$work/out")
if [ "$st" -eq 0 ] && grep -q '^0 discrepancies' "$work/out" && [ "${clamps:-0}" -gt 0 ] &&
	[ "${trunc:-0}" -gt 0 ] && [ "${falloc:-0}" -gt 0 ] && [ "${xattr:-0}" -gt 0 ] && [ "${exch:-0}" -gt 0 ]; then
	ok "explore ext4 xfs --time --depth 3: nothing reported; $clamps states of time clamps, the truncate rule $trunc, the fallocate rule $falloc, the setxattr rule $xattr, the renameat2 rule $exch"
else
	fail "explore ext4 xfs --time --depth 3: exit $st, clamps '${clamps:-}', truncate '${trunc:-}', fallocate '${falloc:-}', setxattr '${xattr:-}', renameat2 '${exch:-}'"
	grep '^discrepancy\|^[0-9]* discrep' "$work/out" | head -n 5 | sed 's/^/    /'
fi
finish "time_scope"
