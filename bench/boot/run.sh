#!/bin/sh
# Boot benchmark: power-on to the guest agent's ready, Themis against QEMU's
# TCG booting the same kernel and initramfs (no disks), run alternately.
#   bench/boot/run.sh [--rounds N] [--build DIR]
# Prints wall seconds (best of N, whole process) and instructions for each,
# and the ratio. Themis's count is its own (--stats); QEMU's comes from one
# extra untimed run with -icount shift=0, where minstret is exact and the
# agent prints it (themis.instret=1). QEMU's figures include OpenSBI and
# the agent's few instructions from ready to power-off; Themis has no
# firmware and stops at ready. Never fails on speed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 b=$top/build
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	*) echo "usage: bench/boot/run.sh [--rounds N] [--build DIR]" >&2; exit 2 ;;
	esac
done
for f in "$b/themis" "$b/guest/Image" "$b/guest/initramfs.cpio.gz"; do
	[ -e "$f" ] || { echo "boot bench: $f missing (run make)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

qemu() {
	qemu-system-riscv64 -M virt -m 256M -smp 1 -nographic -no-reboot "$@" \
		-kernel "$b/guest/Image" -initrd "$b/guest/initramfs.cpio.gz"
}

now() { date +%s.%N; }

best_t="" best_q=""
for r in $(seq "$rounds"); do
	t0=$(now)
	"$b/themis" boot --stats >"$work/themis.out" 2>&1 || { echo "themis boot failed" >&2; tail "$work/themis.out" >&2; exit 1; }
	t1=$(now)
	qemu -append "console=ttyS0 panic=-1" >"$work/qemu.out" 2>&1 || { echo "qemu failed" >&2; exit 1; }
	t2=$(now)
	grep -q 'agent ready' "$work/themis.out" || { echo "themis did not reach the agent" >&2; exit 1; }
	grep -aq '^ready themis-agent' "$work/qemu.out" || { echo "qemu did not reach the agent" >&2; exit 1; }
	tt=$(echo "$t1 - $t0" | bc) tq=$(echo "$t2 - $t1" | bc)
	echo "round $r: themis $tt s, qemu $tq s"
	[ -z "$best_t" ] || [ "$(echo "$tt < $best_t" | bc)" = 1 ] && best_t=$tt
	[ -z "$best_q" ] || [ "$(echo "$tq < $best_q" | bc)" = 1 ] && best_q=$tq
done
n_t=$(sed -n 's/^instructions //p' "$work/themis.out")
qemu -icount shift=0 -append "console=ttyS0 panic=-1 themis.instret=1" >"$work/qemu-icount.out" 2>&1 || true
n_q=$(tr -d '\r' <"$work/qemu-icount.out" | sed -n 's/^instret //p')
[ -n "$n_q" ] || n_q="?"
echo
printf '%-8s %14s %12s %10s\n' machine instructions "best s" MIPS
printf '%-8s %14s %12s %10.1f\n' themis "$n_t" "$best_t" "$(echo "$n_t / $best_t / 1000000" | bc -l)"
if [ "$n_q" != "?" ]; then
	printf '%-8s %14s %12s %10.1f\n' qemu "$n_q" "$best_q" "$(echo "$n_q / $best_q / 1000000" | bc -l)"
else
	printf '%-8s %14s %12s %10s\n' qemu "?" "$best_q" "?"
fi
printf 'wall-time ratio themis/qemu: %.2f (below 1: Themis boots faster)\n' "$(echo "$best_t / $best_q" | bc -l)"
