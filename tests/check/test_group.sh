#!/bin/sh
# tier: fast
# 6.12: full
# Findings a developer can act on (issue 19, items 1 and 2). Properties
# guarded:
#   - the minimizer simplifies, not only shortens: the link-count planted
#     bug (Image-ext4-link3), whose first trace the search finds is
#     `symlink; link; link`, comes out as `create; link; link`, and that
#     .min.trace replays to the same signature, and its discrepancy and
#     show lines are what its replay shows (true to itself);
#   - findings are grouped by signature, view and the shape of the
#     simplified trace: on the stale-tail planted bug (Image-ext4-tail)
#     there are fewer groups than discrepancies, the counts add up to
#     them, every member's simplified trace has its group's shape, every group's simplest trace replays to its signature, and
#     report.json carries the keys `themis report` reads (groups: id,
#     signature, view, filesystems, shape, count, simplest, members;
#     results[].group), with two workers;
#   - without --minimize, by the operation that showed it: the link-count
#     bug found as `symlink; link; link` and as `create; link; link` is
#     one group (it was two).
#   tests/check/test_group.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel ext4-link3 ext4-tail
cd "$work" || exit 1

# The operation names of a trace, comma-joined.
shape() { sed -n 's/^op \([a-z]*\).*/\1/p' "$1" | paste -sd, -; }

# 1. create; link; link.
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-ext4-link3" --depth 3 --stop-on-first \
	--minimize --quiet --out "$work/link3" >"$work/link3.out" 2>&1
st=$?
found=$(ls "$work"/link3/discrepancy-*[0-9].trace 2>/dev/null | head -n 1)
min=${found%.trace}.min.trace
if [ "$st" -ne 1 ] || [ -z "$found" ] || [ ! -f "$min" ]; then
	fail "ext4-link3: no discrepancy with a .min.trace (exit $st)"
	tail -n 5 "$work/link3.out"
else
	grep -q '^discrepancy state:nlink ' "$min" && [ "$(shape "$min")" = create,link,link ] &&
		ok "ext4-link3: found as $(shape "$found"), simplified to $(shape "$min"): $(grep '^op ' "$min" | cut -c4- | paste -sd';' -)" ||
		{ fail "ext4-link3: simplified to '$(shape "$min")', not create,link,link"; cat "$min"; }
	grep -q '^minimize: [0-9]* attempts, [0-9.]* s' "$work/link3.out" &&
		grep -q "simplified from [0-9]* to 3 operations (create, link, link) in [0-9]* attempts" \
			"$work/link3.out" &&
		ok "its cost said: $(grep '^minimize:' "$work/link3.out" | cut -d'(' -f1)" ||
		{ fail "no minimize cost in the output"; tail -n 5 "$work/link3.out"; }
	expect 1 "reproduced: .*state differs at f[0-9]: nlink=2 on ext4, nlink=3 on ext2" -- \
		"$themis" replay "$min"
	# Its discrepancy and show lines are its own (they once showed the
	# symlink it was found with, kind=symlink target=d1/f0).
	true_to_itself "$min" && ! grep -q '^show.*kind=symlink' "$min" &&
		ok "the .min.trace describes itself: its show lines are what its replay shows" ||
		{ fail "the .min.trace describes another trace:"; diff "$work/said" "$work/got" | head -n 6; }
fi

# 2. Grouped: the stale tail, narrowed to its operations and two files so
#    the run finds it along many paths within a minute or two.
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-ext4-tail" --ops create,write,truncate \
	--paths f0,f1 --sizes 0,1,4095,4097 --depth 4 --minimize --jobs 2 --quiet \
	--out "$work/tail" >"$work/tail.out" 2>&1
st=$?
if [ "$st" -ne 1 ] || [ ! -f "$work/tail/report.json" ]; then
	fail "ext4-tail: no discrepancy or no report (exit $st)"
	tail -n 5 "$work/tail.out"
else
	# Checked against the records themselves: each group's members are
	# the results that name it, their signature and shape its own.
	python3 - "$work/tail/report.json" >"$work/groups.txt" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
res, groups = r["results"], r["groups"]
bad = []
keys = {"id", "signature", "view", "filesystems", "shape", "count", "simplest", "members"}
for g in groups:
    if set(g) != keys:
        bad.append("group %s keys %s" % (g.get("id"), sorted(g)))
    members = [x for x in res if x["group"] == g["id"]]
    if g["count"] != len(members) or sorted(g["members"]) != sorted(x["trace"] for x in members):
        bad.append("group %d: count %d, %d results name it" % (g["id"], g["count"], len(members)))
    if any(x["signature"] != g["signature"] for x in members):
        bad.append("group %d: a member of another signature" % g["id"])
    if g["filesystems"] != r["filesystems"] or g["view"] != "disk":
        bad.append("group %d: filesystems %s view %s" % (g["id"], g["filesystems"], g["view"]))
    for t in g["members"]:
        m = t[:-len(".trace")] + ".min.trace"
        ops = [l.split()[1] for l in open(m) if l.startswith("op ")]
        if ",".join(ops) != g["shape"]:
            bad.append("group %d: member %s of shape %s" % (g["id"], m, ",".join(ops)))
    if not g["simplest"].endswith(".min.trace"):
        bad.append("group %d: simplest %s" % (g["id"], g["simplest"]))
