#!/bin/sh
# tier: fast
# 6.12: full
# `themis diff`: equal images are equal (exit 0), a changed byte is found and
# named by structure and field (exit 1), every mask of --normalize hides
# exactly what it should (each with a control: --no-mask FIELD, the hidden
# option that leaves that one mask off, must bring the difference back),
# two logically equal runs with different identities differ raw and not
# after normalizing (the paper's result), two runs with every input pinned
# do not differ at all, and bad input is exit 2. Usage: test_diff.sh BUILD
set -u
build=${1:-build}
themis=$build/themis
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"

for tool in mkfs.ext2 mkfs.ext4 debugfs; do
	command -v $tool >/dev/null 2>&1 || {
		echo "FAIL: $tool is missing (Debian package e2fsprogs)"
		exit 1
	}
done
U1=11111111-1111-4111-8111-111111111111 U2=22222222-2222-4222-8222-222222222222
H1=33333333-3333-4333-8333-333333333333 H2=44444444-4444-4444-8444-444444444444
T1=1767225600 T2=1767312000 # 2026-01-01 and the day after: mkfs's and debugfs's clock

# mkimg FILE TYPE SIZE UUID HASHSEED TIME: an image made at a pinned time.
mkimg() {
	E2FSPROGS_FAKE_TIME=$6 mkfs.$2 -q -F -b 1024 -I 256 -U "$4" -E hash_seed="$5" "$1" "$3" >/dev/null 2>&1 ||
		{ echo "FAIL: mkfs.$2 $1"; exit 1; }
}
# dbg FILE TIME CMD: one debugfs -w command at a pinned time.
dbg() {
	E2FSPROGS_FAKE_TIME=$2 debugfs -w -R "$3" "$1" >"$work/dbg.out" 2>&1 ||
		{ echo "FAIL: debugfs $3"; cat "$work/dbg.out"; exit 1; }
}
# workload FILE TIME: the same files and directory, at the given time.
workload() {
	printf 'hello, themis\n' >"$work/f.txt"
	dbg "$1" "$2" "write $work/f.txt f"
	dbg "$1" "$2" "mkdir d"
	dbg "$1" "$2" "write $work/f.txt d/g"
}
# count FILE: the sector count of the summary line (normalized when asked).
count() { sed -n '1s/.*, \([0-9]*\) sectors differ.*/\1/p' "$1"; }
raw() { sed -n '1s/.*(raw \([0-9]*\);.*/\1/p' "$1"; }

# --- the basics, on one ext2 image -------------------------------------
mkimg "$work/a.img" ext2 16M $U1 $H1 $T1
workload "$work/a.img" $T1
cp "$work/a.img" "$work/a2.img"
expect 0 "0 sectors differ" -- "$themis" diff "$work/a.img" "$work/a.img"
expect 0 "ext2, 0 sectors differ" -- "$themis" diff "$work/a.img" "$work/a2.img"
expect 0 "usage: themis diff" -- "$themis" diff --help

