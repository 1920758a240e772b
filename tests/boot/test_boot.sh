#!/bin/sh
# tier: fast
# Booting Linux on the Themis board: determinism, the clock and seed axes,
# the agent's script with fsck-clean disks, and every kind of bad input.
#   tests/boot/test_boot.sh [BUILD_DIR]     (default: build)
# Needs BUILD_DIR/themis, BUILD_DIR/guest/{Image,initramfs.cpio.gz} and
# BUILD_DIR/images/{ext4,xfs}.img (make guest).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$top/build}
themis=$b/themis
img=$b/images
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib.sh"



hash_of() { sha256sum "$1" | cut -d' ' -f1; }

disks="--disk $img/ext4.img --disk $img/xfs.img"
base_ext4=$(hash_of "$img/ext4.img")
base_xfs=$(hash_of "$img/xfs.img")

# 1. Two boots with the same arguments: byte-identical consoles (timestamps
#    included) and identical RAM at the agent's ready; the timer raised at
#    its deadline every time (no run outran it).
for i in 1 2; do
	"$themis" boot $disks --stats >"$work/boot$i" 2>&1 || fail "boot $i exited $?"
done
grep -v '^wall-seconds\|^mips' "$work/boot1" >"$work/b1"
grep -v '^wall-seconds\|^mips' "$work/boot2" >"$work/b2"
if cmp -s "$work/b1" "$work/b2" && grep -q '^ram-hash ' "$work/b1" && grep -q 'agent ready' "$work/b1" &&
	grep -q '^timer-late 0$' "$work/b1"; then
	ok "two boots: identical console and $(grep '^ram-hash' "$work/b1")"
else
	fail "two boots differ:"
	diff "$work/b1" "$work/b2" | head -n 10
fi

# 1b. The same boot interpreted (THEMIS_INTERPRET=1: no translation cache)
#     is the same machine: identical console, clock and RAM at the ready.
THEMIS_INTERPRET=1 "$themis" boot $disks --stats >"$work/boot-interp" 2>&1 ||
	fail "interpreted boot exited $?"
grep -v '^wall-seconds\|^mips' "$work/boot-interp" >"$work/bi"
if cmp -s "$work/b1" "$work/bi"; then
	ok "interpreted and compiled boots: identical console and $(grep '^ram-hash' "$work/bi")"
else
	fail "the interpreted boot differs from the compiled one:"
	diff "$work/b1" "$work/bi" | head -n 10
fi

# 2. A different seed reaches the agent with different RAM (the hash sees
#    the machine), and the wall clock is the one asked for.
"$themis" boot $disks --stats --seed 7 >"$work/seed7" 2>&1 || fail "boot --seed 7"
if [ "$(grep '^ram-hash' "$work/seed7")" != "$(grep '^ram-hash' "$work/b1")" ]; then
	ok "--seed 7 changes the RAM hash"
else
	fail "--seed 7 left the RAM hash unchanged"
fi
expect 0 "setting system clock to 2038-01-19T03:1" -- "$themis" boot --clock 2038-01-19T03:14:00Z
expect 0 "setting system clock to 2026-01-01T00:00" -- "$themis" boot

# 3. The agent's script, then fsck on what the guest left on the disks.
mkdir -p "$work/saved"
expect 0 "powered off" -- "$themis" boot $disks --script --save-disks "$work/saved"
grep -q '^script done' "$work/out" || fail "the agent's script did not finish"
e2fsck -fn "$work/saved/disk0.img" >"$work/fsck0" 2>&1 && ok "e2fsck -fn: clean" ||
	{ fail "e2fsck on the saved ext4 disk"; tail -n 5 "$work/fsck0"; }
xfs_repair -n "$work/saved/disk1.img" >"$work/fsck1" 2>&1 && ok "xfs_repair -n: clean" ||
	{ fail "xfs_repair on the saved xfs disk"; tail -n 5 "$work/fsck1"; }
