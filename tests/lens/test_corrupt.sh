#!/bin/sh
# tier: fast
# 6.12: full
# `themis corrupt` (src/tools/corrupt.c, corrupt_target.c, corrupt_fsck.c):
# one bit flipped in a fork's overlay, classified against the unflipped
# fork. Properties guarded:
#   - ext2 superblock:s_magic is unmountable, and the checker says so;
#   - an ext2 data bit is silent wrong data (the checker clean), the same
#     on btrfs returns an error (EIO: data checksums);
#   - controls that a wrong classifier fails: a bit of free space and of
#     the superblock's s_mtime change nothing (not every flip is an
#     outcome, not every superblock flip unmountable); an inode's i_mode
#     bit is wrong data (not only contents are compared); a block bitmap
#     bit is seen by the checker alone (fsck-only, not none);
#   - the JSON of a --target run is a list of one with the keys the issue
#     names, and --at with its lba, byte and bit replays the same flip to
#     the same outcome and difference;
#   - a hang (a budget too small for a mount) is a kernel-failure finding,
#     counted by kind in the tally (a panic or hang: no report opened it)
#     with a line that replays it, and the run goes on to the next flip;
#     a real one (jfs: a directory bit that loops readdir) is caught, and
#     a bit of the same directory block that the kernel survives is not;
#   - a small sweep covers every structure class once, prints the
#     spectrum and the checksummed/unchecksummed summary, and writes
#     well-formed SVG; the host side runs under ASan (BUILD/asan/themis);
#   - the base images are byte-identical afterwards;
#   - bad input (filesystem, structure, field, --at) exits 2 with one line.
# Usage: test_corrupt.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
themis=$build/themis
asan=$build/asan/themis
[ -x "$asan" ] || asan=$themis
images=$build/images
# The ASan build lives a folder down: it is given the guest's files.
guest="--kernel $build/guest/Image --initrd $build/guest/initramfs.cpio.gz"

sums() { md5sum "$images/ext2.img" "$images/btrfs.img"; }
sums >"$work/before"

# one NAME WANT FS ARGS...: a run of one flip whose outcome must match WANT
# (an extended regular expression, anchored at the start);
# its JSON is kept as $work/NAME.json.
one() {
	name=$1 want=$2 fs=$3
	shift 3
	if ! "$themis" corrupt "$fs" "$@" --quiet --json "$work/$name.json" >"$work/$name.txt" \
		2>"$work/$name.err"; then
		fail "$name: themis corrupt $fs $*: $(tail -n 2 "$work/$name.err")"
		return
	fi
	got=$(python3 -c '
import json, sys
flips = json.load(open(sys.argv[1]))
assert len(flips) == 1, flips
keys = {"fs", "structure", "field", "lba", "byte", "bit", "outcome", "fsck"}
assert keys <= set(flips[0]), flips[0]
print(flips[0]["outcome"], flips[0]["fsck"])
' "$work/$name.json" 2>&1)
	if echo "$got" | grep -Eq "^($want)"; then
		ok "$name: $fs $* -> $got"
	else
		fail "$name: $fs $* -> '$got', want $want"
		sed 's/^/    /' "$work/$name.txt" | head -3
	fi
}

one magic "unmountable errors" ext2 --target superblock:s_magic
one data "silent-wrong-data clean" ext2 --target data
one btrfs-data "error-returned" btrfs --target data
# Controls.
one free "none clean" ext2 --target free
one mtime "none" ext2 --target superblock:s_mtime
# The seed picks one of the tree's inodes; whether it is a directory's
# depends on where ext2's Orlov allocator put the directories, which draws
# on the guest kernel's (seeded) randomness and so moves with any change
# to the guest: a file's mode flipped is wrong metadata, a directory's
# loses its entries. Either way, not none.
one mode "silent-wrong-data|entries-lost" ext2 --target inode:i_mode
one bitmap "fsck-only errors" ext2 --target block-bitmap
one btrfs-free "none" btrfs --target free

# --at replays the data flip: same place, same outcome, same difference.
at=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))[0]
print("%d:%d:%d" % (f["lba"], f["byte"], f["bit"]))' "$work/data.json" 2>/dev/null)
if [ -n "$at" ] && "$themis" corrupt ext2 --at "$at" --quiet --json "$work/at.json" \
	>"$work/at.txt" 2>&1; then
	if python3 -c '
