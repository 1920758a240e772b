#!/usr/bin/env bash
# CPU benchmark: Themis against QEMU (plain TCG) on the same bare-metal ELF.
#
# Builds bench/cpu/bench.c, counts its instructions exactly once (QEMU with
# -icount, untimed), then times it under
#   qemu-system-riscv64 -M virt -bios none -nographic -kernel bench.elf
#   build/themis bare bench.elf
# alternately for N rounds, checks that every run printed the same
# checksums, and prints machine, instructions, best seconds, MIPS and the
# themis/QEMU MIPS ratio. See bench/README.md.
#
# Exit status: 0 when every run passed and all checksums agree (however slow),
# 1 on a checksum mismatch or a failed run, 2 on a usage or setup error.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/cpu/run.sh [options]
  --themis PATH   the emulator to time (default: build/themis of this repo)
  --qemu-only     time QEMU alone (until build/themis exists)
  --rounds N      timed runs per machine, best one counts (default 3)
  --work DIR      build and keep outputs in DIR (default: a temporary dir,
                  removed at the end); inside the repo only under build/bench/
  --timeout S     seconds before one run counts as failed (default 900)
  --cc CC         RISC-V C compiler (default: $RISCV_CC or
                  riscv64-linux-gnu-gcc)
  --qemu PATH     QEMU system emulator (default: $QEMU or
                  qemu-system-riscv64)
  -h, --help      this text
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

themis="$repo/build/themis"
qemu_only=0
rounds=3
work=""
run_timeout=900
cc=${RISCV_CC:-riscv64-linux-gnu-gcc}
qemu=${QEMU:-qemu-system-riscv64}

die() {
	echo "run.sh: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--themis) [ $# -ge 2 ] || die "--themis needs a path"; themis=$2; shift 2 ;;
	--themis=*) themis=${1#*=}; shift ;;
	--qemu-only) qemu_only=1; shift ;;
	--rounds) [ $# -ge 2 ] || die "--rounds needs a number"; rounds=$2; shift 2 ;;
	--rounds=*) rounds=${1#*=}; shift ;;
	--work) [ $# -ge 2 ] || die "--work needs a directory"; work=$2; shift 2 ;;
	--work=*) work=${1#*=}; shift ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; run_timeout=$2; shift 2 ;;
	--timeout=*) run_timeout=${1#*=}; shift ;;
	--cc) [ $# -ge 2 ] || die "--cc needs a compiler"; cc=$2; shift 2 ;;
	--cc=*) cc=${1#*=}; shift ;;
	--qemu) [ $# -ge 2 ] || die "--qemu needs a path"; qemu=$2; shift 2 ;;
	--qemu=*) qemu=${1#*=}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
done

case "$rounds" in '' | *[!0-9]* | 0) die "--rounds must be a positive integer" ;; esac
case "$run_timeout" in '' | *[!0-9]* | 0) die "--timeout must be a positive integer" ;; esac

command -v "$cc" >/dev/null 2>&1 || die "no RISC-V compiler '$cc' (apt-get install gcc-riscv64-linux-gnu)"
command -v "$qemu" >/dev/null 2>&1 || die "no '$qemu' (apt-get install qemu-system-misc)"
command -v timeout >/dev/null 2>&1 || die "no 'timeout' (coreutils)"
if [ "$qemu_only" = 0 ]; then
	if [ ! -x "$themis" ]; then
		die "no executable themis at '$themis' (build it, pass --themis PATH, or use --qemu-only)"
	fi
	themis=$(cd "$(dirname "$themis")" && pwd)/$(basename "$themis")
fi

# The work directory: a temporary one unless --work; never the source tree.
if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/themis-bench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
else
	work=$(realpath -m -- "$work")
	repo_real=$(realpath -- "$repo")
	case "$work/" in
	"$repo_real/build/bench/"*) ;;
	"$repo_real/"*) die "--work inside the repo must be under build/bench/" ;;
	esac
	mkdir -p "$work"
fi

