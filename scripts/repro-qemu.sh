#!/bin/sh
# Run a reproducer that `themis repro` wrote (its repro.sh and repro.c)
# under qemu-system-x86_64, on a kernel built by
# `scripts/build-kernel.sh --arch x86_64` (build/guest-x86/bzImage[-NAME]):
# the proof that the reproducer shows a planted bug with no Themis in the
# way, on an ordinary PC's kernel.
#
#   scripts/repro-qemu.sh [--timeout SECONDS] [--tries N] BZIMAGE REPRO_DIR
#
# The initramfs is made of this machine's own Debian binaries (dash, the
# mkfs tools the reproducer names and the tools of its TOOLS line, mount, losetup, awk...; each copied with
# the shared libraries ldd lists, and /etc/mke2fs.conf, which decides
# ext2/3/4's features) and repro.c compiled here, statically, as REPRO_BIN.
# Its init runs repro.sh and prints "repro-exit N". The serial console is
# printed as it comes. Exit status: repro.sh's (0 NOT REPRODUCED,
# 1 REPRODUCED, 2 it could not run), or 2 when QEMU gave no verdict (a
# timeout, default 300 s, or a guest that died) or the usage was bad.
# Needs root only to make the initramfs's /dev/console node.
set -eu

usage() {
	echo "usage: $0 [--timeout SECONDS] [--tries N] BZIMAGE REPRO_DIR" >&2
	exit 2
}
fail() {
	echo "repro-qemu: $*" >&2
	exit 2
}

timeout=300
tries=1 # a crash reproducer's attempts (TRIES): one per fresh image
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
	--tries) [ $# -ge 2 ] || usage; tries=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -eu$/s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
kernel=$1 dir=$2
[ -f "$kernel" ] || fail "$kernel: no such kernel (scripts/build-kernel.sh --arch x86_64 builds it)"
[ -f "$dir/repro.sh" ] && [ -f "$dir/repro.c" ] || fail "$dir: no repro.sh and repro.c (themis repro writes them)"
case $timeout in '' | *[!0-9]*) fail "--timeout $timeout: not a number of seconds" ;; esac
case $tries in '' | *[!0-9]* | 0) fail "--tries $tries: a number of attempts, 1 or more" ;; esac
command -v qemu-system-x86_64 >/dev/null 2>&1 || fail "qemu-system-x86_64 is missing (scripts/deps.sh installs it)"
fslist=$(sed -n 's/^FSLIST="\(.*\)"$/\1/p' "$dir/repro.sh")
[ -n "$fslist" ] || fail "$dir/repro.sh: no FSLIST line"

root=$(mktemp -d "${TMPDIR:-/tmp}/repro-qemu.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/etc" "$root/repro"

# A binary as bin/NAME (mkfs.ext4 must keep its name: mke2fs reads it),
# and every shared library it needs at its own path.
add_bin() { # add_bin NAME
	p=$(command -v "$1") || fail "$1 is missing on this machine"
	cp -L "$p" "$root/bin/$1"
	add_libs "$p"
}
add_libs() { # add_libs FILE
	ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}
for t in sh mount umount losetup mkdir truncate cat awk rm dirname id sync sed grep ln; do add_bin "$t"; done
mkfs_tools=$(sed -n 's/^MKFS_TOOLS="\(.*\)"$/\1/p' "$dir/repro.sh")
for fs in $fslist; do
	tool=$(printf '%s\n' $mkfs_tools | sed -n "s/^$fs://p")
	add_bin "${tool:-mkfs.$fs}" # a reproducer written before MKFS_TOOLS: mkfs.FS
done
# Tools the reproducer names besides mkfs (TOOLS="jfs_fsck ...").
for t in $(sed -n 's/^TOOLS="\(.*\)"$/\1/p' "$dir/repro.sh"); do add_bin "$t"; done
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
if command -v faketime >/dev/null 2>&1; then
	add_bin faketime
	for l in /usr/lib/*/faketime/libfaketime.so.1; do
		[ -f "$l" ] || continue
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
		add_libs "$l"
	done
fi
cc -O2 -static -o "$root/repro/repro" "$dir/repro.c" || fail "cannot compile $dir/repro.c statically"
# The constant host repro.sh makes its images on (mkfs-fixed.c; a
# reproducer written before it has none, and falls back to faketime).
if [ -f "$dir/mkfs-fixed.c" ]; then
	cc -O2 -shared -fPIC -o "$root/repro/mkfs-fixed.so" "$dir/mkfs-fixed.c" -ldl ||
		fail "cannot compile $dir/mkfs-fixed.c"
	add_libs "$root/repro/mkfs-fixed.so"
	for t in env setarch unshare touch mv cp; do add_bin "$t"; done
fi
cp "$dir/repro.sh" "$dir/repro.c" "$root/repro/"
# A reproducer that needs a given disk (a corrupted image: tests/repro/f17-*)
# carries it as IMAGE.img.xz beside repro.sh, and names xz in its TOOLS.
for x in "$dir"/*.img.xz; do [ ! -f "$x" ] || cp "$x" "$root/repro/"; done
mknod "$root/dev/console" c 5 1 || fail "cannot make /dev/console (run as root)"
cat >"$root/init" <<'INIT'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm
mount -t tmpfs tmpfs /dev/shm # faketime's semaphores
ln -s /proc/mounts /etc/mtab  # as on any Linux (mkfs.nilfs2 reads it)
echo "repro-qemu: running repro.sh on $(cat /proc/sys/kernel/osrelease)"
REPRO_BIN=/repro/repro REPRO_MKFS_FIXED=/repro/mkfs-fixed.so TRIES=@TRIES@ sh /repro/repro.sh /tmp/w
echo "repro-exit $?"
INIT
sed -i "s/@TRIES@/$tries/" "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$root.cpio.gz"
trap 'rm -rf "$root" "$root.cpio.gz" "$root.log"' EXIT

# init ends by exiting: the kernel panics, panic=-1 reboots at once and
# -no-reboot makes that QEMU's exit.
timeout "$timeout" qemu-system-x86_64 -nographic -no-reboot -nic none -m 512 -kernel "$kernel" \
	-initrd "$root.cpio.gz" -append "console=ttyS0 panic=-1 quiet" </dev/null |
	tr -d '\r' | tee "$root.log"
rc=$(sed -n 's/^repro-exit \([0-9]*\)$/\1/p' "$root.log" | tail -n 1)
[ -n "$rc" ] || fail "no verdict from the guest (timeout ${timeout}s, or it died: console above)"
exit "$rc"
