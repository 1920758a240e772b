#!/bin/sh
# tier: fast
# The bare-metal ISA programs (tests/isa/*.S, built into BUILD_DIR/isa)
# on `themis bare` and on its sanitizer build: every program must pass
# (tests/isa/run.sh: its tohost verdict).
#   tests/isa/test_isa.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
for t in "$themis" "$b/asan/themis"; do
	if "$top/tests/isa/run.sh" "$b/isa" -- "$t" bare >"$work/isa.out" 2>&1; then
		ok "$(tail -n 1 "$work/isa.out") on ${t#"$b"/}"
	else
		fail "ISA programs on ${t#"$b"/}:"
		grep -v '^PASS' "$work/isa.out" | tail -n 12 | sed 's/^/    /'
	fi
done
finish test_isa
