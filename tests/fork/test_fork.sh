#!/bin/sh
# tier: fast
# 6.12: fast
# The whole-machine fork on a real Linux guest (tests/fork/test_fork.c:
# seeded nested forks and restores over filesystem work, each restore
# back to its fork's hash): 1000 sequences on 6.1; 200 on the kernel
# THEMIS_KERNEL names (6.12's memory habits), when set.
#   tests/fork/test_fork.sh [BUILD_DIR]
set -u
b=${1:-build}
if [ -n "${THEMIS_KERNEL:-}" ]; then
	exec "$b/test_fork" "$b" 200 1 "$THEMIS_KERNEL"
fi
exec "$b/test_fork" "$b" 1000
