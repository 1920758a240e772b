#!/usr/bin/env bash
# Where the hart loses or wins against QEMU: bench/cpu's kernels one at a
# time. Each kernel is built alone (bench.c with -DBENCH_ONLY=NAME), and so
# is an empty one (start-up alone); each ELF runs under QEMU (plain TCG)
# and `themis bare`, alternately, best of N rounds; a kernel's time is its
# run's minus the empty run's on the same machine. Both must print the
# same checksum. Prints each kernel's seconds and QEMU/Themis ratio (above
# 1: Themis is faster). Never fails on speed; 1 if a run fails or differs.
#   bench/cpu/kernels.sh [--rounds N] [--themis PATH]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
themis=$repo/build/themis rounds=3
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--themis) themis=$2; shift 2 ;;
	*) echo "usage: bench/cpu/kernels.sh [--rounds N] [--themis PATH]" >&2; exit 2 ;;
	esac
done
cc=${RISCV_CC:-riscv64-linux-gnu-gcc}
command -v "$cc" >/dev/null || { echo "kernels: no RISC-V compiler '$cc'" >&2; exit 2; }
[ -x "$themis" ] || { echo "kernels: no themis at $themis (make)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernels="none crc32 sort sieve memory chase interp search matmul nbody mandel"

now() { echo "${EPOCHREALTIME/,/.}"; }
# timed OUT CMD...: CMD's stdout (no carriage returns) into OUT; its seconds
timed() {
	local out=$1 t0 t1
	shift
	t0=$(now)
	"$@" </dev/null 2>&1 | tr -d '\r' >"$out" || { echo "kernels: $* failed" >&2; return 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}
smaller() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

declare -A tq tt
for k in $kernels; do
	"$cc" -O2 -march=rv64gc -mabi=lp64d -mcmodel=medany -ffreestanding -nostdlib \
		-nostartfiles -static -fno-pie -no-pie -Wl,--build-id=none -DBENCH_ONLY="$k" \
		-T "$here/link.ld" "$here/start.S" "$here/bench.c" -o "$work/$k.elf" ||
		{ echo "kernels: building $k failed" >&2; exit 1; }
	tq[$k]="" tt[$k]=""
	for _ in $(seq "$rounds"); do
		t=$(timed "$work/$k.q" qemu-system-riscv64 -M virt -bios none -nographic -kernel "$work/$k.elf")
		tq[$k]=$(smaller "${tq[$k]}" "$t")
		t=$(timed "$work/$k.t" "$themis" bare "$work/$k.elf")
		tt[$k]=$(smaller "${tt[$k]}" "$t")
	done
	# The kernel's checksum line, the same on both machines.
	[ "$k" = none ] || cmp -s <(grep "^$k 0x" "$work/$k.q") <(grep "^$k 0x" "$work/$k.t") ||
		{ echo "kernels: $k's checksums differ: $(grep "^$k " "$work/$k.q") / $(grep "^$k " "$work/$k.t")" >&2; exit 1; }
	grep -q "^$k 0x" "$work/$k.t" || [ "$k" = none ] || { echo "kernels: $k printed no checksum" >&2; exit 1; }
done

printf '%-8s %9s %9s %12s\n' kernel "qemu s" "themis s" "qemu/themis"
printf '%-8s %9.3f %9.3f %12s\n' start-up "${tq[none]}" "${tt[none]}" "-"
for k in $kernels; do
	[ "$k" = none ] && continue
	q=$(awk -v a="${tq[$k]}" -v b="${tq[none]}" 'BEGIN { printf "%.3f", a - b }')
	t=$(awk -v a="${tt[$k]}" -v b="${tt[none]}" 'BEGIN { printf "%.3f", a - b }')
	printf '%-8s %9s %9s %12.2f\n' "$k" "$q" "$t" "$(awk -v a="$q" -v b="$t" 'BEGIN { print a / b }')"
done
