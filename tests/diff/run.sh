#!/bin/sh
# CPU differential test: QEMU virt against `themis bare` (see README.md).
#   tests/diff/run.sh [--seeds A..B] [--sequences N] [--themis PATH | --qemu-only]
exec python3 "$(dirname "$0")/run.py" "$@"
