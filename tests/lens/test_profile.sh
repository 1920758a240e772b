#!/bin/sh
# tier: fast
# 6.12: full
# `themis profile` and the io lens (src/tools/profile.c, lens_io.c) against
# the filesystem's own tools. Properties guarded:
#   - ext2: every range the profile names as a static structure
#     (superblock, descriptors, bitmaps, inode table) lies where dumpe2fs
#     of the same image puts that structure, and no range named otherwise
#     overlaps one; chmod writes nothing but inode-table sectors beyond
#     what syncfs writes by itself (stat's writes); a 1-byte
#     write writes more than the inode (data, bitmaps); cold reads are
#     reported above a nonzero mount baseline;
#   - the JSON has one entry per filesystem and operation with the keys the
#     issue names, the SVGs are well-formed XML;
#   - explore --lens io counts each kind's sectors in report.json, and a
#     planted bug's discrepancy carries the operation's io signature;
#   - replay --save-disks keeps each step's disks, and diff between the last
#     two names the link count ext2's last link wrote, which the planted
#     ext4 bug leaves alone;
#   - bad input exits 2 with a message.
# Usage: test_profile.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
themis=$build/themis
images=$build/images
top=$(cd "$here/../.." && pwd) b=$build
need_kernel ext4-link3

if ! "$themis" profile ext2 --ops chmod,write,create,stat,read --sizes 1,4096,65536 \
	--json "$work/p.json" --svg "$work/svg" >"$work/p.txt" 2>"$work/p.err"; then
	fail "profile ext2: $(tail -n 3 "$work/p.err")"
	finish profile
	exit 1
fi
cat "$work/p.txt"

# dumpe2fs's static structures, as "FIRST LAST NAME" in 512-byte sectors.
dumpe2fs "$images/ext2.img" 2>/dev/null | python3 -c '
import re, sys
bs = None
for line in sys.stdin:
    m = re.match(r"Block size:\s+(\d+)", line)
    if m: bs = int(m.group(1)); continue
    spb = (bs or 1024) // 512
    def emit(a, b, name):
        print(a * spb, (b + 1) * spb - 1, name)
    for pat, name in ((r"superblock at (\d+)", "superblock"),
                      (r"Block bitmap at (\d+)", "block-bitmap"),
                      (r"Inode bitmap at (\d+)", "inode-bitmap")):
        for m in re.finditer(pat, line, re.I):
            emit(int(m.group(1)), int(m.group(1)), name)
    m = re.search(r"Group descriptors at (\d+)-(\d+)", line)
    if m: emit(int(m.group(1)), int(m.group(2)), "group-descriptors")
    m = re.search(r"Inode table at (\d+)-(\d+)", line)
    if m: emit(int(m.group(1)), int(m.group(2)), "inode-table")
' >"$work/dump"
[ -s "$work/dump" ] || fail "dumpe2fs gave no structures"

python3 - "$work/p.json" "$work/dump" >"$work/check" 2>&1 <<'EOF'
import json, sys
prof = json.load(open(sys.argv[1]))
static = {}
for line in open(sys.argv[2]):
    a, b, name = line.split()
    static.setdefault(name.replace("superblock", "superblock"), []).append((int(a), int(b)))
def inside(a, b, spans):
    return any(x <= a and b <= y for x, y in spans)
def overlaps(a, b, spans):
    return any(not (b < x or a > y) for x, y in spans)
allstatic = [s for v in static.values() for s in v]
bad = 0
need = {"fs", "op", "bytes", "sectors_written", "sectors_read", "written", "read"}
for e in prof["profile"]:
    if not need <= set(e):
        print("missing keys", need - set(e)); bad += 1
    for r in e["written"] + e["read"]:
        a, b, s = r["lba"], r["lba"] + r["count"] - 1, r["structure"]
        want = static.get("superblock" if s == "superblock-backup" else s)
        if want is not None:
            if not inside(a, b, want):
                print(f"{e['command']}: {a}-{b} named {s}, not where dumpe2fs puts it"); bad += 1
        elif overlaps(a, b, allstatic):
            print(f"{e['command']}: {a}-{b} named {s} overlaps a static structure"); bad += 1
