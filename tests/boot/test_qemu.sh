#!/bin/sh
# tier: fast
# The QEMU gate (tests/boot/qemu_compare.sh) on two pairs: ext4 and xfs,
# the default pair, and btrfs and f2fs, whose writes are the least alike;
# test_qemu_all.sh runs every pair.
#   tests/boot/test_qemu.sh [BUILD_DIR]
exec "$(dirname "$0")/qemu_compare.sh" "${1:-build}" ext4,xfs btrfs,f2fs
