#!/bin/sh
# F4 (docs/findings.md): on nilfs2, fsync (or fdatasync) of a newly
# created, empty file writes nothing: after a power cut the file is gone.
# Run as root on a Linux machine with nilfs2, nilfs-tools and loop
# devices, no Themis:
#   cc -O2 -o repro repro.c && REPRO_BIN=./repro sh repro.sh [WORKDIR]
# or under QEMU: scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f4-nilfs2-fsync-new
# (tests/repro/test_repro.sh does).
# Exit 1 REPRODUCED, 0 NOT REPRODUCED, 2 could not run.
#
# 1. mkfs.nilfs2, mount; create f0 and fsync it; create f1 and fdatasync
#    it (each call returned 0: each file is durable);
# 2. the power cut: crash.img is the disk as the calls left it (the file
#    backing the loop device holds every write the kernel sent);
# 3. mount crash.img (nilfs2 recovers from its last checkpoint and log).
FSLIST="nilfs2"
TOOLS="ls ln"
set -u
w=${1:-/tmp/f4-repro}
R=${REPRO_BIN:-./repro}
mkdir -p "$w/a" "$w/b" || exit 2
rm -f "$w/disk.img"
# mkfs.nilfs2 reads the mount table (a bare initramfs has none)
[ -e /etc/mtab ] || ln -s /proc/mounts /etc/mtab 2>/dev/null
truncate -s 160M "$w/disk.img" || exit 2
mkfs.nilfs2 -q -f "$w/disk.img" >/dev/null || { echo "mkfs.nilfs2 failed"; exit 2; }
la=$(losetup -f --show "$w/disk.img") && mount -t nilfs2 "$la" "$w/a" || exit 2
"$R" create-fsync "$w/a/f0" || exit 2
"$R" create-fdatasync "$w/a/f1" || exit 2
"$R" copy "$w/disk.img" "$w/crash.img" || exit 2
lb=$(losetup -f --show "$w/crash.img") || exit 2
if ! mount -t nilfs2 "$lb" "$w/b"; then
	echo "REPRODUCED: the crash disk does not mount"
	exit 1
fi
# shellcheck disable=SC2046
echo "after the power cut, the root holds:" $(ls "$w/b")
lost=""
[ -e "$w/b/f0" ] || lost="$lost f0 (fsync)"
[ -e "$w/b/f1" ] || lost="$lost f1 (fdatasync)"
if [ -z "$lost" ]; then
	echo "NOT REPRODUCED"
	exit 0
fi
echo "REPRODUCED: lost after the power cut:$lost"
exit 1
