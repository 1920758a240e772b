#!/bin/sh
# tier: fast
# 6.12: full
# The layout map (`themis layout`, src/format/layout*.c) against each
# filesystem's own tools. Properties guarded:
#   - every built image's map parses, names its superblock at the LBA the
#     format puts it, and is sorted, disjoint and inside the image;
#   - ext2/ext4: every superblock copy, descriptor block, reserved GDT
#     block, bitmap, inode table and free run dumpe2fs lists is named so in
#     the map, and after debugfs writes files, every directory, data,
#     indirect and extent-tree block debugfs lists is named so, with the
#     inode as owner;
#   - xfs: the AG headers, btree roots and log at xfs_db's addresses;
#   - btrfs: every tree node dump-tree lists, named by its tree;
#   - bad input (missing, empty, random, truncated, damaged superblock, bad
#     flags) exits 2 with one line naming the file, and no image is written.
# Usage: test_layout.sh BUILD (the build folder: BUILD/themis,
# BUILD/asan/themis when present, BUILD/images/*.img)
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
asan=$build/asan/themis
[ -x "$asan" ] || asan=$themis
images=$build/images
export E2FSPROGS_FAKE_TIME=1767225600

# dumpe2fs_queries IMG: dumpe2fs's group placements as map queries.
dumpe2fs_queries() {
	dumpe2fs "$1" 2>/dev/null | awk '
		/^Block size:/ { spb = $3 / 512 }
		function q(r, what,   p) { split(r, p, "-"); if (p[2] == "") p[2] = p[1]
			printf "%d %d %s\n", p[1] * spb, (p[2] + 1) * spb - 1, what }
		/^Group [0-9]+:/ { g = $2 + 0 }
		/superblock at/ { for (i = 1; i <= NF; i++) {
			if ($i == "superblock") { s = $(i + 2); sub(",", "", s)
				q(s, g ? "superblock-backup" : "superblock") }
			if ($i == "descriptors") q($(i + 2), g ? "group-descriptors-backup" : "group-descriptors") } }
		/Reserved GDT blocks at/ { q($5, "reserved-gdt") }
		/Block bitmap at/ { q($4, "block-bitmap") }
		/Inode bitmap at/ { q($4, "inode-bitmap") }
		/Inode table at/ { q($4, "inode-table") }
		/^  Free blocks: [0-9]/ { for (i = 3; i <= NF; i++) { r = $i; sub(",", "", r); q(r, "free") } }' |
		awk '$1 >= 2 || $3 != "superblock"' # with 4 KiB blocks, sectors 0-1 are "boot"
}