# ---------------------------------------------------------------- build
elf="$work/bench.elf"
cflags=(-O2 -march=rv64gc -mabi=lp64d -mcmodel=medany -ffreestanding
	-nostdlib -nostartfiles -static -fno-pie -no-pie "-Wl,--build-id=none"
	-Wall -Wextra)
if ! "$cc" "${cflags[@]}" -T "$here/link.ld" "$here/start.S" "$here/bench.c" \
	-o "$elf" >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	die "build failed"
fi
# QEMU -bios none jumps to 0x80000000 whatever the ELF says: check it is
# the entry (e_entry, 8 bytes at offset 24 of the ELF header).
entry=$(od -An -tx8 -j24 -N8 "$elf" | tr -d ' \n')
[ "$entry" = "0000000080000000" ] || die "bench.elf entry is 0x$entry, not 0x80000000"

# ---------------------------------------------------------------- runs
now() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		echo "${EPOCHREALTIME/,/.}"
	else
		date +%s.%N
	fi
}

# run NAME OUTFILE CMD...: runs CMD with no input, its stdout (carriage
# returns removed) into OUTFILE, stderr into OUTFILE.err; sets run_secs and
# run_rc.
run() {
	local name=$1 out=$2
	shift 2
	local t0 t1
	t0=$(now)
	set +e
	timeout "$run_timeout" "$@" </dev/null >"$out.raw" 2>"$out.err"
	run_rc=$?
	set -e
	t1=$(now)
	tr -d '\r' <"$out.raw" >"$out"
	run_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	if [ "$run_rc" = 124 ]; then
		echo "  $name: timed out after ${run_timeout}s" >&2
	fi
}

# checksums FILE: the "<kernel> 0x<16 hex>" lines, in order.
checksums() {
	grep -E '^[a-z0-9_]+ 0x[0-9a-f]{16}$' "$1" || true
}

# instret FILE: the number on the "instret <n>" line (empty if none).
instret_of() {
	sed -n 's/^instret \([0-9][0-9]*\)$/\1/p' "$1" | tail -n 1
}

# check NAME OUTFILE: the run passed (exit 0, a header, checksums, instret)
# and its checksums equal the reference. Prints why not; returns 1 if not.
check() {
	local name=$1 out=$2
	if [ "$run_rc" != 0 ]; then
		echo "FAIL: $name exited with status $run_rc" >&2
		tail -n 5 "$out" "$out.err" >&2 || true
		return 1
	fi
	if ! grep -q '^themis-bench cpu ' "$out" || [ -z "$(instret_of "$out")" ]; then
		echo "FAIL: $name did not print the whole report" >&2
		tail -n 5 "$out" "$out.err" >&2 || true
		return 1
	fi
	checksums "$out" >"$out.sums"
	if ! cmp -s "$work/reference.sums" "$out.sums"; then
		echo "FAIL: $name checksums differ from the reference, QEMU -icount (< reference, > $name)" >&2
		diff "$work/reference.sums" "$out.sums" >&2 || true
		return 1
	fi
	return 0
}

qemu_cmd=("$qemu" -M virt -bios none -nographic -kernel "$elf")
themis_cmd=("$themis" bare "$elf")

echo "themis CPU benchmark: $rounds round(s), work dir ${work##*/}"
echo "  compiler: $("$cc" --version | head -n 1)"
echo "  qemu:     $("$qemu" --version | head -n 1)"
[ "$qemu_only" = 1 ] || echo "  themis:   $themis"

# The count: plain TCG's minstret is a host clock, not a count, so the exact
# number comes from one untimed run with -icount shift=0 (there minstret
# counts retired instructions). Its checksums are the reference.
run "qemu -icount" "$work/count.out" "${qemu_cmd[@]}" -icount shift=0
if [ "$run_rc" != 0 ] || [ -z "$(instret_of "$work/count.out")" ]; then
	echo "FAIL: the counting run (QEMU -icount shift=0) failed, status $run_rc" >&2
	tail -n 5 "$work/count.out" "$work/count.out.err" >&2 || true
	exit 1