# One flipped byte in f's data block: named data, with its inode.
ino=$(debugfs -R "stat f" "$work/a.img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
blk=$(debugfs -R "bmap f 0" "$work/a.img" 2>/dev/null)
cp "$work/a.img" "$work/flip.img"
printf 'X' | dd of="$work/flip.img" bs=1 seek=$((blk * 1024 + 3)) conv=notrunc status=none
expect 1 "lba $((blk * 2)) (+1) data inode $ino: bytes $((blk * 1024 + 3))..$((blk * 1024 + 3))" -- \
	"$themis" diff "$work/a.img" "$work/flip.img"
expect 1 "1 sectors differ after normalizing (raw 1;" -- \
	"$themis" diff --normalize "$work/a.img" "$work/flip.img"

# A changed s_mtime: named in the superblock and in every backup, masked.
cp "$work/a.img" "$work/mt.img"
dbg "$work/mt.img" $T1 "ssv mtime 20260105000000"
expect 1 "lba 2 (+1) superblock s_mtime: bytes 10[67][0-9]..1071" -- "$themis" diff "$work/a.img" "$work/mt.img"
expect 0 "0 sectors differ after normalizing" -- "$themis" diff --normalize "$work/a.img" "$work/mt.img"
expect 1 "superblock s_mtime" -- "$themis" diff --normalize --no-mask s_mtime "$work/a.img" "$work/mt.img"

# --json: the keys, and a range per differing field.
expect 1 "s_mtime" -- "$themis" diff --json "$work/d.json" "$work/a.img" "$work/mt.img"
python3 - "$work/d.json" <<'EOF' || fail "--json output"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sectors_differing"] == d["sectors_differing_raw"] > 0, d
r = d["ranges"][0]
assert set(r) >= {"lba", "count", "structure", "field", "byte", "len"}, r
assert (r["lba"], r["structure"], r["field"], r["byte"], r["len"]) == (2, "superblock", "s_mtime", 1068, 4) or \
       r["field"] == "s_mtime", r
EOF

# --- every mask, one at a time, with its control --------------------------
# mask IMG-A IMG-B FIELD [NAME-PATTERN]: the pair differs raw in FIELD, not
# after normalizing, and again with that mask left off.
mask() {
	# (expect's own variables are want and pat)
	m_a=$1 m_b=$2 m_f=$3 m_pat=${4:-$3}
	expect 1 "$m_pat" -- "$themis" diff "$m_a" "$m_b"
	expect 0 "0 sectors differ after normalizing" -- "$themis" diff --normalize "$m_a" "$m_b"
	expect 1 "$m_pat" -- "$themis" diff --normalize --no-mask "$m_f" "$m_a" "$m_b"
}
# Superblock fields, on ext2 (no checksum to drag along).
for f in mtime:20260106000000 wtime:20260106000000 lastcheck:20260106000000 \
	mkfs_time:20260106000000 uuid:$U2 hash_seed:$H2 kbytes_written:4242; do
	cp "$work/a.img" "$work/m.img"
	# debugfs sets s_wtime to its clock when it closes the image
	t=$T1 && [ "${f%%:*}" = wtime ] && t=$T2
	dbg "$work/m.img" $t "ssv ${f%%:*} ${f#*:}"
	mask "$work/a.img" "$work/m.img" "s_${f%%:*}" "superblock s_${f%%:*}"
done
# Inode fields of f, on ext4 with metadata_csum: each change also moves the
# inode's checksum, which is masked too, and has its own control.
mkimg "$work/c.img" ext4 16M $U1 $H1 $T1
workload "$work/c.img" $T1
for f in atime:20260107000000 ctime:20260107000000 mtime:20260107000000 \
	dtime:20260107000000 crtime:20260107000000 atime_extra:400 ctime_extra:400 \
	mtime_extra:400 crtime_extra:400 generation:77; do
	cp "$work/c.img" "$work/m.img"
	dbg "$work/m.img" $T1 "sif f ${f%%:*} ${f#*:}"
	mask "$work/c.img" "$work/m.img" "i_${f%%:*}" "inode $ino i_${f%%:*}"
done
cp "$work/c.img" "$work/m.img"
dbg "$work/m.img" $T1 "sif f generation 78"
expect 1 "inode $ino i_checksum_lo" -- "$themis" diff --normalize --no-mask i_checksum_lo "$work/c.img" "$work/m.img"
expect 1 "inode $ino i_checksum_hi" -- "$themis" diff --normalize --no-mask i_checksum_hi "$work/c.img" "$work/m.img"
# s_checksum moves with s_mtime under metadata_csum.
cp "$work/c.img" "$work/m.img"
dbg "$work/m.img" $T1 "ssv mtime 20260108000000"
mask "$work/c.img" "$work/m.img" s_checksum "superblock s_checksum"

# --- the paper's result: equal runs, different identities -----------------
# ext2 (4 MiB, 1 KiB blocks as in the paper): mkfs with other uuids, hash
# seeds and clocks, then the same workload at other times.
mkimg "$work/p1.img" ext2 4M $U1 $H1 $T1
mkimg "$work/p2.img" ext2 4M $U2 $H2 $T2
workload "$work/p1.img" $T1
workload "$work/p2.img" $T2
expect 0 "0 sectors differ after normalizing" -- "$themis" diff --normalize "$work/p1.img" "$work/p2.img"
n=$(raw "$work/out")
[ "${n:-0}" -gt 0 ] && ok "ext2, debugfs: raw $n sectors, 0 normalized" || fail "ext2 pair: raw count '$n'"
# ext4 with metadata_csum: every checksum is seeded from the uuid, and the
# journal superblock repeats it. Controls: each such mask matters.
mkimg "$work/q1.img" ext4 32M $U1 $H1 $T1
mkimg "$work/q2.img" ext4 32M $U2 $H2 $T2
workload "$work/q1.img" $T1
workload "$work/q2.img" $T2
# (debugfs's ssv writes the primary superblock only; mkfs writes every copy)
expect 1 "superblock-backup group 3 s_uuid" -- "$themis" diff "$work/q1.img" "$work/q2.img"
expect 0 "0 sectors differ after normalizing" -- "$themis" diff --normalize "$work/q1.img" "$work/q2.img"
n=$(raw "$work/out")
[ "${n:-0}" -gt 0 ] && ok "ext4, debugfs: raw $n sectors, 0 normalized" || fail "ext4 pair: raw count '$n'"
for f in bg_checksum bg_block_bitmap_csum_lo bg_inode_bitmap_csum_lo \
	journal_superblock:s_uuid det_checksum; do
	expect 1 "${f#*:}" -- "$themis" diff --normalize --no-mask "$f" "$work/q1.img" "$work/q2.img"
done

# xfs: two mkfs runs that differ only in the uuid, which v5 stamps in every
# metadata header (AG headers, btree blocks, the log record): raw N, 0
# normalized; the btree header's and the log record's uuid masks each have
# their control.
for u in 11111111-2222-3333-4444-555555555555 99999999-2222-3333-4444-555555555555; do
	truncate -s 300M "$work/x-${u%%-*}.img"
	mkfs.xfs -q -f -m uuid=$u "$work/x-${u%%-*}.img"
done
xa=$work/x-11111111.img xb=$work/x-99999999.img
"$themis" diff --normalize "$xa" "$xb" >"$work/out" 2>&1
n=$(raw "$work/out")
[ "${n:-0}" -gt 0 ] && grep -q "0 sectors differ after normalizing" "$work/out" &&
	ok "xfs, two uuids: raw $n sectors, 0 normalized" || { fail "xfs pair:"; head -n 5 "$work/out"; }
mask "$xa" "$xb" bb_uuid "free-space-btree bb_uuid"
mask "$xa" "$xb" h_fs_uuid "log h_fs_uuid"
rm -f "$xa" "$xb"

# --- the same under Themis: booted, the agent's script, saved disks -------
kernel=$build/guest/Image
if [ ! -f "$kernel" ] || [ ! -f "$build/guest/initramfs.cpio.gz" ]; then
	fail "no guest kernel or initramfs in $build/guest (make guest)"
else
	# boot IMG OUT CLOCK SEED: run the agent's script on IMG, save the disk.
	boot() {
		mkdir -p "$2"
		"$themis" boot --disk "$1" --clock "$3" --seed "$4" --script --save-disks "$2" \
			>"$2/console" 2>&1 || { fail "boot $1 (console tail:)"; tail -n 5 "$2/console"; }
	}
	mkimg "$work/b1.img" ext2 4M $U1 $H1 $T1
	mkimg "$work/b2.img" ext2 4M $U2 $H2 $T2
	cp "$work/b1.img" "$work/b1.orig"
	boot "$work/b1.img" "$work/r1" 2026-01-01T00:00:00Z 1
	boot "$work/b1.img" "$work/r1b" 2026-01-01T00:00:00Z 1
	boot "$work/b2.img" "$work/r2" 2026-03-01T12:00:00Z 2
	cmp -s "$work/b1.img" "$work/b1.orig" && ok "the base image was not written" ||
		fail "boot wrote its base image"
	# Every input pinned: the same disk, bit for bit.
	expect 0 "ext2, 0 sectors differ" -- "$themis" diff "$work/r1/disk0.img" "$work/r1b/disk0.img"
	# Different identities, clocks and seeds: raw N, 0 normalized.
	expect 0 "0 sectors differ after normalizing" -- \
		"$themis" diff --normalize "$work/r1/disk0.img" "$work/r2/disk0.img"
	n=$(raw "$work/out")
	[ "${n:-0}" -gt 0 ] && ok "ext2 under Themis: raw $n sectors, 0 normalized, 0 raw when pinned" ||
		fail "Themis pair: raw count '$n'"
	expect 1 "i_generation" -- "$themis" diff --normalize --no-mask i_generation \
		"$work/r1/disk0.img" "$work/r2/disk0.img"
fi

# --- bad input ---------------------------------------------------------
head -c 4194304 /dev/zero >"$work/zero.img"
cp "$work/zero.img" "$work/zero2.img"
printf 'Z' | dd of="$work/zero2.img" bs=1 seek=5000 conv=notrunc status=none
expect 2 "missing.img: cannot open" -- "$themis" diff "$work/a.img" "$work/missing.img"
expect 2 "different sizes are not compared" -- "$themis" diff "$work/a.img" "$work/p1.img"
expect 2 "needs two images" -- "$themis" diff "$work/a.img"
expect 2 "unknown option" -- "$themis" diff --bogus "$work/a.img" "$work/a.img"
expect 2 "no field is named" -- "$themis" diff --no-mask nosuch "$work/a.img" "$work/a.img"
# An unknown filesystem: still a byte diff, named "unknown"; no normalizing.
expect 1 "lba 9 (+1) unknown: bytes 5000..5000" -- "$themis" diff "$work/zero.img" "$work/zero2.img"
expect 0 "unknown, 0 sectors differ" -- "$themis" diff "$work/zero.img" "$work/zero.img"
expect 2 "zero.img: cannot normalize: not a filesystem" -- \
	"$themis" diff --normalize "$work/zero.img" "$work/zero2.img"
# Neither image is ever written.
cp "$work/a.img" "$work/ro.img"
chmod 0444 "$work/ro.img" "$work/mt.img"
expect 1 "s_mtime" -- "$themis" diff --normalize --no-mask s_mtime "$work/ro.img" "$work/mt.img"
cmp -s "$work/a.img" "$work/ro.img" && ok "images left as they were" || fail "diff wrote an image"

finish diff