# debugfs_queries IMG PATH...: each path's blocks as debugfs lists them.
debugfs_queries() {
	img=$1
	shift
	spb=$(($(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ { print $3 }') / 512))
	for p in "$@"; do
		debugfs -R "stat $p" "$img" 2>/dev/null | awk -v spb="$spb" '
			NR == 1 { ino = $2; kind = ($4 == "directory" || $4 == "symlink") ? $4 : "data" }
			/^(BLOCKS|EXTENTS):/ { on = 1; next }
			on && /^TOTAL/ { on = 0 }
			on { gsub(/, /, "\n"); n = split($0, e, "\n")
			     for (i = 1; i <= n; i++) { split(e[i], kv, ":"); if (kv[2] == "") continue
				what = kind
				if (kv[1] ~ /IND/) what = "indirect"
				if (kv[1] ~ /ETB/) what = "extent-tree"
				split(kv[2], p, "-"); if (p[2] == "") p[2] = p[1]
				printf "%d %d %s %d\n", p[1] * spb, (p[2] + 1) * spb - 1, what, ino } }'
	done
}

# xfs_queries IMG PATH...: the AG headers, btree roots (agf, agi), the log
# and the root inode's chunk as xfs_db puts them; then each path's extents
# (xfs_db bmap) as directory, symlink or data owned by its inode.
xfs_queries() {
	img=$1
	shift
	xdb() { xfs_db -r "$@" "$img" 2>/dev/null; }
	eval "$(xdb -c 'sb 0' -c 'p agblocks agcount blocksize sectsize logstart logblocks rootino' |
		sed 's/ = /=/')"
	spb=$((blocksize / 512)) sps=$((sectsize / 512))
	a=0
	while [ "$a" -lt "$agcount" ]; do
		base=$((a * agblocks * spb))
		[ "$a" -eq 0 ] && sbname=superblock || sbname=superblock-backup
		echo "$base $((base + sps - 1)) $sbname"
		echo "$((base + sps)) $((base + 2 * sps - 1)) agf"
		echo "$((base + 2 * sps)) $((base + 3 * sps - 1)) agi"
		echo "$((base + 3 * sps)) $((base + 4 * sps - 1)) agfl"
		xdb -c "agf $a" -c 'p bnoroot cntroot refcntroot' -c "agi $a" -c 'p root free_root' |
			awk -v base=$base -v spb=$spb '$3 ~ /^[0-9]+$/ {
				what = $1 == "refcntroot" ? "refcount-btree" : ($1 ~ /root$/ && $1 != "bnoroot" && $1 != "cntroot") ? "inode-btree" : "free-space-btree"
				printf "%d %d %s\n", base + $3 * spb, base + ($3 + 1) * spb - 1, what }'
		a=$((a + 1))
	done
	log=$(xdb -c "convert fsb $logstart daddr" | sed 's/.*(\(.*\))/\1/')
	echo "$log $((log + logblocks * spb - 1)) log"
	ino=$(xdb -c "convert ino $rootino daddr" | sed 's/.*(\(.*\))/\1/')
	echo "$ino $ino inode-chunk"
	for p in "$@"; do
		xdb -c "path $p" -c 'p core.mode' -c bmap -c inode | awk -v agb=$agblocks -v spb=$spb '
			/^core.mode/ { kind = ($3 ~ /^04/) ? "directory" : ($3 ~ /^012/) ? "symlink" : "data"; k = 0 }
			/startblock/ { split($6, ag, "/"); gsub(/[()]/, "", ag[1]); gsub(/[()]/, "", ag[2])
				start = (ag[1] * agb + ag[2]) * spb; n[++k] = start " " start + $8 * spb - 1 }
			/current inode number/ { for (i = 1; i <= k; i++) print n[i], kind, $5 }'
	done
}

# btrfs_queries IMG: every tree node dump-tree lists, at each copy
# btrfs-map-logical gives, named by its tree; every regular file extent
# as data owned by its inode; the superblock and its 64 MiB mirror.
btrfs_queries() {
	img=$1
	nodesize=$(btrfs inspect-internal dump-super "$img" | awk '$1 == "nodesize" { print $2 }')
	echo "128 135 superblock"
	[ "$(stat -c %s "$img")" -ge $((64 * 1048576 + 4096)) ] && echo "131072 131079 superblock-backup"
	btrfs inspect-internal dump-tree "$img" 2>/dev/null | awk '
		/^(leaf|node) [0-9]+ (items|level)/ { o = $NF; t = "other"
			if (o == "ROOT_TREE") t = "root"; if (o == "EXTENT_TREE") t = "extent"
			if (o == "CHUNK_TREE") t = "chunk"; if (o == "DEV_TREE") t = "dev"
			if (o == "FS_TREE" || o ~ /^[0-9]+$/) t = "fs"; if (o == "CSUM_TREE") t = "csum"
			if (o == "UUID_TREE") t = "uuid"; if (o == "FREE_SPACE_TREE") t = "free-space"
			if (o == "DATA_RELOC_TREE") t = "data-reloc"; if (o == "QUOTA_TREE") t = "quota"
			if (o == "BLOCK_GROUP_TREE") t = "block-group"
			print $2, "tree:" t, ""; next }
		/key \([0-9]+ EXTENT_DATA/ { ino = substr($4, 2) }
		/extent data disk byte/ && $5 != 0 { print $5, "data", ino, $7 }' |
		while read -r logical what owner len; do
			btrfs-map-logical -l "$logical" "$img" 2>/dev/null | awk -v w="$what" -v o="$owner" \
				-v n="${len:-$nodesize}" '/^mirror/ { printf "%d %d %s %s\n", $6 / 512, ($6 + n) / 512 - 1, w, o }'
		done
}

# Images the tests write into: copies, never the base images.
cksum_before=$(cat "$images"/*.img | md5sum)

# The base images, each at its superblock.
for fs in $("$themis" fs --names); do
	img=$images/$fs.img
	if [ ! -s "$img" ]; then
		fail "$img is missing (scripts/mkimages.sh builds it)"
		continue
	fi
	case $fs in
	xfs | ntfs3) sb=0 ;;
	udf) sb=2048 ;;
	vfat | exfat) sb=0 ;;
	btrfs | reiserfs | gfs2) sb=128 ;;
	jfs) sb=64 ;;
	ocfs2) sb=4 ;;
	*) sb=2 ;;
	esac
	sane "$img" "$fs" "$sb"
done

# ext2 and ext4 against dumpe2fs, then with files against debugfs.
head -c 300000 /dev/urandom >"$work/big"
head -c 3000 /dev/urandom >"$work/small"
for fs in ext2 ext4; do
	cp "$images/$fs.img" "$work/$fs.img"
	map "$work/$fs.img" "$work/$fs.base.map" || continue
	dumpe2fs_queries "$work/$fs.img" >"$work/q"
	check_map "$work/$fs.base.map" "$work/q" "$fs vs dumpe2fs"
	{
		echo "mkdir d"
		echo "write $work/small d/small"
		echo "write $work/big d/big"
		echo "symlink d/link /$(printf '%080d' 0)"
	} >"$work/cmds"
	debugfs -w -f "$work/cmds" "$work/$fs.img" >/dev/null 2>&1
	map "$work/$fs.img" "$work/$fs.files.map" || continue
	debugfs_queries "$work/$fs.img" / /d /d/small /d/big /d/link >"$work/q"
	grep -q indirect "$work/q" || [ "$fs" = ext4 ] || fail "$fs: debugfs listed no indirect block"
	check_map "$work/$fs.files.map" "$work/q" "$fs files vs debugfs"
	dumpe2fs_queries "$work/$fs.img" >"$work/q"
	check_map "$work/$fs.files.map" "$work/q" "$fs files vs dumpe2fs"
done

# ext4 with 4 KiB blocks and a fragmented file, so its extents need a tree block.
truncate -s 16M "$work/e4k.img"
mkfs.ext4 -q -F -b 4096 "$work/e4k.img"
{
	echo "mkdir d"
	for i in $(seq 0 39); do echo "write $work/small d/s$i"; done
	for i in $(seq 0 2 39); do echo "rm d/s$i"; done
	echo "write $work/big d/big"
} >"$work/cmds"
debugfs -w -f "$work/cmds" "$work/e4k.img" >/dev/null 2>&1
if map "$work/e4k.img" "$work/e4k.map"; then
	debugfs_queries "$work/e4k.img" /d /d/big /d/s1 /d/s39 >"$work/q"
	grep -q extent-tree "$work/q" || fail "e4k: debugfs listed no extent tree block"
	check_map "$work/e4k.map" "$work/q" "ext4 4k extents vs debugfs"
	dumpe2fs_queries "$work/e4k.img" >"$work/q"
	check_map "$work/e4k.map" "$work/q" "ext4 4k vs dumpe2fs"
fi

# xfs against xfs_db, then a copy populated by mkfs.xfs -p (a prototype
# file: a directory of 60 files and a 3 MB file, so blocks exist).
check_xfs() {
	map "$1" "$work/xfs.q.map" || return
	xfs_queries "$@" >"$work/q"
	check_map "$work/xfs.q.map" "$work/q" "$2"
}
check_xfs "$images/xfs.img" "xfs vs xfs_db"
head -c 3000000 /dev/urandom >"$work/big3m"
{
	echo /dev/null
	echo 0 0
	echo 'd--755 0 0'
	echo 'd d--755 0 0'
	for i in $(seq 1 60); do echo "file_with_a_longish_name_$i ---644 0 0 $work/small"; done
	echo "big ---644 0 0 $work/big3m"
	echo '$'
	echo '$'
} >"$work/proto"
truncate -s 300M "$work/xp.img"
if QA_CHECK_FS=1 mkfs.xfs -q -f -p "$work/proto" "$work/xp.img"; then
	check_xfs "$work/xp.img" "xfs files vs xfs_db" /d /d/big /d/file_with_a_longish_name_7
	grep -q "directory" "$work/q" || fail "xfs: xfs_db showed no directory block"
else
	fail "mkfs.xfs -p failed"
fi

# btrfs against dump-tree and btrfs-map-logical, then a copy populated by
# mkfs.btrfs --rootdir (300 small files, inline, and a 3 MB file).
check_btrfs() {
	map "$1" "$work/btrfs.q.map" || return
	btrfs_queries "$1" >"$work/q"
	grep -q "$3" "$work/q" || fail "$2: the tools listed no $3"
	check_map "$work/btrfs.q.map" "$work/q" "$2"
}
check_btrfs "$images/btrfs.img" "btrfs vs dump-tree" "tree:extent"
mkdir -p "$work/root/d"
cp "$work/big3m" "$work/root/d/big"
for i in $(seq 1 300); do echo "$i" >"$work/root/d/f$i"; done
truncate -s 128M "$work/bp.img"
if mkfs.btrfs -q -f -r "$work/root" "$work/bp.img" >/dev/null 2>&1; then
	check_btrfs "$work/bp.img" "btrfs files vs dump-tree" " data "
else
	fail "mkfs.btrfs --rootdir failed"
fi

# vfat, exfat and f2fs: where their own tools put the fixed areas (the
# first sector of each).
one() { echo "$1 $1 $2"; }
map "$images/vfat.img" "$work/vfat.map" && {
	fsck.fat -n -v "$images/vfat.img" 2>/dev/null | sed -n 's/.*(sector \([0-9]*\)).*/\1/p' >"$work/s"
	{ one "$(sed -n 1p "$work/s")" fat; one "$(sed -n 2p "$work/s")" directory; } >"$work/q"
	check_map "$work/vfat.map" "$work/q" "vfat vs fsck.fat"
}
map "$images/exfat.img" "$work/exfat.map" && {
	dump.exfat "$images/exfat.img" 2>/dev/null | awk -F: '
		/FAT Offset/ { fat = $2 + 0 } /Cluster Heap Offset/ { heap = $2 + 0 }
		/Sector per Cluster bits/ { spc = 2 ^ ($2 + 0) }
		/Bitmap start cluster/ { bm = $2 + 0 } /Upcase table start cluster/ { up = $2 + 0 }
		/Root Cluster/ { root = $2 + 0 }
		END { print fat, fat, "fat"; print heap + (bm - 2) * spc, heap + (bm - 2) * spc, "allocation-bitmap"
		      print heap + (up - 2) * spc, heap + (up - 2) * spc, "upcase-table"
		      print heap + (root - 2) * spc, heap + (root - 2) * spc, "directory" }' >"$work/q"
	check_map "$work/exfat.map" "$work/q" "exfat vs dump.exfat"
}
cp "$images/f2fs.img" "$work/f2fs.img"
map "$work/f2fs.img" "$work/f2fs.map" && {
	dump.f2fs -d 1 "$work/f2fs.img" 2>/dev/null | awk '
		/^(cp|sit|nat|ssa)_blkaddr/ { gsub(/\]/, "", $NF); n = $NF * 8
			w = $1; sub(/_blkaddr/, "", w); if (w == "cp") w = "checkpoint"
			print n, n, w }' >"$work/q"
	check_map "$work/f2fs.map" "$work/q" "f2fs vs dump.f2fs"
}

# Bad input: one line naming the file, exit 2, no crash (the ASan build).
: >"$work/empty"
head -c 1048576 /dev/urandom >"$work/random"
head -c 4000000 "$images/ext4.img" >"$work/truncated.img"
cp "$images/ext2.img" "$work/damaged.img"
printf '\377\377\377\377' | dd of="$work/damaged.img" bs=1 seek=$((1024 + 0x18)) conv=notrunc 2>/dev/null
# bad PATTERN FILE: exit 2 and exactly one line, naming the file.
bad() {
	expect 2 "$(basename "$2"): $1" -- "$asan" layout "$2"
	[ "$(wc -l <"$work/out")" -eq 1 ] || fail "$(basename "$2"): more than one line of error"
}
bad "cannot open" "$work/missing.img"
bad ".*empty image" "$work/empty"
bad ".*not a filesystem Themis knows" "$work/random"
bad "ext4: .*truncated" "$work/truncated.img"
bad "ext2: block size" "$work/damaged.img"
expect 2 "unknown option '--bogus'" -- "$asan" layout --bogus "$images/ext2.img"
expect 2 "needs an image" -- "$asan" layout
expect 2 "needs a file name" -- "$asan" layout "$images/ext2.img" --json
expect 0 "usage: themis layout" -- "$asan" layout --help
expect 0 "inode-table" -- "$asan" layout "$images/ext4.img"

[ "$(cat "$images"/*.img | md5sum)" = "$cksum_before" ] && ok "base images unchanged" ||
	fail "a base image changed"
finish layout
