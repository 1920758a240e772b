#!/bin/sh
# F19 (docs/findings.md): ocfs2's setxattr and write take ip_alloc_sem and
# a transaction in opposite orders; lockdep reports it. This runs repro.c
# as PID 1 under qemu-system-riscv64 (-M virt, one hart) on a riscv64
# kernel with lockdep (scripts/build-kernel.sh --debug=lockdep --version
# 6.12, or --debug for 6.1), with ocfs2.img.xz as its disk: the base image
# scripts/mkimages.sh makes (mkfs.ocfs2 -M local -N 1).
#
#   sh repro.sh KERNEL [WORKDIR]
# Exit status: 1 REPRODUCED, 0 NOT REPRODUCED, 2 it could not run.
set -u
[ $# -ge 1 ] || { echo "usage: $0 KERNEL [WORKDIR]" >&2; exit 2; }
kernel=$1
here=$(cd "$(dirname "$0")" && pwd)
w=${2:-$(mktemp -d "${TMPDIR:-/tmp}/f19.XXXXXX")}
fail() {
	echo "repro: $*" >&2
	exit 2
}
[ -f "$kernel" ] || fail "$kernel: no such kernel"
command -v qemu-system-riscv64 >/dev/null || fail "qemu-system-riscv64 is missing"
mkdir -p "$w/root" || fail "cannot make $w/root"
riscv64-linux-gnu-gcc -O2 -static -o "$w/root/init" "$here/repro.c" ||
	fail "cannot compile repro.c (riscv64-linux-gnu-gcc, static)"
(cd "$w/root" && echo init | cpio -o -H newc --quiet) >"$w/initramfs.cpio" || fail "cannot make the initramfs"
xz -dc "$here/ocfs2.img.xz" >"$w/ocfs2.img" || fail "cannot unpack ocfs2.img.xz"
timeout 900 qemu-system-riscv64 -M virt -m 256M -smp 1 -nographic -no-reboot -kernel "$kernel" \
	-initrd "$w/initramfs.cpio" -append "console=ttyS0 panic=-1" \
	-drive file="$w/ocfs2.img",if=none,format=raw,id=d0 -device virtio-blk-device,drive=d0 \
	</dev/null 2>&1 | tr -d '\r' | tee "$w/qemu.log" | grep -a "^REPRODUCED\|^NOT REPRODUCED\|^the kernel:\|^repro"
rc=$(sed -n 's/^repro-exit \([0-9]*\)$/\1/p' "$w/qemu.log" | tail -n 1)
[ -n "$rc" ] || fail "no verdict from the guest (console: $w/qemu.log)"
exit "$rc"
