#!/bin/sh
# Boot benchmark: Themis against QEMU's TCG running the same kernel and
# initramfs, run alternately. Two figures:
#
#   bench/boot/run.sh [--rounds N] [--build DIR]
#       power-on to the guest agent's ready (no disks): wall seconds (best
#       of N, whole process) for each, and the ratio.
#
#   bench/boot/run.sh --work N [--fs FS,FS] [--rounds R] [--build DIR]
#       a Linux workload: both machines boot with the base images of FS
#       (default ext4,xfs) and the agent runs N pseudo-random operations
#       per disk (themis.work=1,N: writes, fsyncs, renames, unlinks...,
#       work.c), unmounts and powers off. Each machine also runs the same
#       with 0 operations; the workload's time is T(N) - T(0) on each.
#       Themis runs the guest's own code (THEMIS_GUEST_CODE=1: no CRC or
#       memset on the host) so that both execute the same instructions;
#       the line "themis, host functions" is the default machine, what a
#       user gets (fewer instructions for the same work). QEMU's disks
#       are cache=unsafe (its flushes reach no host disk), as Themis's
#       disks live in its memory: the figure is the machines', not the
#       host's storage.
#
# Instructions are Themis's own exact count (the agent's rdinstret at
# ready and at power-off, themis.instret=1), used for both machines: they
# run the same kernel, initramfs and seeded work, and the agents must
# report the same results. QEMU cannot count them: under -icount its
# minstret is the virtual clock, which also runs while the guest idles
# (waiting for a disk, or a timer in the boot): 77.6 M at ready with
# shift=0, 604 M with shift=3. QEMU's figures include OpenSBI; Themis has
# no firmware. Never fails on speed; exits 1 if a run fails or the two
# machines' agents report different work results.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 b=$top/build work="" fslist=ext4,xfs
usage="usage: bench/boot/run.sh [--rounds N] [--build DIR] [--work N [--fs FS,FS]]"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--build) b=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--fs) fslist=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
for f in "$b/themis" "$b/guest/Image" "$b/guest/initramfs.cpio.gz"; do
	[ -e "$f" ] || { echo "boot bench: $f missing (run make)" >&2; exit 2; }
done
work_dir=$(mktemp -d)
trap 'rm -rf "$work_dir"' EXIT

qemu() {
	qemu-system-riscv64 -M virt -m 256M -smp 1 -nographic -no-reboot "$@" \
		-kernel "$b/guest/Image" -initrd "$b/guest/initramfs.cpio.gz"
}

now() { date +%s.%N; }
min() { [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ] && echo "$2" || echo "$1"; }
# instret WHEN FILE: the agent's count at WHEN (ready, poweroff)
instret() { tr -d '\r' <"$2" | sed -n "s/^instret $1 \([0-9]*\)\$/\1/p" | tail -n 1; }

if [ -z "$work" ]; then
	best_t="" best_q=""
	for r in $(seq "$rounds"); do
		t0=$(now)
		"$b/themis" boot --stats >"$work_dir/themis.out" 2>&1 || { echo "themis boot failed" >&2; tail "$work_dir/themis.out" >&2; exit 1; }
		t1=$(now)
		qemu -append "console=ttyS0 panic=-1" >"$work_dir/qemu.out" 2>&1 || { echo "qemu failed" >&2; exit 1; }
		t2=$(now)
		grep -q 'agent ready' "$work_dir/themis.out" || { echo "themis did not reach the agent" >&2; exit 1; }
		grep -aq '^ready themis-agent' "$work_dir/qemu.out" || { echo "qemu did not reach the agent" >&2; exit 1; }
		tt=$(echo "$t1 - $t0" | bc) tq=$(echo "$t2 - $t1" | bc)
		echo "round $r: themis $tt s, qemu $tq s"
		best_t=$(min "$best_t" "$tt") best_q=$(min "$best_q" "$tq")
	done
	n_t=$(sed -n 's/^instructions //p' "$work_dir/themis.out")
	echo
	printf '%-8s %14s %12s %10s\n' machine instructions "best s" MIPS
	for m in themis qemu; do
		t=$best_t
		[ $m = qemu ] && t=$best_q
		printf '%-8s %14s %12s %10.1f\n' $m "$n_t" "$t" "$(echo "$n_t / $t / 1000000" | bc -l)"
	done
	printf 'wall-time ratio themis/qemu: %.2f (below 1: Themis boots faster)\n' "$(echo "$best_t / $best_q" | bc -l)"
	exit 0
fi

