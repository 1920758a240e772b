#!/usr/bin/env bash
# Run every bare-metal ISA test program in a directory on a machine.
#
#   tests/isa/run.sh ELF_DIR -- CMD [ARGS...]
#
# runs `CMD ARGS... ELF` for each ELF_DIR/*.elf (in name order, one at a
# time), e.g.
#   tests/isa/run.sh build/isa -- build/themis bare
#   tests/isa/run.sh build/isa -- qemu-system-riscv64 -M spike -bios none \
#       -nographic -kernel
# The exit status of CMD is the tohost verdict: 0 = pass, n = sub-test n
# failed. Each program gets ISA_TIMEOUT seconds (default 60; generous so a
# loaded 2-core machine does not turn slowness into failures), then TERM
# and, 5 s later, KILL. Prints `PASS name` or `FAIL name (sub-test N)` per
# program (followed by the tail of its output on failure) and a closing
# `isa: N passed, M failed` line. Exit status: 0 only if every program
# passed (and there was at least one); 1 otherwise; 2 on a usage error.
set -u
export LC_ALL=C

usage() {
	echo "usage: $0 ELF_DIR -- CMD [ARGS...]" >&2
	exit 2
}

[ $# -ge 3 ] || usage
dir=$1
[ "$2" = "--" ] || usage
shift 2
cmd=("$@")

if [ ! -d "$dir" ]; then
	echo "$0: $dir: not a directory" >&2
	exit 2
fi
if ! command -v "${cmd[0]}" >/dev/null 2>&1; then
	echo "$0: ${cmd[0]}: command not found or not executable" >&2
	exit 2
fi
if ! command -v timeout >/dev/null 2>&1; then
	echo "$0: timeout (coreutils) is required" >&2
	exit 2
fi

limit=${ISA_TIMEOUT:-60}
case $limit in
'' | *[!0-9]* | 0)
	echo "$0: ISA_TIMEOUT must be a positive number of seconds" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/isa-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
elfs=("$dir"/*.elf)
if [ ${#elfs[@]} -eq 0 ]; then
	echo "$0: no *.elf in $dir" >&2
	echo "isa: 0 passed, 0 failed"
	exit 1
fi

pass=0
fail=0
for elf in "${elfs[@]}"; do
	name=$(basename "$elf" .elf)
	log=$tmp/$name.log
	start=$(date +%s)
	timeout -k 5 "$limit" "${cmd[@]}" "$elf" </dev/null >"$log" 2>&1
	st=$?
	elapsed=$(($(date +%s) - start))
	if [ $st -eq 0 ]; then
		echo "PASS $name"
		pass=$((pass + 1))
		continue
	fi
	fail=$((fail + 1))
	# 124 (TERM) or 137 (KILL) after the limit: a timeout. A program that
	# fails sub-test 124 or 137 does so well before the limit.
	if { [ $st -eq 124 ] || [ $st -eq 137 ]; } && [ "$elapsed" -ge "$limit" ]; then
		echo "FAIL $name (timeout after ${limit} s)"
	else
		echo "FAIL $name (sub-test $st)"
	fi
	if [ -s "$log" ]; then
		tail -n 20 "$log" | sed 's/^/  | /'
	fi
done

echo "isa: $pass passed, $fail failed"
[ $fail -eq 0 ]
