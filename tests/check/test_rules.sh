#!/bin/sh
# tier: fast
# 6.12: full
# The rules files (rules/FS.rules, docs/rules.md) end to end: each kind of
# rule masks what it says and the run counts it; the same run under a copy
# of rules/ missing that rule reports the difference it masked (the
# control is built in); a trace records the rules in force and replays by
# them; a bad rules file is refused with its file and line (exit 2).
#   tests/check/test_rules.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
cd "$work" || exit 1

# without RULE_HEAD FILE: a copy of rules/ in $work/NAME without the rule
# whose head line is RULE_HEAD in FILE (its reason and source go with it).
without() {
	rm -rf "$work/$1"
	cp -r "$top/rules" "$work/$1"
	awk -v head="$2" '$0 == head {skip = 1; next} skip && /^[ \t]/ {next} {skip = 0; print}' \
		"$top/rules/$3" >"$work/$1/$3"
	! grep -qx "$2" "$work/$1/$3" || fail "the copy still holds '$2'"
}

# at FILE HEAD: where the repository's rule with head line HEAD is, FILE:LINE.
at() {
	echo "$1:$(grep -nx "$2" "$top/rules/$1" | cut -d: -f1)"
}
chmod_at=$(at vfat.rules "unsupported chmod") mode_at=$(at vfat.rules "ignore mode")
nlink_at=$(at vfat.rules "ignore nlink") dirsize_at=$(at common.rules "ignore dirsize")
errno_at=$(at xfs.rules "errno rename ENOTEMPTY EEXIST")

# count OUT WHERE: the count the summary gives the rule at WHERE (0: none).
count() {
	n=$(grep "^  $2 " "$1" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) {print $i; exit}}')
	echo "${n:-0}"
}

# 1. ext4 vs vfat, depth 2 over create and chmod: vfat's rules leave chmod
#    out and its mode out of the fingerprints, and say how often (for an
#    ignored field: the states where it differed, from the agent's hashes
#    of what it left out).
fat="ext4 vfat --depth 2 --ops create,chmod --paths f0,d0/ --jobs 1 --quiet"
# shellcheck disable=SC2086
"$themis" explore $fat --out "$work/fat" >"$work/fat.out" 2>&1
st=$?
chmod_n=$(count "$work/fat.out" "${chmod_at}") mode_n=$(count "$work/fat.out" "${mode_at}")
if [ "$st" -eq 0 ] && grep -q '0 discrepancies' "$work/fat.out" &&
	grep -q "$chmod_at"' *unsupported chmod' "$work/fat.out" &&
	grep -q "$mode_at"' *ignore mode' "$work/fat.out" && [ "$chmod_n" -gt 0 ] && [ "$mode_n" -gt 0 ]; then
	ok "ext4 vs vfat agree under vfat's rules: chmod left out at $chmod_n states, mode masked in $mode_n"
else
	fail "ext4 vs vfat under the rules: exit $st, counts chmod '$chmod_n' mode '$mode_n':"
	cat "$work/fat.out"
fi
# The agent reports what an ignored field held: only a difference counts
# (modes 0644 against vfat's 0755 do; the link counts agree).
[ "$(count "$work/fat.out" "${nlink_at}")" -eq 0 ] &&
	ok "ignore nlink: nothing differed, nothing counted" ||
	{ fail "ignore nlink counted though link counts agree:"; grep "$nlink_at" "$work/fat.out"; }
grep -q 'vfat cannot do chmod.*('"$chmod_at"')' "$work/fat.out" &&
	ok "the start names the rule that drops chmod" || fail "no note naming ${chmod_at}"
grep -q '"where": "'"$mode_at"'".*"masked": [1-9]' "$work/fat/report.json" &&
	ok "report.json: the rules lens with its counts" || fail "no rules counts in report.json"
if "$themis" report "$work/fat" >/dev/null 2>&1 &&
	sed -n '/<section id="rules">/,/<\/section>/p' "$work/fat/report.html" >"$work/section" &&
	grep -q '<td>unsupported chmod</td><td>'"$chmod_at"'</td><td>[1-9]' "$work/section" &&
	grep -q 'fs/fat/file.c' "$work/section"; then
	ok "report.html lists the rules that masked something, with count and source"