# --- the workload -------------------------------------------------------
case $work in '' | *[!0-9]*) echo "boot bench: --work takes a number of operations" >&2; exit 2 ;; esac
tdisks="" qdisks="" i=0
for fs in $(echo "$fslist" | tr ',' ' '); do
	[ -f "$b/images/$fs.img" ] || { echo "boot bench: $b/images/$fs.img missing (run make)" >&2; exit 2; }
	tdisks="$tdisks --disk $b/images/$fs.img"
	qdisks="$qdisks -drive file=$work_dir/q$i.img,if=none,format=raw,cache=unsafe,id=d$i -device virtio-blk-device,drive=d$i"
	i=$((i + 1))
done

# run MACHINE N OUT: one run of the workload with N operations;
# prints its wall seconds. MACHINE: themis (the guest's code), themis-host
# (host functions on) or qemu. QEMU gets fresh copies of the base images.
run() {
	m=$1 n=$2 out=$3
	args="themis.work=1,$n themis.instret=1"
	t0=$(now)
	case $m in
	themis)
		# shellcheck disable=SC2086
		THEMIS_GUEST_CODE=1 "$b/themis" boot $tdisks --script --append "$args" >"$out" 2>&1 ;;
	themis-host)
		# shellcheck disable=SC2086
		"$b/themis" boot $tdisks --script --append "$args" >"$out" 2>&1 ;;
	qemu)
		j=0
		for fs in $(echo "$fslist" | tr ',' ' '); do
			cp "$b/images/$fs.img" "$work_dir/q$j.img"
			j=$((j + 1))
		done
		t0=$(now)
		# shellcheck disable=SC2086
		qemu $qdisks -append "console=ttyS0 panic=-1 themis.fs=$fslist $args" >"$out" 2>&1 ;;
	esac || { echo "boot bench: $m with $n operations failed:" >&2; tail -n 5 "$out" >&2; exit 1; }
	t1=$(now)
	tr -d '\r' <"$out" | grep -q '^script done' || { echo "boot bench: $m with $n operations did not finish its work:" >&2; tail -n 5 "$out" >&2; exit 1; }
	echo "$t1 - $t0" | bc
}

# The agents' own results: each disk's count of operations that succeeded.
results() { tr -d '\r' <"$1" | grep '^work '; }

# best MACHINE N: the name of the variable with MACHINE's best time at N
best() { echo "best_$(echo "$1" | tr - _)_$2"; }
echo "workload: $work operations on each of $fslist, best of $rounds rounds"
for n in 0 "$work"; do
	for m in themis themis-host qemu; do eval "$(best $m "$n")=''"; done
done
for r in $(seq "$rounds"); do
	line="round $r:"
	for n in 0 "$work"; do
		for m in themis themis-host qemu; do
			t=$(run "$m" "$n" "$work_dir/$m-$n.out") || exit 1
			var=$(best $m "$n")
			eval "$var=\$(min \"\$$var\" \"\$t\")"
			line="$line $m/$n ${t}s"
		done
	done
	echo "$line"
done
for m in themis themis-host; do
	results "$work_dir/themis-$work.out" >"$work_dir/want"
	results "$work_dir/$m-$work.out" | cmp -s - "$work_dir/want" ||
		{ echo "boot bench: $m's work results differ from themis's" >&2; exit 1; }
done
results "$work_dir/qemu-$work.out" | cmp -s - "$work_dir/want" ||
	{ echo "boot bench: QEMU's work results differ from Themis's:" >&2; results "$work_dir/qemu-$work.out" >&2; cat "$work_dir/want" >&2; exit 1; }

echo
printf '%-22s %14s %10s %10s\n' machine "work instr" "work s" MIPS
# row NAME MACHINE COUNT: a machine's figures, COUNT the Themis run whose
# instructions the work took
row() {
	i0=$(instret ready "$work_dir/$3-$work.out") iN=$(instret poweroff "$work_dir/$3-$work.out")
	j0=$(instret ready "$work_dir/$3-0.out") jN=$(instret poweroff "$work_dir/$3-0.out")
	t0=$(eval echo "\$$(best "$2" 0)") tN=$(eval echo "\$$(best "$2" "$work")")
	di=$((iN - i0 - (jN - j0))) dt=$(echo "$tN - $t0" | bc)
	printf '%-22s %14s %10.3f %10.1f\n' "$1" "$di" "$dt" "$(echo "$di / $dt / 1000000" | bc -l)"
	eval "dt_$(echo "$2" | tr - _)=$dt"
}
dt_qemu="" dt_themis="" dt_themis_host="" # set by row
row themis themis themis
row "themis, host functions" themis-host themis-host
row qemu qemu themis
printf 'work time qemu/themis: %.2f (the guest'"'"'s code), %.2f (host functions); above 1: Themis is faster\n' \
	"$(echo "$dt_qemu / $dt_themis" | bc -l)" "$(echo "$dt_qemu / $dt_themis_host" | bc -l)"
