#!/bin/sh
# Install the Debian packages Themis needs, only those missing. Idempotent;
# run as root (or with sudo available) on Debian 12.
set -eu
pkgs="gcc make libc6-dev libfdt-dev libxxhash-dev gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu
libc6-dev-riscv64-cross qemu-system-misc qemu-system-x86 libelf-dev python3 cpio gzip xz-utils bc flex bison
linux-source-6.1 linux-source-6.12 e2fsprogs e2fsck-static xfsprogs btrfs-progs f2fs-tools dosfstools exfatprogs jfsutils
nilfs-tools ntfs-3g udftools reiserfsprogs gfs2-utils ocfs2-tools mtools util-linux faketime libhiredis-dev redis-server libext2fs-dev comerr-dev libjansson-dev chromium
dmsetup"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