else
	fail "no rules section in report.html:"
	head -c 2000 "$work/section"
fi

# 2. The controls: the same run without a rule reports what it masked.
without nomode "ignore mode" vfat.rules
# shellcheck disable=SC2086
"$themis" explore $fat --rules "$work/nomode" --stop-on-first --out "$work/nomode-out" \
	>"$work/nomode.out" 2>&1
st=$?
trace=$(ls "$work/nomode-out"/discrepancy-*.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && grep -q 'state differs at .*: mode=0644 on ext4, mode=0755 on vfat' "$work/nomode.out"; then
	ok "without 'ignore mode': $(grep -m1 'state differs' "$work/nomode.out" | sed 's/^[^:]*: //')"
else
	fail "without 'ignore mode': exit $st, no mode difference:"
	cat "$work/nomode.out"
fi
without nolink "unsupported link symlink" vfat.rules
# shellcheck disable=SC2086
"$themis" explore ext4 vfat --depth 2 --ops create,link --paths f0,f1,d0/ --jobs 1 --quiet \
	--rules "$work/nolink" --stop-on-first --out "$work/nolink-out" >"$work/nolink.out" 2>&1
st=$?
if [ "$st" -eq 1 ] && grep -q '^op link' "$work/nolink-out"/discrepancy-0001.trace 2>/dev/null; then
	ok "without 'unsupported link symlink': $(grep -m1 '^discrepancy' "$work/nolink.out")"
else
	fail "without 'unsupported link symlink': exit $st, no discrepancy at a link:"
	cat "$work/nolink.out"
fi
# The errno rule: ext4 answers ENOTEMPTY, xfs EEXIST to renaming a
# directory onto a non-empty one (fs/xfs/xfs_inode.c), which POSIX allows.
dirs="ext4 xfs --ops mkdir,rename --paths d0/,d1/,d1/d0/ --depth 4 --durability off --jobs 1 --quiet"
# shellcheck disable=SC2086
"$themis" explore $dirs --out "$work/dirs" >"$work/dirs.out" 2>&1
st=$?
n=$(count "$work/dirs.out" "${errno_at}")
[ "$st" -eq 0 ] && [ "$n" -gt 0 ] && grep -q 'errno rename ENOTEMPTY EEXIST' "$work/dirs.out" &&
	ok "ext4 vs xfs, renames onto non-empty directories: the errno rule accepted $n answers" ||
	{ fail "ext4 vs xfs under the errno rule: exit $st, count '$n':"; cat "$work/dirs.out"; }
n=$(count "$work/dirs.out" "${dirsize_at}")
[ "$n" -gt 0 ] && ok "common.rules' ignore dirsize: ext4's and xfs's directory sizes differed at $n states" ||
	{ fail "ignore dirsize counted nothing for ext4 vs xfs:"; cat "$work/dirs.out"; }
without noerrno "errno rename ENOTEMPTY EEXIST" xfs.rules
# shellcheck disable=SC2086
"$themis" explore $dirs --rules "$work/noerrno" --out "$work/noerrno-out" >"$work/noerrno.out" 2>&1
st=$?
[ "$st" -eq 1 ] && grep -q 'return values differ: ext4 -1 ENOTEMPTY xfs -1 EEXIST' "$work/noerrno.out" &&
	ok "without the errno rule: ext4's ENOTEMPTY and xfs's EEXIST differ" ||
	{ fail "without the errno rule: exit $st:"; cat "$work/noerrno.out"; }

# The refuses rule: reiserfs's direct I/O refuses a block packed into the
# tree as a tail (EINVAL) where ext4 writes: no discrepancy, the state a
# leaf, counted; without the rule, the same scope reports the difference,
# and its trace replays as no longer a discrepancy under the rule.
refuses_at=$(at reiserfs.rules "refuses write:direct EINVAL")
tails="ext4 reiserfs --ops create,truncate,write --paths f0 --depth 3 --durability off --quiet"
# shellcheck disable=SC2086
"$themis" explore $tails --out "$work/tails" >"$work/tails.out" 2>&1
st=$?
n=$(count "$work/tails.out" "${refuses_at}")
[ "$st" -eq 0 ] && [ "$n" -gt 0 ] && grep -q '0 discrepancies' "$work/tails.out" &&
	ok "ext4 vs reiserfs, direct writes onto a packed tail: the refuses rule let $n states part" ||
	{ fail "ext4 vs reiserfs under the refuses rule: exit $st, count '$n':"; cat "$work/tails.out"; }
without norefuses "refuses write:direct EINVAL" reiserfs.rules
# shellcheck disable=SC2086
"$themis" explore $tails --rules "$work/norefuses" --out "$work/norefuses-out" >"$work/norefuses.out" 2>&1
st=$?
[ "$st" -eq 1 ] && grep -q 'return values differ: ext4 4096 0 reiserfs -1 EINVAL' "$work/norefuses.out" &&
	ok "without the refuses rule: $(grep -m1 'return values differ' "$work/norefuses.out")" ||
	{ fail "without the refuses rule: exit $st:"; cat "$work/norefuses.out"; }
expect 0 'not reproduced' -- "$themis" replay "$work/norefuses-out/discrepancy-0001.trace" \
	--rules "$top/rules"
# A refusal is a leaf: replaying past it compares nothing more (ext4's f0
# holds 4096 bytes there, reiserfs's 1).
sed 's/^op write f0 0 4096 1 direct$/&\nop write f0 0 1 1 -/' \
	"$work/norefuses-out/discrepancy-0001.trace" >"$work/past.trace"
expect 0 "step 3 is a refusal $refuses_at allows" -- "$themis" replay "$work/past.trace" \
	--rules "$top/rules"

# 3. A trace records the rules in force; replay uses them while their hash
#    matches, and --rules replays it by others.
if [ -n "$trace" ] && grep -q "^rules [0-9a-f]\{16\} $work/nomode\$" "$trace"; then
	ok "the trace records its rules: $(grep '^rules' "$trace")"
else
	fail "no rules line naming $work/nomode in the trace '$trace'"
fi
expect 1 'reproduced: state differs' -- "$themis" replay "$trace"
expect 0 'not reproduced' -- "$themis" replay "$trace" --rules "$top/rules"
mv "$work/nomode" "$work/nomode.gone"
expect 0 'recorded under other rules' -- "$themis" replay "$trace"

# 4. Bad rules files: their file and line, exit 2, before anything boots.
bad() {
	rm -rf "$work/bad"
	cp -r "$top/rules" "$work/bad"
	printf "$1" >>"$work/bad/vfat.rules"
	line=$(($(wc -l <"$top/rules/vfat.rules") + 1))
	expect 2 "$work/bad/vfat.rules:$line: $2" -- "$themis" explore ext4 vfat --rules "$work/bad"
}
bad 'unsupported chmodd\n\treason: r\n\tsource: s\n' "unknown operation 'chmodd'"
bad 'ignore modes\n\treason: r\n\tsource: s\n' "unknown field 'modes'"
bad 'errno rename EEXIST ENOTEMTPY\n\treason: r\n\tsource: s\n' "unknown errno 'ENOTEMTPY'"
bad 'unsupported chmod\n\treason: r\n' "the rule 'unsupported chmod' has no source"
bad 'unsupported chmod\n\tsource: s\n' "the rule 'unsupported chmod' has no reason"
bad 'chmod is unsupported\n' "unknown rule kind 'chmod'"
bad 'refuses write:direct\n\treason: r\n\tsource: s\n' "a refuses rule is 'refuses OP\\[:WORD,...\\] ERRNO...'"
bad 'refuses write:directt EINVAL\n\treason: r\n\tsource: s\n' "'directt' is not a comma list of write's flag words"
expect 2 "nowhere/ext4.rules: cannot read" -- "$themis" explore ext4 vfat --rules "$work/nowhere"

finish test_rules
