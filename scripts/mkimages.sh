#!/bin/sh
# Build the base disk images the checker and the tests boot with, one per
# filesystem, with Debian's mkfs tools:
#   scripts/mkimages.sh [BUILD_DIR] [FS...]      (default: build, all below)
# Images go to BUILD_DIR/images/FS.img, sparse. They are made once and then
# only read: a run never writes a base image. Where a tool allows it, UUIDs
# and serials are fixed; every tool runs under faketime at the machine's
# clock base (2026-01-01T00:00:00Z, what boot and explore start at), so the
# images made on any day carry the same times and the root's times agree
# across filesystems at the start of a run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build}
[ $# -gt 0 ] && shift
all="ext2 ext3 ext4 xfs btrfs f2fs vfat exfat jfs nilfs2 minix"
want=${*:-$all}
mkdir -p "$out/images"
uuid=5468656d-6973-4000-8000-000000000001
export E2FSPROGS_FAKE_TIME=1767225600 # 2026-01-01, for mke2fs's timestamps
export TZ=UTC
base_time="2026-01-01 00:00:00" # frozen: faketime with an absolute time does not tick
export QA_CHECK_FS=1                   # lets mkfs.xfs make a small test filesystem

size_of() {
	case $1 in
	xfs) echo 300 ;;
	btrfs) echo 128 ;;
	nilfs2) echo 160 ;;
	*) echo 64 ;;
	esac
}

# ft CMD...: CMD with the clock frozen at the base time.
ft() { faketime -f "$base_time" "$@"; }

mkfs_one() {
	fs=$1 file=$2
	case $fs in
	ext2 | ext3 | ext4)
		ft "mkfs.$fs" -q -F -U "$uuid" -E "hash_seed=$uuid,root_owner=0:0" "$file" ;;
	xfs) ft mkfs.xfs -q -f -m uuid="$uuid" "$file" ;;
	btrfs) ft mkfs.btrfs -q -f -U "$uuid" "$file" >/dev/null ;;
	f2fs) ft mkfs.f2fs -q -f -U "$uuid" "$file" ;;
	vfat) ft mkfs.vfat --invariant -i 54484d53 "$file" >/dev/null ;;
	exfat) ft mkfs.exfat "$file" >/dev/null ;;
	jfs) ft mkfs.jfs -q "$file" >/dev/null ;;
	nilfs2) ft mkfs.nilfs2 -q -f "$file" ;;
	minix) ft mkfs.minix -3 "$file" >/dev/null ;;
	*) echo "mkimages: unknown filesystem '$fs' (known: $all)" >&2; return 2 ;;
	esac
}

for fs in $want; do
	img="$out/images/$fs.img"
	[ -s "$img" ] && continue
	rm -f "$img.tmp"
	truncate -s "$(size_of "$fs")M" "$img.tmp"
	if ! command -v faketime >/dev/null 2>&1; then
		echo "mkimages: faketime is missing (scripts/deps.sh installs it)" >&2
		exit 1
	fi
	if ! mkfs_one "$fs" "$img.tmp"; then
		rm -f "$img.tmp"
		echo "mkimages: mkfs for $fs failed" >&2
		exit 1
	fi
	mv "$img.tmp" "$img"
	echo "mkimages: $img ($(size_of "$fs") MiB $fs)"
done
