#!/bin/sh
# tier: fast
# 6.12: fast
# Power cuts on a real Linux guest from C (tests/check/test_crash.c over
# src/lens/crash.c): every crash state of create; O_SYNC write; create
# mounts, recovers to a state the operations passed through, and keeps
# what O_SYNC promised; the machine after the crashes is the one before.
#   tests/check/test_crash_machine.sh [BUILD_DIR]
set -u
b=${1:-build}
exec "$b/test_crash" "$b"
