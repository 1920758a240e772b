#!/bin/sh
# Show the planted kernel bugs of guest/bugs/ on the Themis board, and that
# the plain kernel does not have them.
#
#   guest/bugs/run.sh [BUILD_DIR]        (BUILD_DIR defaults to build/)
#
# Needs BUILD_DIR/themis, BUILD_DIR/guest/Image and Image-NAME for every
# planted bug below (scripts/build-kernel.sh [--patch guest/bugs/NAME]) and
# BUILD_DIR/images/{ext4,xfs}.img. Builds guest/bugs/bugtest.c into a
# throw-away initramfs, boots each kernel with an ext4 and an xfs disk,
# runs one exact operation sequence on both (bugtest.ops= on the kernel
# command line) and compares the two disks' fingerprints of t/, taken
# in the live view ("before") and after the page cache is gone ("after":
# after a remount, or after sync and drop_caches). Every scenario states
# what it expects of each kernel; the script prints the differences, one
# line per scenario and kernel, and exits 1 when a kernel does not behave
# as expected.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${1:-$root/build}
bdir=$(cd "$bdir" && pwd)
RVCC=${RVCC:-riscv64-linux-gnu-gcc}

# The kernels, in the order of each scenario's expectations.
kernels="plain ext4-meta ext4-data ext4-link3 ext4-tail"

for f in "$bdir/themis" "$bdir/guest/Image" "$bdir/images/ext4.img" "$bdir/images/xfs.img" \
	$(for k in $kernels; do [ "$k" = plain ] || echo "$bdir/guest/Image-$k"; done); do
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
# scenario NAME OPS EXPECT..., one expectation a kernel of $kernels (in
# that order), each "before/after" with same or DIFFERS.
scenario() {
	sname=$1
	ops=$2
	shift 2
	# shellcheck disable=SC2086 # one word a kernel
	[ $# -eq "$(echo $kernels | wc -w)" ] || {
		echo "bugs: scenario $sname: $# expectations for kernels $kernels" >&2
		exit 2
	}
	echo "== $sname: $ops"
	for kname in $kernels; do
		want=$1
		shift
		img=$bdir/guest/Image
		[ "$kname" = plain ] || img=$bdir/guest/Image-$kname
		n=$((n + 1))
		o=$tmp/out$n
		run "$img" "$ops" "$o"
		got="$(differs "$o" before)/$(differs "$o" after)"
		verdict=ok
		[ "$got" = "$want" ] || {
			verdict="UNEXPECTED (wanted $want)"
			status=1
		}
		printf '   %-10s before/after: %-15s %s\n' "$kname" "$got" "$verdict"
		[ ! -f "$o.diff" ] || cat "$o.diff"
		rm -f "$o.diff"
	done
}

# The metadata bug: a directory renamed over an empty directory leaves its
# new parent with one link too many, at once and on disk.
scenario rename-dir-over-dir-same-parent \
	mkdir:t,mkdir:t/p,mkdir:t/q,rename:t/p:t/q,fp:before,remount,fp:after \
	same/same DIFFERS/DIFFERS same/same same/same same/same
scenario rename-dir-over-dir-other-parent \
	mkdir:t,mkdir:t/d,mkdir:t/d/x,mkdir:t/y,rename:t/y:t/d/x,fp:before,remount,fp:after \
	same/same DIFFERS/DIFFERS same/same same/same same/same
# The same moves without a victim: right on every kernel.
scenario rename-dir-no-victim \
	mkdir:t,mkdir:t/d,mkdir:t/p,rename:t/p:t/q,mkdir:t/y,rename:t/y:t/d/x,fp:before,remount,fp:after \
	same/same same/same same/same same/same same/same

# The data bug: an extending write that ends exactly at the end of an
# allocated block (not at a page end) leaves the on-disk size behind:
# right in the page cache, short after the remount, fsync or not.
scenario append-to-block-end \
	mkdir:t,create:t/f,write:t/f:0:100:1,fsync:t/f,write:t/f:100:924:2,fp:before,remount,fp:after \
	same/same same/same same/DIFFERS same/same same/same
scenario append-to-block-end-fsynced \
	mkdir:t,create:t/f,write:t/f:0:1500:1,sync,write:t/f:1500:548:2,fsync:t/f,fp:before,remount,fp:after \
	same/same same/same same/DIFFERS same/same same/same
# One byte short of the block end, or past it into a new block: right.
scenario append-not-at-block-end \
	mkdir:t,create:t/f,write:t/f:0:100:1,fsync:t/f,write:t/f:100:923:2,create:t/g,write:t/g:0:100:1,fsync:t/g,write:t/g:100:925:2,fp:before,remount,fp:after \
	same/same same/same same/same same/same same/same

# The link-count bug: a file's third name (second link) is not counted,
# at once and on disk. Directories and a file's first link are right.
scenario link-link \
	mkdir:t,create:t/f0,link:t/f0:t/f1,link:t/f0:t/f2,fp:before,remount,fp:after \
	same/same same/same same/same DIFFERS/DIFFERS same/same
scenario link-link-other-dir \
	mkdir:t,mkdir:t/d,create:t/f0,link:t/f0:t/d/f1,link:t/d/f1:t/f2,unlink:t/f0,fp:before,remount,fp:after \
	same/same same/same same/same DIFFERS/DIFFERS same/same
scenario link-once-and-subdirs \
	mkdir:t,create:t/f0,link:t/f0:t/f1,mkdir:t/a,mkdir:t/b,mkdir:t/c,rename:t/c:t/a/c,fp:before,remount,fp:after \
	same/same same/same same/same same/same same/same

# The truncate-tail bug: a truncate to the middle of a cached, clean
# block leaves its old tail on disk. The live view is right; once the page
# cache is gone (drop_caches or a remount), growing the file again shows
# the old bytes.
scenario truncate-tail-drop-caches \
	mkdir:t,create:t/f,write:t/f:0:4096:1,fsync:t/f,truncate:t/f:1,truncate:t/f:4096,fp:before,dropcaches,fp:after \
	same/same same/same same/same same/same same/DIFFERS
scenario truncate-tail-remount \
	mkdir:t,create:t/f,write:t/f:0:4096:1,fsync:t/f,truncate:t/f:1,truncate:t/f:4096,fp:before,remount,fp:after \
	same/same same/same same/same same/same same/DIFFERS
scenario truncate-tail-sync-write \
	mkdir:t,create:t/f,write:t/f:0:3000:1,sync,truncate:t/f:1500,write:t/f:2500:10:2,fp:before,dropcaches,fp:after \
	same/same same/same same/same same/same same/DIFFERS
# A dirty page (not synced before the truncate), a truncate to a block
# boundary, or a file that is not grown again: right.
scenario truncate-tail-not-synced \
	mkdir:t,create:t/f,write:t/f:0:4096:1,truncate:t/f:1,truncate:t/f:4096,fp:before,dropcaches,fp:after \
	same/same same/same same/same same/same same/same
scenario truncate-to-block-end-or-not-grown \
	mkdir:t,create:t/f,write:t/f:0:4096:1,create:t/g,write:t/g:0:4096:1,sync,truncate:t/f:1024,truncate:t/f:4096,truncate:t/g:1,fp:before,dropcaches,fp:after \
	same/same same/same same/same same/same same/same

if [ "$status" -eq 0 ]; then
	echo "bugs: every kernel behaved as expected"
else
	echo "bugs: some kernel did not behave as expected"
fi
exit "$status"
