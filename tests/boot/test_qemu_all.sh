#!/bin/sh
# tier: full
# 6.12: full
# The QEMU gate (tests/boot/qemu_compare.sh) on every pair: all eleven
# filesystems of scripts/mkimages.sh, under both machines.
#   tests/boot/test_qemu_all.sh [BUILD_DIR]
exec "$(dirname "$0")/qemu_compare.sh" "${1:-build}"
