#!/bin/sh
# F3 (docs/findings.md): on f2fs, an O_SYNC write that extends a file to a
# block boundary, right after an O_SYNC write that left its size inside a
# block, is lost in a power cut: after roll-forward recovery the file has
# the first write's size. Run as root on a Linux machine with f2fs and
# loop devices, no Themis:
#   cc -O2 -o repro repro.c && REPRO_BIN=./repro sh repro.sh [WORKDIR]
# or under QEMU: scripts/repro-qemu.sh build/guest-x86/bzImage tests/repro/f3-f2fs-osync-size
# (tests/repro/test_repro.sh does, and on the fixed kernel too).
# Exit 1 REPRODUCED, 0 NOT REPRODUCED, 2 could not run.
#
# 1. on a fresh f2fs, N files, each: create, O_SYNC write of 4097 bytes
#    at 0, O_SYNC write of 4097 bytes at 4095 (8192 bytes);
# 2. the power cut: crash.img is the disk as the writes left it (the file
#    backing the loop device holds every write the kernel sent);
# 3. mount crash.img (roll-forward recovery) and count the files that are
#    not 8192 bytes long.
FSLIST="f2fs"
set -u
N=20
w=${1:-/tmp/f3-repro}
R=${REPRO_BIN:-./repro}
mkdir -p "$w/a" "$w/b" || exit 2
rm -f "$w/disk.img"
truncate -s 64M "$w/disk.img" || exit 2
mkfs.f2fs -q -f "$w/disk.img" >/dev/null || { echo "mkfs.f2fs failed"; exit 2; }
la=$(losetup -f --show "$w/disk.img") && mount -t f2fs "$la" "$w/a" || exit 2
"$R" pairs "$w/a" $N || exit 2
before=$("$R" short "$w/a" $N) || exit 2
echo "before the power cut: $before of $N files are not 8192 bytes long"
[ "$before" = 0 ] || { echo "the writes themselves went wrong: another problem"; exit 2; }
"$R" copy "$w/disk.img" "$w/crash.img" || exit 2
lb=$(losetup -f --show "$w/crash.img") || exit 2
if ! mount -t f2fs "$lb" "$w/b"; then
	echo "REPRODUCED: the crash disk does not mount"
	exit 1
fi
n=$("$R" short "$w/b" $N) || exit 2
echo "after the power cut and roll-forward recovery: $n of $N files are not 8192 bytes long"
if [ "$n" = 0 ]; then
	echo "NOT REPRODUCED"
	exit 0
fi
echo "REPRODUCED: $n files lost the second O_SYNC write"
exit 1
