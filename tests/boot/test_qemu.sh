#!/bin/sh
# tier: fast
# 6.12: full
# The QEMU gate (tests/boot/qemu_compare.sh) on every pair: all eleven
# filesystems of scripts/mkimages.sh, under both machines (about 20 s).
#   tests/boot/test_qemu.sh [BUILD_DIR]
exec "$(dirname "$0")/qemu_compare.sh" "${1:-build}"
