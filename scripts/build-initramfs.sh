#!/bin/sh
# Build the guest agent (guest/agent/, a static riscv64 program) and pack
# the guest's initramfs: BUILD_DIR/guest/initramfs.cpio.gz, a gzip'd newc
# cpio archive holding /init (the agent) and the empty /dev /mnt /proc /sys;
# beside it, agent.map, the agent's symbols (for the guest profiler).
#
#   scripts/build-initramfs.sh [BUILD_DIR]     (BUILD_DIR defaults to build/)
#
# The archive is reproducible bit for bit: fixed mtimes, sorted entries,
# owner root, renumbered inodes, no device numbers, gzip without name or
# time. It is rebuilt only when the agent's sources, this script or the
# cross compiler changed (a hash of them is kept beside the archive).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:-$root/build}
mkdir -p "$bdir/guest"
bdir=$(cd "$bdir" && pwd)
cd "$root"

RVCC=${RVCC:-riscv64-linux-gnu-gcc}
out=$bdir/guest/initramfs.cpio.gz
stamp=$bdir/guest/initramfs.hash
agent=$bdir/guest/agent/init

# The tools: the cross compiler and its libc (a Recommends of the compiler,
# so not always there), cpio, gzip, and xxhash.h (libxxhash-dev: the agent
# uses it header-only, XXH_INLINE_ALL). Install only what is missing.
missing=""
for p in gcc-riscv64-linux-gnu libc6-dev-riscv64-cross libxxhash-dev cpio gzip; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "initramfs: installing$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

srcs=$(find guest/agent -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
shared=$(find src/proto -type f -name "*.h" | LC_ALL=C sort) # the contract the host shares
hash=$(
	{
		for f in $srcs $shared; do
			printf '%s\n' "$f"
			cat "$f"
		done
		cat scripts/build-initramfs.sh
		cat /usr/include/xxhash.h
		"$RVCC" --version | head -n 1
	} | sha256sum | cut -d' ' -f1
)
if [ -f "$out" ] && [ -f "$bdir/guest/agent.map" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
	echo "initramfs: $out is up to date"
	exit 0
fi

mkdir -p "$bdir/guest/agent"
csrcs=$(printf '%s\n' "$srcs" | grep '\.c$')
# The cross compiler does not search /usr/include; -idirafter lets it find
# the host's xxhash.h last, after its own libc headers. -flto in one
# partition: the agent's files inline into each other as one file would
# (the walk's helpers into the commands; guest instructions a state are
# the product's speed), and the program is the same bytes every build.
# shellcheck disable=SC2086
"$RVCC" -std=c17 -D_GNU_SOURCE -O2 -flto -flto-partition=one -Wall -Wextra -Werror -static \
	-march=rv64gc -mabi=lp64d -idirafter /usr/include -o "$agent.full" $csrcs
# Its symbols, in System.map's form, for the guest profiler (explore
# --profile-guest); the initramfs gets the stripped program.
"${RVCC%gcc}nm" -n "$agent.full" >"$bdir/guest/agent.map.tmp"
mv "$bdir/guest/agent.map.tmp" "$bdir/guest/agent.map"
"${RVCC%gcc}strip" -o "$agent" "$agent.full"

stage=$bdir/guest/initramfs.d
rm -rf "$stage"
mkdir -p "$stage"
for d in dev mnt proc sys; do
	mkdir "$stage/$d"
	chmod 0755 "$stage/$d"
done
cp "$agent" "$stage/init"
chmod 0755 "$stage" "$stage/init"
find "$stage" -exec touch -h -d @0 {} +

tmp=$out.tmp
(cd "$stage" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -n -9 >"$tmp"
mv "$tmp" "$out"
rm -rf "$stage"
printf '%s\n' "$hash" >"$stamp"
echo "initramfs: built $out ($(wc -c <"$out") bytes, sha256 $(sha256sum "$out" | cut -c1-16))"