shapes = [(g["signature"], g["shape"]) for g in groups]
if len(set(shapes)) != len(shapes):
    bad.append("two groups of one signature and shape")
if sum(g["count"] for g in groups) != len(res) or len(res) != r["discrepancies"] + r["findings"]:
    bad.append("counts add up to %d, %d results" % (sum(g["count"] for g in groups), len(res)))
if not len(groups) < len(res):
    bad.append("%d groups for %d discrepancies" % (len(groups), len(res)))
for g in groups:
    print("GROUP", g["id"], g["signature"], g["shape"], g["count"], g["simplest"])
print("BAD" if bad else "GOOD", len(groups), len(res), "; ".join(bad))
EOF
	if grep -q '^GOOD' "$work/groups.txt"; then
		ok "ext4-tail: $(grep '^GOOD' "$work/groups.txt" | cut -d' ' -f2) groups of $(grep '^GOOD' "$work/groups.txt" | cut -d' ' -f3) discrepancies, counts add up, keys as themis report reads them"
	else
		fail "ext4-tail: groups wrong:"
		cat "$work/groups.txt"
	fi
	# Each group's simplest trace replays to its signature and has its shape.
	bad=""
	while read -r _ id sig gshape _count simplest; do
		"$themis" replay "$simplest" >"$work/replay.$id" 2>&1
		[ $? -eq 1 ] && grep -q "^discrepancy $sig " "$simplest" &&
			[ "$(shape "$simplest")" = "$gshape" ] || bad="$bad $id"
	done <<EOF2
$(grep '^GROUP' "$work/groups.txt")
EOF2
	[ -z "$bad" ] && ok "every group's simplest trace replays to its signature" ||
		fail "groups whose simplest trace does not replay:$bad"
	n=$(grep -c '^  group [0-9]*: disk:content (disk view, ext4 vs ext2) after ' "$work/tail.out")
	[ "$n" -eq "$(grep -c '^GROUP' "$work/groups.txt")" ] &&
		grep -q '^groups: [0-9]* among [0-9]* discrepancies and findings, .*simplified trace' \
			"$work/tail.out" && ok "the summary lists each group once ($n)" ||
		{ fail "the summary's groups ($n):"; grep -A5 '^groups' "$work/tail.out"; }
fi

# 3. Without --minimize the group is by the trace as found, and said so.
#    The --out folder is reused: an earlier run's group folder goes.
mkdir -p "$work/plain/group-0007" && echo stale >"$work/plain/group-0007/repro.c"
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-ext4-link3" --ops create,link \
	--paths f0,f1,f2 --depth 3 --stop-on-first --quiet --out "$work/plain" >"$work/plain.out" 2>&1
grep -q '^groups: 1 among 1 discrepancies and findings, .*the operation that showed it (the trace as found, without --minimize' \
	"$work/plain.out" && grep -q '"shape": "create,link,link"' "$work/plain/report.json" &&
	ok "without --minimize: grouped by the trace as found, and said so" ||
	{ fail "without --minimize:"; grep -A2 '^groups' "$work/plain.out"; }
#    A trace as found is grouped by the operation that showed it: the
#    link-count bug found as `symlink; link; link` and as `create; link;
#    link` is one group, not two.
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-ext4-link3" --ops create,symlink,link \
	--paths f0,f1,f2 --depth 3 --quiet --out "$work/asfound" >"$work/asfound.out" 2>&1
shapes=$(for t in "$work"/asfound/discrepancy-*.trace; do shape "$t"; done | sort -u | paste -sd' ' -)
case $shapes in
*symlink,link,link*) has_symlink=1 ;;
*) has_symlink=0 ;;
esac
grep -q '^groups: 1 among [0-9]* discrepancies' "$work/asfound.out" && [ $has_symlink = 1 ] &&
	echo "$shapes" | grep -q 'create,link,link' &&
	ok "without --minimize: one bug found as $shapes is one group" ||
	{ fail "without --minimize, the link-count bug as '$shapes':"; grep -A3 '^groups' "$work/asfound.out"; }

# 4. Each group's reproducer is written beside the report, from its
#    simplest trace: the operations in order, a program that compiles.
g=$work/plain/group-0001
if [ -d "$work/plain/group-0007" ]; then
	fail "the earlier run's group-0007 is still in the reused --out"
elif [ ! -x "$g/repro.sh" ] || [ ! -f "$g/repro.c" ]; then
	fail "no group-0001/repro.sh and repro.c: $(ls "$work/plain" | paste -sd' ' -)"
else
	want=$(grep '^op ' "$work/plain/discrepancy-0001.trace" | cut -c4- | paste -sd';' -)
	got=$(sed -n 's/^    "\([a-z].*\)",$/\1/p' "$g/repro.c" | paste -sd';' -)
	[ "$got" = "$want" ] && cc -O2 -o "$work/repro" "$g/repro.c" &&
		ok "group-0001/repro.{c,sh} from its simplest trace ($got), compiled; the old group folder gone" ||
		fail "group-0001/repro.c holds '$got', not the trace's '$want' (or does not compile)"
fi

finish group
