#!/bin/sh
# tier: full
# timeout: 5400
# The long fuzz slices: every fuzzer over ten times its fast slice, on the
# seeds after it (tests/fuzz/test_fuzz.sh with FUZZ_SCALE=10).
#   tests/fuzz/test_fuzz_long.sh [BUILD_DIR]
FUZZ_SCALE=10 exec "$(dirname "$0")/test_fuzz.sh" "$@"