import json, sys
a, b = (json.load(open(p))[0] for p in sys.argv[1:3])
same = all(a[k] == b[k] for k in ("lba", "byte", "bit", "outcome", "detail", "fsck"))
assert same and b["structure"] == "data", (a, b)' "$work/data.json" "$work/at.json"; then
		ok "--at $at replays the data flip"
	else
		fail "--at $at did not replay the data flip"
	fi
else
	fail "--at '$at': $(tail -n 2 "$work/at.txt")"
fi

# --save writes the disk a flip mounted: two flips of the same byte
# (bits 0 and 1) give two disks that differ in that byte alone, by 0x03,
# at the place --at names. --save without --at is refused.
lba=${at%%:*} rest=${at#*:}
byte=${rest%%:*}
for bit in 0 1; do
	"$themis" corrupt ext2 --at "$lba:$byte:$bit" --quiet --save "$work/saved$bit.img" >/dev/null 2>&1
done
python3 - "$work/saved0.img" "$work/saved1.img" "$lba" "$byte" <<'PY' &&
import sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
off = int(sys.argv[3]) * 512 + int(sys.argv[4])
assert len(a) == len(b) > off, (len(a), len(b))
diff = [i for i in range(len(a)) if a[i] != b[i]]
assert diff == [off] and a[off] ^ b[off] == 3, diff[:5]
PY
	ok "--save: the flipped disks of bits 0 and 1 differ in byte $lba:$byte alone, by 0x03" ||
	fail "--save: the saved disks are not the flips of one byte"
expect 2 "--save keeps one flipped disk: give --at LBA:BYTE:BIT" -- "$themis" corrupt ext2 --save "$work/x.img"

# A hang is an outcome and the run goes on: with a budget too small for
# a mount and a walk, every flip is a kernel failure with its replay line,
# the exit status 1; and that line replays it.
"$themis" corrupt ext2 --target data --bits 2 --budget 2e5 --quiet >"$work/hang.txt" 2>&1
st=$?
replay=$(sed -n 's/.*replay with: themis corrupt //p' "$work/hang.txt" | head -n 1)
if [ "$st" -eq 1 ] && [ "$(grep -c '^ext2 .*kernel-failure .*budget exhausted' "$work/hang.txt")" -eq 2 ] &&
	grep -q 'kernel-failure 2 \[panic or hang 2\] (in the kernel' "$work/hang.txt" &&
	[ -n "$replay" ]; then
	ok "a hang is a kernel-failure finding, the run goes on (2 flips), exit 1"
	# shellcheck disable=SC2086
	expect 1 "kernel-failure" -- "$themis" corrupt $replay --quiet
else
	fail "hang: status $st"
	sed 's/^/    /' "$work/hang.txt" | head -6
fi

# A real one: a jfs directory bit found by a sweep sends readdir into a
# loop that never ends (still looping at 2e10 instructions); a tenth of
# the default budget catches it, and leaves the walk of other flips of the
# same disk room enough (their outcomes are not kernel failures). The
# flip's report says where the hart spun, read from the guest's stack:
# jfs_readdir calling dtReadFirst, which reports an error, again and again.
expect 1 "jfs    directory .* kernel-failure .*budget exhausted" -- \
	"$themis" corrupt jfs --at 488:20:5 --budget 3e8 --quiet --json "$work/jfs-hang.json"
python3 - "$work/jfs-hang.json" <<'PY' && ok "the hang's report: where the hart spun (jfs_readdir <- getdents64)" ||
import json, re, sys
r = json.load(open(sys.argv[1]))[0]["report"] or ""
assert re.search(r"hangs or is slow at \S+\+0x[0-9a-f]+ <- ", r), r
assert re.search(r"<- dtReadFirst\+0x[0-9a-f]+ <- jfs_readdir\+0x[0-9a-f]+ <- ", r), r
PY
	fail "the jfs hang's report does not say where the hart spun: $(grep -o '"report": "[^"]*' "$work/jfs-hang.json")"
one jfs-dir-control "none" jfs --at 488:250:1 --budget 3e8

# F18: a reiserfs leaf bit (the private root's item location) makes the
# mount call a NULL pointer; the flip's report is the whole oops, its
# cause, "Oops [#1]" and the registers (one report, not two), counted
# [oops 1].
"$themis" corrupt reiserfs --at 4248:92:7 --quiet --json "$work/f18.json" >"$work/f18.txt" 2>&1
st=$?
python3 - "$work/f18.json" <<'PY' && [ "$st" -eq 1 ] && grep -q 'kernel-failure 1 \[oops 1\]' "$work/f18.txt" &&
import json, sys
f = json.load(open(sys.argv[1]))[0]
r = f["report"] or ""
assert f["outcome"] == "kernel-failure", f["outcome"]
assert r.startswith("Unable to handle kernel access to user memory"), r[:80]
assert "\nOops [#1]\n" in r and "\nepc : 0" in r, r[:300]
PY
	ok "F18's flip: a kernel-failure [oops 1] whose report is the whole oops" ||
	fail "F18's flip (reiserfs --at 4248:92:7): exit $st, $(grep -o '"report": "[^"]*' "$work/f18.json" | cut -c1-160)"

# A sweep of one bit per class, under ASan.
# shellcheck disable=SC2086
if "$asan" corrupt ext2 $guest --disk "$images/ext2.img" --sweep --bits 1 --seed 7 --quiet --json "$work/sweep.json" \
	--svg "$work/svg" >"$work/sweep.txt" 2>"$work/sweep.err"; then
	sed -n '/^spectrum/,$p' "$work/sweep.txt"
	if python3 -c '
import json, sys, xml.etree.ElementTree as ET
flips = json.load(open(sys.argv[1]))
classes = [f["structure"] for f in flips]
assert len(classes) == len(set(classes)) >= 8, classes
for need in ("superblock", "inode", "data", "free", "block-bitmap"):
    assert need in classes, need
ET.parse(sys.argv[2])' "$work/sweep.json" "$work/svg/corrupt-spectrum.svg" &&
		grep -q "^ext2   data" "$work/sweep.txt" &&
		grep -q "layouts without checksums" "$work/sweep.txt"; then
		ok "sweep: one flip per class, spectrum, summary, SVG"
	else
		fail "sweep output"
	fi
else
	fail "sweep: $(tail -n 3 "$work/sweep.err")"
fi

sums >"$work/after"
if cmp -s "$work/before" "$work/after"; then
	ok "base images unchanged"
else
	fail "a base image changed"
fi

expect 2 "unknown filesystem 'ext9'" -- "$themis" corrupt ext9 --target data
expect 2 "ext2 has no structure 'frob'" -- "$asan" corrupt ext2 --target frob $guest --disk "$images/ext2.img"
expect 2 "has no field 's_frob'" -- "$asan" corrupt ext2 --target superblock:s_frob $guest --disk "$images/ext2.img"
expect 2 "btrfs: 'data' has no fields" -- "$asan" corrupt btrfs --target data:x $guest --disk "$images/btrfs.img"
expect 2 "needs LBA:BYTE:BIT" -- "$asan" corrupt ext2 --at 2:512:0
expect 2 "needs LBA:BYTE:BIT" -- "$asan" corrupt ext2 --at 2:56
expect 2 "past the end of the disk" -- "$asan" corrupt ext2 --at 999999999:0:0 $guest --disk "$images/ext2.img"
expect 2 "on one filesystem" -- "$asan" corrupt ext2 btrfs --at 2:56:0
expect 2 "give one of" -- "$asan" corrupt ext2 --sweep --target data
expect 2 "--bits needs" -- "$asan" corrupt ext2 --bits 0
expect 0 "superblock:s_magic" -- "$themis" corrupt --help

finish corrupt
