#!/bin/sh
# F17 (docs/findings.md): jfs's readdir of a directory whose dtree root is
# damaged never ends. jfs-flipped.img.xz is the disk Themis's corrupt lens
# mounted: its populated jfs image with one bit flipped, written by
#   themis corrupt jfs --at 488:20:5 --save jfs-flipped.img
# (bit 5 of byte 20 of sector 488, in a directory's dtree root). This
# mounts it on a loop device and lists every directory with repro.c.
#
#   sh repro.sh [WORKDIR]     (as root; REPRO_BIN: repro.c compiled)
# Exit status: 1 REPRODUCED, 0 NOT REPRODUCED, 2 it could not run.
# Under QEMU, on the reproducers' x86_64 kernel:
#   scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f17-jfs-readdir-loop
FSLIST="jfs"
MKFS_TOOLS="jfs:mkfs.jfs"
TOOLS="xz losetup"
here=$(cd "$(dirname "$0")" && pwd)
w=${1:-/tmp/f17}
bin=${REPRO_BIN:-$w/repro}
fail() {
	echo "repro: $*" >&2
	exit 2
}
mkdir -p "$w/mnt" || fail "cannot make $w/mnt"
[ -n "${REPRO_BIN:-}" ] || cc -O2 -o "$bin" "$here/repro.c" || fail "cannot compile repro.c"
xz -dc "$here/jfs-flipped.img.xz" >"$w/jfs.img" || fail "cannot unpack jfs-flipped.img.xz"
dev=$(losetup -f --show "$w/jfs.img") || fail "cannot attach $w/jfs.img to a loop device"
mount -t jfs "$dev" "$w/mnt" || fail "cannot mount $dev (jfs)"
"$bin" "$w/mnt"
rc=$?
umount "$w/mnt"
losetup -d "$dev"
exit $rc
