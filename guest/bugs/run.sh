#!/bin/sh
# Show the planted kernel bugs of guest/bugs/ on the Themis board, and that
# the plain kernel does not have them.
#
#   guest/bugs/run.sh [BUILD_DIR]        (BUILD_DIR defaults to build/)
#
# Needs BUILD_DIR/themis, BUILD_DIR/guest/Image, Image-ext4-meta,
# Image-ext4-data (scripts/build-kernel.sh [--patch guest/bugs/NAME]) and
# BUILD_DIR/images/{ext4,xfs}.img. Builds guest/bugs/bugtest.c into a
# throw-away initramfs, boots each kernel with an ext4 and an xfs disk,
# runs one exact operation sequence on both (bugtest.ops= on the kernel
# command line) and compares the two disks' fingerprints of t/, taken
# before the remount ("before") and after it ("after"). Every scenario
# states what it expects of each kernel; the script prints the
# differences, one line per scenario and kernel, and exits 1 when a
# kernel does not behave as expected.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${1:-$root/build}
bdir=$(cd "$bdir" && pwd)
RVCC=${RVCC:-riscv64-linux-gnu-gcc}

for f in "$bdir/themis" "$bdir/guest/Image" "$bdir/guest/Image-ext4-meta" \
	"$bdir/guest/Image-ext4-data" "$bdir/images/ext4.img" "$bdir/images/xfs.img"; do
	[ -f "$f" ] || {
		echo "bugs: missing $f" >&2
		exit 2
	}
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/stage"
"$RVCC" -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -s \
	-march=rv64gc -mabi=lp64d -o "$tmp/stage/init" "$root/guest/bugs/bugtest.c"
(cd "$tmp/stage" && echo init | cpio --quiet -o -H newc -R 0:0) | gzip -n >"$tmp/initramfs.cpio.gz"

# run KERNEL OPS OUT: boot, run OPS on both disks, keep the output.
run() {
	"$bdir/themis" boot --kernel "$1" --initrd "$tmp/initramfs.cpio.gz" \
		--disk "$bdir/images/ext4.img" --disk "$bdir/images/xfs.img" \
		--append "bugtest.ops=$2" --script >"$3" 2>&1 || {
		echo "bugs: boot failed, last lines:" >&2
		tail -n 20 "$3" >&2
		exit 1
	}
	grep -q '^bugtest done' "$3" || {
		echo "bugs: the sequence did not finish:" >&2
		tail -n 20 "$3" >&2
		exit 1
	}
}

# differs OUT LABEL: "same" or "DIFFERS", and the ext4/xfs lines that differ.
differs() {
	sed -n "s/^fp0 $2 //p" "$1" >"$1.ext4"
	sed -n "s/^fp1 $2 //p" "$1" >"$1.xfs"
	[ -s "$1.ext4" ] || {
		echo "bugs: no fingerprint $2 in $1" >&2
		exit 1
	}
	if cmp -s "$1.ext4" "$1.xfs"; then
		echo same
	else
		echo DIFFERS
		diff "$1.ext4" "$1.xfs" | sed -n "s/^< /    $2 ext4: /p; s/^> /    $2 xfs:  /p" >>"$1.diff"
	fi
}

status=0
n=0
# scenario NAME OPS EXPECT-PLAIN EXPECT-META EXPECT-DATA, each expectation
# "before/after" with same or DIFFERS.
scenario() {
	echo "== $1: $2"
	for k in plain:$3 ext4-meta:$4 ext4-data:$5; do
		kname=${k%%:*}
		want=${k#*:}
		img=$bdir/guest/Image
		[ "$kname" = plain ] || img=$bdir/guest/Image-$kname
		n=$((n + 1))
		o=$tmp/out$n
		run "$img" "$2" "$o"
		got="$(differs "$o" before)/$(differs "$o" after)"
		verdict=ok
		[ "$got" = "$want" ] || {
			verdict="UNEXPECTED (wanted $want)"
			status=1
		}
		printf '   %-10s before/after remount: %-15s %s\n' "$kname" "$got" "$verdict"
		[ ! -f "$o.diff" ] || cat "$o.diff"
		rm -f "$o.diff"
	done
}

# The metadata bug: a directory renamed over an empty directory leaves its
# new parent with one link too many, at once and on disk.
scenario rename-dir-over-dir-same-parent \
	mkdir:t,mkdir:t/p,mkdir:t/q,rename:t/p:t/q,fp:before,remount,fp:after \
	same/same DIFFERS/DIFFERS same/same
scenario rename-dir-over-dir-other-parent \
	mkdir:t,mkdir:t/d,mkdir:t/d/x,mkdir:t/y,rename:t/y:t/d/x,fp:before,remount,fp:after \
	same/same DIFFERS/DIFFERS same/same
# The same moves without a victim: right on every kernel.
scenario rename-dir-no-victim \
	mkdir:t,mkdir:t/d,mkdir:t/p,rename:t/p:t/q,mkdir:t/y,rename:t/y:t/d/x,fp:before,remount,fp:after \
	same/same same/same same/same

# The data bug: an extending write that ends exactly at the end of an
# allocated block (not at a page end) leaves the on-disk size behind:
# right in the page cache, short after the remount, fsync or not.
scenario append-to-block-end \
	mkdir:t,create:t/f,write:t/f:0:100:1,fsync:t/f,write:t/f:100:924:2,fp:before,remount,fp:after \
	same/same same/same same/DIFFERS
scenario append-to-block-end-fsynced \
	mkdir:t,create:t/f,write:t/f:0:1500:1,sync,write:t/f:1500:548:2,fsync:t/f,fp:before,remount,fp:after \
	same/same same/same same/DIFFERS
# One byte short of the block end, or past it into a new block: right.
scenario append-not-at-block-end \
	mkdir:t,create:t/f,write:t/f:0:100:1,fsync:t/f,write:t/f:100:923:2,create:t/g,write:t/g:0:100:1,fsync:t/g,write:t/g:100:925:2,fp:before,remount,fp:after \
	same/same same/same same/same

if [ "$status" -eq 0 ]; then
	echo "bugs: every kernel behaved as expected"
else
	echo "bugs: some kernel did not behave as expected"
fi
exit "$status"
