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
#   - 0 discrepancies on the whole scope; time clamps counted; the
#     truncate and fallocate rules masked states (through links, renames
#     and exchanges of the file: without that, 8 remained);
#   - the setxattr and renameat2 rules, which came when the agent got
#     cheaper and two calls fell in different clock ticks (ext4 keeps
#     ctime on a set to the same value, xfs does not; ext4 stamps both
#     files of an exchange, xfs neither): on the whole scope they mask
#     states only when the calls straddle a tick (39 discrepancies without
#     them with one agent, none to mask with the next), so each is held by
#     a scope that moves the clock between the two calls itself (settime):
#     0 discrepancies with the rule, and a ctime discrepancy without it.
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
	[ "${trunc:-0}" -gt 0 ] && [ "${falloc:-0}" -gt 0 ]; then
	ok "explore ext4 xfs --time --depth 3: nothing reported; $clamps states of time clamps, the truncate rule $trunc, the fallocate rule $falloc, the setxattr rule ${xattr:-0}, the renameat2 rule ${exch:-0}"
else
	fail "explore ext4 xfs --time --depth 3: exit $st, clamps '${clamps:-}', truncate '${trunc:-}', fallocate '${falloc:-}'"
	grep '^discrepancy\|^[0-9]* discrep' "$work/out" | head -n 5 | sed 's/^/    /'
fi

# held NAME RULE OPS PATHS: the scope OPS (with settime) on PATHS to depth
# 4 needs RULE (a line of rules/common.rules) and nothing else.
held() {
	name=$1 rule=$2 ops=$3 paths=$4
	"$themis" explore ext4 xfs --time --ops "$ops" --paths "$paths" --depth 4 --quiet \
		--out "$work/$name" >"$work/$name.out" 2>&1
	st=$?
	n=$(sed -n "s/^  common.rules:[0-9]* *$rule *\([0-9]*\) states.*/\1/p" "$work/$name.out")
	mkdir -p "$work/$name.rules"
	cp "$top/rules/"*.rules "$work/$name.rules/"
	awk -v r="$rule" '$0 == r { skip = 1; next } skip && /^\t/ { next } { skip = 0; print }' \
		"$top/rules/common.rules" >"$work/$name.rules/common.rules"
	"$themis" explore ext4 xfs --time --ops "$ops" --paths "$paths" --depth 4 --quiet \
		--rules "$work/$name.rules" --out "$work/$name-without" >"$work/$name-without.out" 2>&1
	st2=$?
	if [ "$st" -eq 0 ] && [ "${n:-0}" -gt 0 ] && grep -q '^0 discrepancies' "$work/$name.out" &&
		[ "$st2" -eq 1 ] && grep -q '^discrepancy .*ctime=' "$work/$name-without.out"; then
		ok "'$rule' held by $ops on $paths: $n states masked; without it a ctime discrepancy"
	else
		fail "'$rule' on $ops $paths: exit $st, '${n:-}' states; without it exit $st2"
		grep '^discrepancy' "$work/$name.out" "$work/$name-without.out" | head -n 3 | sed 's/^/    /'
	fi
}
held xattr "times setxattr ctime" create,setxattr,settime f0
held exchange "times renameat2 ctime" create,renameat2,settime f0,f1
finish "time_scope"
