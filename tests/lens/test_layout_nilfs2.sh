#!/bin/sh
# tier: fast
# 6.12: full
# The nilfs2 layout map (src/format/layout_nilfs2.c) against nilfs-tools'
# dumpseg, which lists each segment's logs: per partial segment its first
# block and block count, per finfo the inode, its block counts and each
# block's disk address. Properties guarded, on the base image, the guest's
# script image and a replayed image holding a 12 MB file (btree nodes,
# logs in several segments):
#   - each log's summary blocks (from its first block to the first block
#     it lists) are segment-summary, a block after the listed ones is the
#     super root;
#   - each data block dumpseg lists is named by its inode: dat (3),
#     checkpoint-file (4), segment-usage-file (5), inode-file (6), else
#     directory when the block's own content is a chain of nilfs2
#     directory entries covering the block, symlink when it is a
#     printable path and zeros, data otherwise; each block past
#     a finfo's ndatblk is btree; the owner is always the inode;
#   - a segment without logs that no segment names as its next is free;
#   - the base image is not changed.
# dumpseg asks a block device's size with BLKGETSIZE64; an LD_PRELOAD shim
# built here answers it for an image file from its size (lssu needs a
# mounted filesystem, so the sufile is not checked against a tool).
# Usage: test_layout_nilfs2.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
images=$build/images
base=$images/nilfs2.img
cksum_before=$(cksum <"$base")

cat >"$work/shim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct stat st;
	if (req == BLKGETSIZE64 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		*(uint64_t *)arg = (uint64_t)st.st_size;
		return 0;
	}
	int (*real)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}
EOF
cat >"$work/xxh128.c" <<'EOF'
#include <stdio.h>
#include <xxhash.h>
int main(int argc, char **argv)
{
	static char buf[1 << 16];
	FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
	XXH3_state_t *st = XXH3_createState();
	if (!f || !st || XXH3_128bits_reset(st) != XXH_OK)
		return 1;
	for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
		XXH3_128bits_update(st, buf, n);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	for (int k = 0; k < 16; k++)
		printf("%02x", c.digest[k]);
	printf("\n");
	return 0;
}
EOF
if ! cc -shared -fPIC -o "$work/shim.so" "$work/shim.c" -ldl ||
	! cc -o "$work/xxh128" "$work/xxh128.c" -lxxhash; then
	fail "cannot build the dumpseg shim or the trace hasher"
	finish "layout nilfs2"
	exit 1
fi

# dumpseg_queries IMG: dumpseg's logs of every segment as map queries.
dumpseg_queries() {
	nseg=$(python3 -c 'import struct,sys; f=open(sys.argv[1],"rb"); f.seek(1024+24); print(struct.unpack("<Q",f.read(8))[0])' "$1")
	LD_PRELOAD=$work/shim.so dumpseg "$1" $(seq 0 $((nseg - 1))) >"$work/dumpseg.txt" 2>"$work/dumpseg.err" ||
		fail "dumpseg $(basename "$1"): $(head -n 1 "$work/dumpseg.err")"
	python3 - "$1" "$work/dumpseg.txt" "$nseg" <<'EOF'
import re, struct, sys
img, dump, nseg = open(sys.argv[1], "rb"), open(sys.argv[2]).read(), int(sys.argv[3])
img.seek(1024 + 20)
bs = 1024 << struct.unpack("<I", img.read(4))[0]
spb = bs // 512
names = {3: "dat", 4: "checkpoint-file", 5: "segment-usage-file", 6: "inode-file"}

def block(b):
    img.seek(b * bs)
    return img.read(bs)

def is_dir_block(d):
    """nilfs2 directory entries (inode, rec_len, name_len, type, name)
    chained by rec_len over exactly one block."""
    pos = 0
    while pos < len(d):
        rec_len, name_len = struct.unpack_from("<HB", d, pos + 8)
        if rec_len < 16 or rec_len % 8 or pos + rec_len > len(d) or 12 + name_len > rec_len:
            return False
        pos += rec_len
    return True

def is_symlink_block(d):
    """A symlink's target: a printable path, then zeros to the block's
    end (nilfs2 keeps every target in a block; the script's files hold
    seeded bytes, never that)."""
    n = d.find(b"\0")
    return 0 < n and all(0x20 <= c < 0x7f for c in d[:n]) and not any(d[n:])

def q(first, last, what, owner=""):
    print(first * spb, (last + 1) * spb - 1, what, owner)

used, nexts, seg = set(), set(), None
for part in re.split(r"\n(?=  partial segment|segment: )", dump):
    m = re.match(r"segment: segnum = (\d+)\n.*next segnum = (\d+)", part)
    if m:
        seg = int(m.group(1)); nexts.add(int(m.group(2)))
        continue
    m = re.match(r"  partial segment: blocknr = (\d+), nblocks = (\d+)", part)
    if not m:
        continue
    used.add(seg)
    start, n = int(m.group(1)), int(m.group(2))
    listed = []
    for fi in part.split("    finfo\n")[1:]:
        f = re.search(r"ino = (\d+), cno = \d+, nblocks = (\d+), ndatblk = (\d+)", fi)
        ino, ndata = int(f.group(1)), int(f.group(3))
        blocks = [int(b) for b in re.findall(r"(?:^|, )blocknr = (\d+)$", fi, re.M)]
        for k, b in enumerate(blocks):
            what = "btree" if k >= ndata else names.get(ino) or (
                "directory" if is_dir_block(block(b))
                else "symlink" if is_symlink_block(block(b)) else "data")
            q(b, b, what, ino)
        listed += blocks
    first = min(listed) if listed else start + 1
    q(start, first - 1, "segment-summary")
    if listed and max(listed) < start + n - 1:
        q(start + n - 1, start + n - 1, "super-root")
img.seek(1024 + 40)
first_block, per_seg = struct.unpack("<QI", img.read(12))
for s in range(nseg):
    if s not in used and s not in nexts:
        q(s * per_seg if s else first_block, (s + 1) * per_seg - 1, "free")
EOF
}

