#!/bin/sh
# Boot the guest kernel and the agent's initramfs under QEMU (no doorbell:
# the agent runs its script by itself) on fresh disk images, one per
# filesystem type, and check: the script ran on every disk, QEMU powered
# off by itself, the filesystems' checkers find them clean, and a second
# run prints the same agent lines word for word.
#
#   guest/agent/test-qemu.sh [BUILD_DIR] [TYPE,TYPE,...]
#       (defaults: build/ and ext4,xfs; types: ext4 xfs btrfs vfat exfat)
#
# Needs BUILD_DIR/guest/Image (the guest kernel); builds the initramfs.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${1:-$root/build}
types=${2:-ext4,xfs}
"$root/scripts/build-initramfs.sh" "$bdir"
bdir=$(cd "$bdir" && pwd)
kernel=$bdir/guest/Image
initrd=$bdir/guest/initramfs.cpio.gz
[ -f "$kernel" ] || { echo "test-qemu: no kernel $kernel" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Tools for each type, installed when missing.
need=""
for t in $(echo "$types" | tr ',' ' '); do
	case $t in
	ext4) p=e2fsprogs ;;
	xfs) p=xfsprogs ;;
	btrfs) p=btrfs-progs ;;
	vfat) p=dosfstools ;;
	exfat) p=exfatprogs ;;
	*) echo "test-qemu: unknown type $t" >&2; exit 2 ;;
	esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
command -v qemu-system-riscv64 >/dev/null || need="$need qemu-system-misc"
if [ -n "$need" ]; then
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
fi

mkimages() {
	i=0
	for t in $(echo "$types" | tr ',' ' '); do
		img=$work/disk$i.img
		rm -f "$img"
		# btrfs wants >= 114 MiB (two 52 MiB metadata chunks and some).
		case $t in
		btrfs) truncate -s 128M "$img" ;;
		*) truncate -s 64M "$img" ;;
		esac
		case $t in
		btrfs) mkfs.btrfs -q "$img" >/dev/null ;;
		ext4) mkfs.ext4 -q "$img" ;;
		# xfsprogs refuses < 300 MB except for fstests, which it spots so.
		xfs) TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q "$img" ;;
		vfat) mkfs.vfat "$img" >/dev/null ;;
		exfat) mkfs.exfat "$img" >/dev/null ;;
		esac
		i=$((i + 1))
	done
}

runqemu() { # $1: log file
	drives=""
	i=0
	for _t in $(echo "$types" | tr ',' ' '); do
		drives="$drives -drive file=$work/disk$i.img,if=none,format=raw,id=d$i"
		drives="$drives -device virtio-blk-device,drive=d$i"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	timeout 600 qemu-system-riscv64 -M virt -m 256M -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 themis.fs=$types" $drives \
		</dev/null >"$1" 2>&1
}

fsck_all() {
	i=0
	ok=0
	for t in $(echo "$types" | tr ',' ' '); do
		img=$work/disk$i.img
		case $t in
		ext4) c="e2fsck -fn" ;;
		xfs) c="xfs_repair -n" ;;
		btrfs) c="btrfs check --readonly" ;;
		vfat) c="fsck.vfat -n" ;;
		exfat) c="fsck.exfat -n" ;;
		esac
		if $c "$img" >"$work/fsck.log" 2>&1; then
			echo "fsck $t ($c): clean"
		else
			echo "fsck $t ($c): FAILED"
			cat "$work/fsck.log"
			ok=1
		fi
		i=$((i + 1))
	done
	return $ok
}

fail=0
for run in 1 2; do
	mkimages
	if ! runqemu "$work/run$run.log"; then
		echo "test-qemu: run $run: QEMU did not power off by itself (or failed)"
		fail=1
	fi
	# The agent's lines: from its first on, less the kernel's ([ time ] ...).
	tr -d '\r' <"$work/run$run.log" | sed -n '/^themis-agent: /,$p' |
		grep -v -e '^\[' -e '^$' >"$work/agent$run.txt" || true
	fsck_all || fail=1
done
cat "$work/agent1.txt"
grep -q '^script done$' "$work/agent1.txt" || { echo "test-qemu: no 'script done'"; fail=1; }
grep -q '^poweroff$' "$work/agent1.txt" || { echo "test-qemu: no 'poweroff'"; fail=1; }
if grep -q '^fatal' "$work/agent1.txt"; then echo "test-qemu: fatal error"; fail=1; fi
if grep -q 'Kernel panic' "$work/run1.log" "$work/run2.log"; then echo "test-qemu: kernel panic"; fail=1; fi
n=$(echo "$types" | tr ',' '\n' | grep -c .)
s=$(grep -c '^script vd' "$work/agent1.txt" || true)
[ "$s" -eq "$n" ] || { echo "test-qemu: script ran on $s disks of $n"; fail=1; }
if ! diff "$work/agent1.txt" "$work/agent2.txt"; then
	echo "test-qemu: the two runs differ"
	fail=1
fi
if [ $fail -ne 0 ]; then
	echo "test-qemu: FAILED; the first console log:"
	cat "$work/run1.log"
	exit 1
fi
echo "test-qemu: $types: passed"
