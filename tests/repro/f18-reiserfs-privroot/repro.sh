#!/bin/sh
# F18 (docs/findings.md): reiserfs calls a NULL ->lookup when it mounts a
# disk whose private root (.reiserfs_priv) is not a directory.
# reiserfs-flipped.img.xz is the disk Themis's corrupt lens mounted: its
# populated reiserfs image with one bit flipped, written by
#   themis corrupt reiserfs --at 4248:92:7 --save reiserfs-flipped.img
# (bit 7 of byte 92 of sector 4248: the low byte of the private root's
# item location in the root leaf, so its stat data is read 128 bytes
# early). This attaches it to a loop device and mounts it with repro.c.
#
#   sh repro.sh [WORKDIR]     (as root; REPRO_BIN: repro.c compiled)
# Exit status: 1 REPRODUCED, 0 NOT REPRODUCED, 2 it could not run.
# Under QEMU, on the reproducers' x86_64 kernel:
#   scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f18-reiserfs-privroot
FSLIST="reiserfs"
MKFS_TOOLS="reiserfs:mkreiserfs"
TOOLS="xz losetup"
here=$(cd "$(dirname "$0")" && pwd)
w=${1:-/tmp/f18}
bin=${REPRO_BIN:-$w/repro}
fail() {
	echo "repro: $*" >&2
	exit 2
}
mkdir -p "$w/mnt" || fail "cannot make $w/mnt"
[ -n "${REPRO_BIN:-}" ] || cc -O2 -o "$bin" "$here/repro.c" || fail "cannot compile repro.c"
xz -dc "$here/reiserfs-flipped.img.xz" >"$w/reiserfs.img" || fail "cannot unpack reiserfs-flipped.img.xz"
dev=$(losetup -f --show "$w/reiserfs.img") || fail "cannot attach $w/reiserfs.img to a loop device"
"$bin" "$dev" "$w/mnt"
rc=$?
grep -q " $w/mnt " /proc/mounts && umount "$w/mnt"
exit $rc
