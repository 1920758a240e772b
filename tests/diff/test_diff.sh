#!/bin/sh
# tier: fast
# The CPU differential gate (tests/diff/README.md): random RV64GC programs
# run under QEMU's virt machine and `themis bare` must end with the same
# registers and memory.
#   tests/diff/test_diff.sh [BUILD_DIR]
set -u
b=${1:-build}
exec "$(dirname "$0")/run.sh" --themis "$b/themis" --no-qemu-quirks
