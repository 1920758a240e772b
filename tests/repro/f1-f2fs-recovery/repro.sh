#!/bin/sh
# F1 (docs/findings.md): a power cut during f2fs's roll-forward recovery
# loses the file the recovery was bringing back. Run as root on a Linux
# machine with f2fs and loop devices, no Themis:
#   cc -O2 -o repro repro.c && REPRO_BIN=./repro sh repro.sh [WORKDIR]
# or under QEMU: scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f1-f2fs-recovery
# (tests/repro/test_repro.sh does, and on the fixed kernel too).
# Exit 1 REPRODUCED, 0 NOT REPRODUCED, 2 could not run.
#
# 1. create f0 and write 4096 bytes to it with O_SYNC on a fresh f2fs;
# 2. the power cut: crash.img is the disk as the write left it (the
#    file's backing the loop device holds every write the kernel sent);
# 3. mount a copy: the roll-forward recovery brings f0 back and writes
#    its checkpoint; rec.img is the disk then;
# 4. the power cut during that recovery, after its writes but before its
#    checkpoint: cut.img is rec.img with the checkpoint area of
#    crash.img (a prefix of the recovery's writes: f2fs writes the
#    checkpoint pack last);
# 5. mount cut.img: the recovery runs again, and must bring f0 back.
FSLIST="f2fs"
set -u
w=${1:-/tmp/f1-repro}
R=${REPRO_BIN:-./repro}
mkdir -p "$w/a" "$w/b" "$w/c" || exit 2
truncate -s 64M "$w/disk.img" || exit 2
mkfs.f2fs -q -f "$w/disk.img" >/dev/null || { echo "mkfs.f2fs failed"; exit 2; }
la=$(losetup -f --show "$w/disk.img") && mount -t f2fs "$la" "$w/a" || exit 2
"$R" osync-write "$w/a/f0" || exit 2
"$R" copy "$w/disk.img" "$w/crash.img" || exit 2
"$R" copy "$w/crash.img" "$w/rec.img" || exit 2
lb=$(losetup -f --show "$w/rec.img") && mount -t f2fs "$lb" "$w/b" || exit 2
first=$("$R" size "$w/b/f0")
echo "after the first recovery: f0 $first"
[ "$first" = 4096 ] || { echo "the first recovery did not bring f0 back: another problem"; exit 2; }
"$R" cut "$w/crash.img" "$w/rec.img" "$w/cut.img" || exit 2
lc=$(losetup -f --show "$w/cut.img") || exit 2
if ! mount -t f2fs "$lc" "$w/c"; then
	echo "REPRODUCED: the disk cut during recovery does not mount"
	exit 1
fi
again=$("$R" size "$w/c/f0")
echo "after a power cut during that recovery, and a second recovery: f0 $again"
if [ "$again" = 4096 ]; then
	echo "NOT REPRODUCED"
	exit 0
fi
echo "REPRODUCED: f0, written with O_SYNC and recovered once, is $again"
exit 1