fi
checksums "$work/count.out" >"$work/reference.sums"
count=$(instret_of "$work/count.out")
nsums=$(wc -l <"$work/reference.sums")
[ "$nsums" -gt 0 ] || { echo "FAIL: the counting run printed no checksums" >&2; exit 1; }
echo "  instructions (QEMU -icount): $count, $nsums kernel checksums"

failed=0
qemu_best="" themis_best="" themis_count="" qemu_ok=1 themis_ok=1
qemu_times="" themis_times=""
best() { # best CURRENT NEW -> the smaller
	if [ -z "$1" ]; then echo "$2"; else awk -v a="$1" -v b="$2" 'BEGIN { print (b < a) ? b : a }'; fi
}

for ((r = 1; r <= rounds; r++)); do
	if [ "$qemu_ok" = 1 ]; then
		run qemu "$work/qemu.$r.out" "${qemu_cmd[@]}"
		if check "qemu (round $r)" "$work/qemu.$r.out"; then
			qemu_best=$(best "$qemu_best" "$run_secs")
			qemu_times="$qemu_times $run_secs"
			echo "  round $r  qemu    ${run_secs}s"
		else
			qemu_ok=0 failed=1
		fi
	fi
	if [ "$qemu_only" = 0 ] && [ "$themis_ok" = 1 ]; then
		run themis "$work/themis.$r.out" "${themis_cmd[@]}"
		if check "themis (round $r)" "$work/themis.$r.out"; then
			themis_best=$(best "$themis_best" "$run_secs")
			themis_times="$themis_times $run_secs"
			n=$(instret_of "$work/themis.$r.out")
			if [ -n "$themis_count" ] && [ "$n" != "$themis_count" ]; then
				echo "WARNING: themis instret changed between runs: $themis_count, $n" >&2
			fi
			themis_count=$n
			echo "  round $r  themis  ${run_secs}s"
		else
			themis_ok=0 failed=1
		fi
	fi
done

if [ -n "$themis_count" ] && [ "$themis_count" != "$count" ]; then
	echo "WARNING: themis counted $themis_count instructions, QEMU -icount $count" \
		"(same program, so one minstret is wrong)" >&2
fi

# ---------------------------------------------------------------- table
mips() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n / s / 1e6 }'; }

echo
printf '%-8s %14s %10s %10s %12s\n' machine instructions "best s" MIPS "vs QEMU"
qemu_mips=""
if [ -n "$qemu_best" ]; then
	qemu_mips=$(mips "$count" "$qemu_best")
	printf '%-8s %14s %10s %10s %12s\n' qemu "$count" "$qemu_best" "$qemu_mips" 1.000
else
	printf '%-8s %14s %10s %10s %12s\n' qemu "$count" FAILED - -
fi
if [ "$qemu_only" = 0 ]; then
	if [ -n "$themis_best" ]; then
		themis_mips=$(mips "$themis_count" "$themis_best")
		ratio=-
		if [ -n "$qemu_mips" ]; then
			ratio=$(awk -v a="$themis_mips" -v b="$qemu_mips" 'BEGIN { printf "%.3f", a / b }')
		fi
		printf '%-8s %14s %10s %10s %12s\n' themis "$themis_count" "$themis_best" "$themis_mips" "$ratio"
	else
		printf '%-8s %14s %10s %10s %12s\n' themis - FAILED - -
	fi
fi
echo
echo "instructions: minstret from the program's instret line (QEMU's from the"
echo "  -icount run: plain TCG's minstret is a host clock); MIPS = instructions"
echo "  / best wall seconds of the whole process; vs QEMU = MIPS / QEMU's MIPS"
echo "runs (s): qemu${qemu_times:- none}${themis_times:+; themis$themis_times}"
if [ "$failed" = 0 ]; then
	echo "checksums: all runs agree ($nsums kernels)"
else
	echo "checksums: FAILED (see above)"
fi
exit "$failed"