by = {e["command"]: e for e in prof["profile"]}
# What syncfs writes by itself: a read-only operation's writes.
synced = {(r["lba"], r["count"]) for r in by["stat f0"]["written"]}
chmod = by.get("chmod f0 0600")
own = [r for r in chmod["written"] if (r["lba"], r["count"]) not in synced] if chmod else []
if not own or any(r["structure"] != "inode-table" for r in own):
    print("chmod should write inode-table sectors only, beyond the sync's:", chmod and chmod["written"]); bad += 1
w1 = by.get("write f0 0 1 9 -")
if not w1 or w1["sectors_written"] <= chmod["sectors_written"] or w1["amplification"] < 100:
    print("a 1-byte write should cost more than the inode:", w1 and w1["written"]); bad += 1
st = by.get("stat f0")
if not st or st["sectors_read"] == 0 or prof["mount_baseline"]["ext2"] == 0:
    print("stat should read cold above a nonzero mount baseline"); bad += 1
print("checked", len(prof["profile"]), "entries,", bad, "bad")
sys.exit(1 if bad else 0)
EOF
[ $? -eq 0 ] && ok "ext2 profile agrees with dumpe2fs: $(tail -n 1 "$work/check")" ||
	{ fail "ext2 profile against dumpe2fs:"; sed 's/^/    /' "$work/check"; }

python3 -c '
import sys, xml.etree.ElementTree as ET
for f in sys.argv[1:]:
    root = ET.parse(f).getroot()
    assert root.tag.endswith("svg") and len(list(root.iter())) > 10, f
' "$work/svg/amplification.svg" "$work/svg/layout-ext2.svg" &&
	ok "profile SVGs are well-formed" || fail "profile SVGs missing or malformed"

# The io lens in explore: counts in report.json, a signature on findings.
"$themis" explore ext4 ext2 --depth 1 --lens io --ops create,write,chmod --paths f0 \
	--quiet --out "$work/io" >"$work/io.txt" 2>&1
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
io = r["lenses"]["io"]
assert io["write"]["sectors_written"] > 0 or io["create"]["calls"] > 0, io
assert "coverage" in r["lenses"], r["lenses"].keys()
' "$work/io/report.json" && ok "explore --lens io: per-kind counts in report.json" ||
	{ fail "explore --lens io: no io counts"; tail -n 5 "$work/io.txt"; }
if [ -f "$build/guest/Image-ext4-link3" ]; then
	"$themis" explore ext4 ext2 --kernel "$build/guest/Image-ext4-link3" --lens io \
		--stop-on-first --quiet --out "$work/bug" >"$work/bug.txt" 2>&1
	grep -q '"detail": "[^"]*io: ext4 r [0-9]* w [0-9]*' "$work/bug/report.json" &&
		ok "a planted bug's discrepancy carries its io signature" ||
		{ fail "no io signature in the planted bug's discrepancy"; tail -n 5 "$work/bug.txt"; }
	# Two states of one run: the replay saves each disk after every step,
	# and the diff names what the last link did to the linked inode.
	"$themis" replay "$work/bug/discrepancy-0001.trace" --save-disks "$work/steps" >"$work/rp.txt" 2>&1
	last=$(ls "$work/steps" | sed -n 's/^\([0-9]*\)-ext4.img$/\1/p' | sort -n | tail -n 1)
	prev=$(printf '%02d' $((${last#0} - 1)))
	expect 1 "inode-table inode [0-9]* i_links_count" -- "$themis" diff \
		"$work/steps/$prev-ext2.img" "$work/steps/$last-ext2.img"
	# ... and on the planted ext4 the link count stays put: the bug, below.
	"$themis" diff "$work/steps/$prev-ext4.img" "$work/steps/$last-ext4.img" >"$work/d4" 2>&1
	[ $? -eq 1 ] && ! grep -q i_links_count "$work/d4" && grep -q inode-table "$work/d4" &&
		ok "the planted ext4's last link leaves i_links_count alone on disk" ||
		{ fail "ext4's last link step, on disk:"; head -n 5 "$work/d4"; }
fi

expect 2 "unknown filesystem" -- "$themis" profile ext9
expect 2 "unknown operation" -- "$themis" profile ext2 --ops frob
expect 2 "nonexistent.img: cannot read the ext2 image: No such file" -- "$themis" profile ext2 --disk /nonexistent.img
expect 2 "holds ext4, not ext2" -- "$themis" profile ext2 --disk "$images/ext4.img"
expect 2 "unknown lens" -- "$themis" explore ext4 ext2 --lens nope
expect 0 "usage: themis profile" -- "$themis" profile --help
finish profile