# check_nilfs2 IMG WHAT KINDS: the map against dumpseg, and dumpseg
# listed at least one block of each of KINDS.
check_nilfs2() {
	map "$1" "$work/map" || return
	dumpseg_queries "$1" >"$work/q"
	for k in $3; do
		grep -q " $k " "$work/q" || fail "$2: dumpseg listed no $k block"
	done
	check_map "$work/map" "$work/q" "$2"
}

all="segment-summary super-root dat checkpoint-file segment-usage-file inode-file"
check_nilfs2 "$base" "nilfs2 base vs dumpseg" "$all directory"

# The guest's fixed script: directories, files with holes, renames, links.
if "$themis" boot --disk "$base" --script --save-disks "$work/s" >"$work/boot.txt" 2>&1; then
	check_nilfs2 "$work/s/disk0.img" "nilfs2 script vs dumpseg" "$all directory data btree free"
	rm -rf "$work/s"
else
	fail "boot --script: $(tail -n 2 "$work/boot.txt")"
fi

# A replayed trace: a 12 MB file, so its block map needs btree nodes and its
# logs run over two segments. The replay saves every step's disk; only
# the last is kept.
h() { "$work/xxh128" "$1"; }
{
	echo "themis-trace 2"
	echo "fs nilfs2"
	echo "kernel $build/guest/Image $(h "$build/guest/Image")"
	echo "initrd $build/guest/initramfs.cpio.gz $(h "$build/guest/initramfs.cpio.gz")"
	echo "image nilfs2 $base $(h "$base")"
	echo "mem 268435456"
	echo "clock 0"
	echo "machine-seed 1"
	echo "time 0"
	echo "op create big 0644 -"
	echo "op write big 0 12000000 7 -"
	echo "discrepancy none -"
	echo "end"
} >"$work/big.trace"
"$themis" replay "$work/big.trace" --save-disks "$work/r" >"$work/replay.txt" 2>&1
last=$(ls "$work/r" 2>/dev/null | sort | tail -n 1)
if [ -n "$last" ]; then
	check_nilfs2 "$work/r/$last" "nilfs2 12 MB file vs dumpseg" "$all directory data btree free"
	awk '$3 == "btree" && $4 >= 11 { n++ } END { exit !n }' "$work/q" ||
		fail "nilfs2 12 MB file: dumpseg listed no btree block of a file"
else
	fail "replay: $(grep -v "^themis: warning" "$work/replay.txt" | tail -n 1)"
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "nilfs2 base image unchanged" ||
	fail "the nilfs2 base image changed"
finish "layout nilfs2"
