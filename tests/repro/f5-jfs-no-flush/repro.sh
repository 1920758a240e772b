#!/bin/sh
# F5 (docs/findings.md): jfs never asks the disk to flush its write cache
# (no REQ_PREFLUSH, REQ_FUA or blkdev_issue_flush in fs/jfs), so on a disk
# with a volatile cache, as most are, nothing jfs writes is ever durable:
# not what fsync returned on, not what sync or an unmount wrote. Run as
# root on a Linux machine with jfs, ext4, jfsutils and loop devices, no
# Themis:
#   cc -O2 -o repro repro.c && REPRO_BIN=./repro sh repro.sh [WORKDIR]
# or under QEMU: scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f5-jfs-no-flush
# (tests/repro/test_repro.sh does).
# Exit 1 REPRODUCED, 0 NOT REPRODUCED, 2 could not run.
#
# 1. On each of ext4 and jfs: mkfs, mount on a loop device (which has a
#    write cache and counts the flushes it is sent: /proc/diskstats),
#    create f0, write 4 KiB, fsync, sync, unmount. ext4 is the control:
#    if it sent no flush, this kernel cannot show the bug (exit 2).
# 2. jfs sent none: the disk may lose any of the writes since the mount
#    at a power cut. old.img is the disk before the mount, new.img after
#    the unmount; each crash image is new.img with one block as old.img
#    has it (one write the cache lost), and is judged as a boot would:
#    jfs_fsck -p (the log replay; it says "clean" and checks nothing
#    more), jfs_fsck -n -f, a mount, f0's 4 KiB.
FSLIST="ext4 jfs"
TOOLS="jfs_fsck grep"
set -u
w=${1:-/tmp/f5-repro}
R=${REPRO_BIN:-./repro}
mkdir -p "$w/m" || exit 2

# io DEV: "WRITES FLUSHES" the block device completed (/proc/diskstats;
# a loop device's counts outlive its detach).
io() {
	awk -v d="${1#/dev/}" '$3 == d { print $8, $19 }' /proc/diskstats
}

# run FS: the calls on a fresh FS; prints "WRITES FLUSHES" from the mount
# to the end of the unmount.
run() {
	rm -f "$w/disk.img"
	truncate -s 64M "$w/disk.img" || return 2
	case $1 in
	jfs) mkfs.jfs -q "$w/disk.img" >/dev/null ;;
	*) mkfs."$1" -q "$w/disk.img" >/dev/null ;;
	esac || { echo "mkfs.$1 failed" >&2; return 2; }
	"$R" copy "$w/disk.img" "$w/old.img" || return 2
	l=$(losetup -f --show "$w/disk.img") || return 2
	before=$(io "$l")
	mount -t "$1" "$l" "$w/m" || return 2
	"$R" create-fsync "$w/m/f0" || return 2
	sync
	umount "$w/m" || return 2
	echo "$before $(io "$l")" | awk 'NF == 4 { print $3 - $1, $4 - $2 }'
	losetup -d "$l"
}

r=$(run ext4) || exit 2
# shellcheck disable=SC2086
set -- $r
[ $# -eq 2 ] || { echo "no /proc/diskstats line for the loop device"; exit 2; }
echo "ext4: create, write, fsync, sync, unmount: $1 writes, $2 cache flushes"
[ "$2" -gt 0 ] || {
	echo "ext4 sent no flush either: this loop device has no write cache to flush"
	exit 2
}
r=$(run jfs) || exit 2
# shellcheck disable=SC2086
set -- $r
echo "jfs:  create, write, fsync, sync, unmount: $1 writes, $2 cache flushes"
if [ "$2" -gt 0 ]; then
	echo "NOT REPRODUCED"
	exit 0
fi

# The crash images: one write lost from the cache each.
"$R" copy "$w/disk.img" "$w/new.img" || exit 2
n=$("$R" blocks "$w/old.img" "$w/new.img") || exit 2
bad=0 passed=0 i=0
while [ "$i" -lt "$n" ]; do
	at=$("$R" revert "$w/old.img" "$w/new.img" "$i" "$w/crash.img") || exit 2
	why=""
	jfs_fsck -p "$w/crash.img" >"$w/boot.log" 2>&1
	grep -q "logredo failed" "$w/boot.log" && why=" the log replay failed;"
	if ! jfs_fsck -n -f "$w/crash.img" >"$w/check.log" 2>&1; then
		why="$why jfs_fsck -n -f: $(grep -m 1 "^Incorrect data\|^Errors detected" "$w/check.log");"
	fi
	l=$(losetup -f --show "$w/crash.img") || exit 2
	if mount -t jfs "$l" "$w/m" 2>/dev/null; then
		"$R" check "$w/m/f0" 2>/dev/null || why="$why f0 or its 4 KiB lost;"
		umount "$w/m"
	else
		why="$why it does not mount;"
	fi
	losetup -d "$l"
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		grep -q "^Filesystem is clean" "$w/boot.log" && passed=$((passed + 1))
		echo "lose the write of $at:${why%;}"
	fi
	i=$((i + 1))
done
echo "$bad of the $n crash images that lose one write are damaged or lose f0;" \
	"a boot's jfs_fsck -p calls $passed of them clean"
echo "REPRODUCED: jfs sent no cache flush through fsync, sync and unmount"
exit 1