[ "$(hash_of "$img/ext4.img")" = "$base_ext4" ] && [ "$(hash_of "$img/xfs.img")" = "$base_xfs" ] &&
	ok "base images untouched" || fail "a base image was written"
cmp -s "$img/ext4.img" "$work/saved/disk0.img" && fail "the saved disk shows no writes"

# 3b. The sanitizer build (ASan + UBSan) boots Linux and runs the script
#     with real virtio traffic: any out-of-bounds access or undefined
#     behaviour in the hart, the devices or the disks aborts it.
asan=$b/asan/themis
"$asan" boot --kernel "$b/guest/Image" --initrd "$b/guest/initramfs.cpio.gz" $disks --script \
	>"$work/asan" 2>&1 && grep -q '^script done' "$work/asan" &&
	ok "the ASan+UBSan build boots Linux and runs the agent's script clean" ||
	{ fail "the sanitizer build's boot:"; tail -n 8 "$work/asan"; }

# 4. Bad input: a clear message, a nonzero status, nothing half done.
head -c 100000 /dev/urandom >"$work/garbage"
printf 'short' >"$work/tiny"
head -c 1000 /dev/zero >"$work/odd.img"
expect 2 "missing is not built" -- "$themis" boot --kernel "$work/missing"
# A kernel not built yet names the command that builds it, from its name:
# a planted bug's or a fix's folder, on either version; a bare name is
# BUILD_DIR/guest/Image-NAME (the script's last line says what to pass).
# (A copy of themis in a build folder of no kernels, beside the guest/.)
mkdir -p "$work/k/guest"
cp "$themis" "$work/k/themis"
ln -s "$top/guest" "$work/guest"
expect 2 "Image-6.12-jfs-flush is not built; build it with:" -- \
	"$work/k/themis" boot --kernel "$work/k/guest/Image-6.12-jfs-flush"
grep -q "^  scripts/build-kernel.sh --version 6.12 --patch guest/fixes/jfs-flush build$" "$work/out" ||
	fail "no build command for Image-6.12-jfs-flush: $(cat "$work/out")"
expect 2 "build it with:" -- "$work/k/themis" boot --kernel ext4-link3
grep -q "^  scripts/build-kernel.sh --patch guest/bugs/ext4-link3 build$" "$work/out" &&
	grep -q "k/guest/Image-ext4-link3 is not built" "$work/out" ||
	fail "--kernel ext4-link3 is not read as BUILD_DIR/guest/Image-ext4-link3: $(cat "$work/out")"
expect 2 "build it with:" -- "$work/k/themis" boot --kernel 6.12
grep -q "^  scripts/build-kernel.sh --version 6.12 build$" "$work/out" ||
	fail "no build command for --kernel 6.12: $(cat "$work/out")"
expect 2 "not a RISC-V Linux Image" -- "$themis" boot --kernel "$work/garbage"
expect 2 "too short to be a Linux Image" -- "$themis" boot --kernel "$work/tiny"
expect 2 "initrd-missing" -- "$themis" boot --initrd "$work/initrd-missing"
expect 2 "not a multiple of 512" -- "$themis" boot --disk "$work/odd.img"
expect 2 "missing-disk.img" -- "$themis" boot --disk "$work/missing-disk.img"
expect 2 "too many disks" -- "$themis" boot $disks $disks $disks $disks --disk "$img/ext4.img"
expect 2 "unknown option" -- "$themis" boot --frobnicate
expect 2 "needs YYYY-MM-DD" -- "$themis" boot --clock yesterday
expect 2 "needs a size" -- "$themis" boot --mem 3
expect 1 "kernel panic" -- "$themis" boot --initrd ""
grep -q "Kernel panic - not syncing" "$work/out" || fail "the panic report lacks the panic line"
expect 1 "instruction budget exhausted" -- "$themis" boot --max-insns 5000000

finish boot
