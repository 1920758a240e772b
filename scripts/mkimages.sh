#!/bin/sh
# Build the base disk images the checker and the tests boot with, one per
# filesystem, with Debian's mkfs tools:
#   scripts/mkimages.sh [BUILD_DIR] [FS...]      (default: build, all below)
# Images go to BUILD_DIR/images/FS.img, sparse. They are made once and then
# only read: a run never writes a base image. Where a tool allows it, UUIDs,
# serials and times are fixed so the same tools make the same bytes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build}
[ $# -gt 0 ] && shift
all="ext2 ext3 ext4 xfs btrfs f2fs vfat exfat jfs nilfs2 minix"
want=${*:-$all}
mkdir -p "$out/images"
uuid=5468656d-6973-4000-8000-000000000001
export E2FSPROGS_FAKE_TIME=1767225600 # 2026-01-01, for mke2fs's timestamps
export QA_CHECK_FS=1                   # lets mkfs.xfs make a small test filesystem

size_of() {
	case $1 in
	xfs) echo 300 ;;
	btrfs) echo 128 ;;
	nilfs2) echo 160 ;;
	*) echo 64 ;;
	esac
}

mkfs_one() {
	fs=$1 file=$2
	case $fs in
	ext2 | ext3 | ext4)
		"mkfs.$fs" -q -F -U "$uuid" -E "hash_seed=$uuid,root_owner=0:0" "$file" ;;
	xfs) mkfs.xfs -q -f -m uuid="$uuid" "$file" ;;
	btrfs) mkfs.btrfs -q -f -U "$uuid" "$file" >/dev/null ;;
	f2fs) mkfs.f2fs -q -f -U "$uuid" "$file" ;;
	vfat) mkfs.vfat --invariant -i 54484d53 "$file" >/dev/null ;;
	exfat) mkfs.exfat "$file" >/dev/null ;;
	jfs) mkfs.jfs -q "$file" >/dev/null ;;
	nilfs2) mkfs.nilfs2 -q -f "$file" ;;
	minix) mkfs.minix -3 "$file" >/dev/null ;;
	*) echo "mkimages: unknown filesystem '$fs' (known: $all)" >&2; return 2 ;;
	esac
}

for fs in $want; do
	img="$out/images/$fs.img"
	[ -s "$img" ] && continue
	rm -f "$img.tmp"
	truncate -s "$(size_of "$fs")M" "$img.tmp"
	if ! mkfs_one "$fs" "$img.tmp"; then
		rm -f "$img.tmp"
		echo "mkimages: mkfs for $fs failed" >&2
		exit 1
	fi
	mv "$img.tmp" "$img"
	echo "mkimages: $img ($(size_of "$fs") MiB $fs)"
done
