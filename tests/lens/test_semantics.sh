#!/bin/sh
# tier: fast
# 6.12: fast
# `themis profile --semantics` (src/tools/semantics.c) against what POSIX
# and Linux's documentation say the operations do to the times, on ext4 and
# xfs alike. Properties guarded:
#   - read (POSIX: "shall mark for update the last data access timestamp"):
#     under strictatime it moves the file's atime and nothing else, every
#     time; under noatime it moves nothing; under relatime (mount(8): atime
#     is updated only if the previous one is earlier than or equal to mtime
#     or ctime, or older than a day) it moves atime on the first read after
#     the populate step wrote the file, and not on a second read 2 s later;
#     made determinate by the populate step, which writes f0 and d0/f1
#     after creating them, so atime <= mtime when the measure starts;
#   - stat moves no time under any option;
#   - write (POSIX: "shall mark for update the last data modification and
#     last file status change timestamps") moves the file's mtime and
#     ctime, not its atime, and nothing of its parent; it changes the
#     content and (1 byte into 8 KiB) not the size;
#   - chmod moves ctime only, and changes the mode;
#   - create moves the parent's mtime and ctime, not its atime;
#   - ext2 (128-byte inodes: whole seconds) is reported with a granularity
#     of 1 s and still sees write move mtime and ctime: the interval before
#     each operation is long enough for it;
#   - the filesystems agree on each of those (no disagreement marked), and
#     the JSON keeps profile's keys beside "semantics".
# Usage: test_semantics.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
themis=$build/themis

if ! "$themis" profile ext4 xfs ext2 --ops read,write,chmod,create,stat --sizes 1 --semantics \
	--json "$work/s.json" >"$work/s.txt" 2>"$work/s.err"; then
	fail "profile --semantics ext4 xfs ext2: $(tail -n 3 "$work/s.err")"
	finish semantics
	exit 1
fi
sed -n '/^semantics/,$p' "$work/s.txt"

grep -q "^footprint under relatime" "$work/s.txt" &&
	grep -q "^operation .*strictatime *relatime *noatime" "$work/s.txt" &&
	ok "the text has the footprint table and the timestamp matrix" ||
	fail "the text lacks the footprint table or the timestamp matrix"

python3 - "$work/s.json" >"$work/check" 2>&1 <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
bad = 0
def expect(cond, what):
    global bad
    if not cond:
        print("wrong:", what); bad += 1
for key in ("mount_baseline", "profile", "semantics"):
    expect(key in doc, f"the JSON has no {key!r}")
sem = doc["semantics"]
ts = {(e["fs"], e["command"], e["again"], e["mount"]): e for e in sem["timestamps"]}
fp = {(e["fs"], e["command"], e["again"]): e for e in sem["footprint"]}
NONE = {"atime": False, "mtime": False, "ctime": False}
def moved(obj):
    return {k: obj[k] for k in ("atime", "mtime", "ctime")}
def times(fs, cmd, mount, again=False):
    e = ts.get((fs, cmd, again, mount))
    expect(e is not None, f"{fs}: no measure of {cmd!r} (again={again}) under {mount}")
    return e or {"target": dict(NONE, created=False, removed=False),
                 "parent": dict(NONE, created=False, removed=False), "disagree": True}
g = sem["granularity_ns"]
expect(g.get("ext2") == 10**9 and g.get("ext4", 10**9) < 10**9 and g.get("xfs", 10**9) < 10**9,
       f"granularity: ext2 whole seconds, ext4 and xfs finer: {g}")
for fs in ("ext4", "xfs", "ext2"):
    for cmd in ("read f0 0 1", "read d0/f1 0 65536"):
        e = times(fs, cmd, "strictatime")
        expect(moved(e["target"]) == {"atime": True, "mtime": False, "ctime": False}
               and moved(e["parent"]) == NONE, f"{fs} strictatime {cmd}: {e}")
        e = times(fs, cmd, "strictatime", again=True)
        expect(moved(e["target"])["atime"], f"{fs} strictatime {cmd} again: atime still")
        for again in (False, True):
            e = times(fs, cmd, "noatime", again)
            expect(moved(e["target"]) == NONE and moved(e["parent"]) == NONE,
                   f"{fs} noatime {cmd} (again={again}) moved something: {e}")
        e = times(fs, cmd, "relatime")
        expect(moved(e["target"]) == {"atime": True, "mtime": False, "ctime": False},
               f"{fs} relatime {cmd}: the first read after a write moves atime: {e}")
        e = times(fs, cmd, "relatime", again=True)
        expect(moved(e["target"]) == NONE,
               f"{fs} relatime {cmd} again: atime past mtime, must not move: {e}")
        f = fp.get((fs, cmd, False))
        expect(f and f["target"]["changed"] == ["atime"] and f["parent"]["changed"] == []
               and f["elsewhere"] == "", f"{fs} footprint of {cmd}: {f}")
    for mount in ("strictatime", "relatime", "noatime"):
        for again in (False, True):
            e = times(fs, "stat f0", mount, again)
            expect(moved(e["target"]) == NONE and moved(e["parent"]) == NONE,
                   f"{fs} {mount} stat moved a time: {e}")
        e = times(fs, "write f0 0 1 9 -", mount)
        expect(moved(e["target"]) == {"atime": False, "mtime": True, "ctime": True}
               and moved(e["parent"]) == NONE, f"{fs} {mount} write: {e}")
        e = times(fs, "chmod f0 0600", mount)
        expect(moved(e["target"]) == {"atime": False, "mtime": False, "ctime": True}
               and moved(e["parent"]) == NONE, f"{fs} {mount} chmod: {e}")
        e = times(fs, "create f2 0644 -", mount)
        expect(e["target"]["created"] and
               moved(e["parent"]) == {"atime": False, "mtime": True, "ctime": True},
               f"{fs} {mount} create: {e}")
    f = fp.get((fs, "write f0 0 1 9 -", False))
    expect(f and f["target"]["changed"] == ["content", "mtime", "ctime"],
           f"{fs} footprint of a 1-byte write: {f}")
    f = fp.get((fs, "chmod f0 0600", False))
    expect(f and f["target"]["changed"] == ["mode", "ctime"], f"{fs} footprint of chmod: {f}")
for e in sem["timestamps"]:
    expect(not e["disagree"], f"the filesystems disagree on {e['command']} under {e['mount']}")
for e in sem["footprint"]:
    expect(not e["disagree"], f"the filesystems disagree on {e['command']}: {e['disagree']}")
print("checked", len(sem["timestamps"]), "timestamp measures,", bad, "wrong")
sys.exit(1 if bad else 0)
EOF
[ $? -eq 0 ] && ok "ext4, xfs and ext2 as POSIX and mount(8) say: $(tail -n 1 "$work/check")" ||
	{ fail "semantics against POSIX and mount(8):"; sed 's/^/    /' "$work/check"; }

expect 0 "--semantics" -- "$themis" profile --help
finish semantics
