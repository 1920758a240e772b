#!/bin/sh
# F2 (docs/findings.md): after `create f0; sync` on a fresh jfs and a power
# cut, jfs's log replay fails ("logredo failed (rc=-274)"), jfs_fsck
# still marks the filesystem clean, and the kernel refuses to mount it
# ("Log Is Dirty"). Run as root on a Linux machine with jfs, jfsutils and
# loop devices, no Themis:
#   cc -O2 -o repro repro.c && REPRO_BIN=./repro sh repro.sh [WORKDIR]
# or under QEMU: scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f2-jfs-logredo
# (tests/repro/test_repro.sh does).
# Exit 1 REPRODUCED, 0 NOT REPRODUCED, 2 could not run.
#
# 1. mkfs.jfs, mount, create f0, sync;
# 2. the power cut: crash.img is the disk as sync left it (the file
#    backing the loop device holds every write the kernel sent);
# 3. the boot's recovery: jfs_fsck --replay_journal_only crash.img, as a
#    distribution's fsck.jfs does before mounting a jfs not unmounted;
# 4. mount crash.img.
FSLIST="jfs"
TOOLS="jfs_fsck grep cat ls"
set -u
w=${1:-/tmp/f2-repro}
R=${REPRO_BIN:-./repro}
mkdir -p "$w/a" "$w/b" "$w/c" || exit 2
rm -f "$w/disk.img"
truncate -s 64M "$w/disk.img" || exit 2
mkfs.jfs -q "$w/disk.img" >/dev/null || { echo "mkfs.jfs failed"; exit 2; }
la=$(losetup -f --show "$w/disk.img") && mount -t jfs "$la" "$w/a" || exit 2
"$R" create "$w/a/f0" || exit 2
sync
"$R" copy "$w/disk.img" "$w/crash.img" || exit 2
"$R" copy "$w/crash.img" "$w/boot.img" || exit 2
jfs_fsck --replay_journal_only "$w/crash.img" >"$w/replay.log" 2>&1
echo "jfs_fsck --replay_journal_only: exit $?"
cat "$w/replay.log"
# What a boot does: fsck.jfs -p (replay, and a full check if it failed).
jfs_fsck -p "$w/boot.img" >"$w/boot.log" 2>&1
echo "jfs_fsck -p (a boot's fsck) on another copy: exit $?"
cat "$w/boot.log"
lc=$(losetup -f --show "$w/boot.img") || exit 2
if mount -t jfs "$lc" "$w/c"; then
	echo "after jfs_fsck -p the disk mounts; f0: $(ls "$w/c" | grep -c '^f0$')"
	umount "$w/c"
else
	echo "after jfs_fsck -p the disk does not mount either"
fi
lb=$(losetup -f --show "$w/crash.img") || exit 2
if ! mount -t jfs "$lb" "$w/b"; then
	echo "REPRODUCED: the replayed disk does not mount"
	exit 1
fi
if grep -q "logredo failed" "$w/replay.log"; then
	echo "REPRODUCED: the log replay failed, though the disk mounts"
	exit 1
fi
[ -e "$w/b/f0" ] || { echo "REPRODUCED: f0, created before sync, is missing"; exit 1; }
echo "NOT REPRODUCED"
exit 0
