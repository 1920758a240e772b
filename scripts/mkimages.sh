#!/bin/sh
# Build the base disk images the checker and the tests boot with, one per
# filesystem, with Debian's mkfs tools:
#   scripts/mkimages.sh [BUILD_DIR] [FS...]      (default: build, all below)
# Images go to BUILD_DIR/images/FS.img, sparse, each with FS.img.mkfs, the
# line it was made by: an image is made again only when that line changes
# (a descriptor's new mkfs options), and otherwise only read: a run never
# writes a base image. The commands, sizes, fixed
# UUIDs and environment are each filesystem's descriptor's (src/fs), read
# from `themis fs --mkfs` (the one list; `themis repro` writes the same
# lines into its repro.sh). Every tool runs on a host made a constant
# (build/lib/mkfs-fixed.so, preloaded: src/mkfs/fixed_host.c): the clock
# frozen at the machine's clock base (2026-01-01T00:00:00Z, what boot and
# explore start at, so the root's times agree across filesystems at the
# start of a run), a fixed stream for randomness, pid 1 of a new pid
# namespace, no address randomization, a fixed environment and a relative
# file name. So an image is the same bytes on every machine and every run
# (tests/check/test_images.sh checks it), but for mkfs.jfs's log pages,
# which keep 4 bytes of its stack that still differ (docs/filesystems.md).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build}
[ $# -gt 0 ] && shift
themis=${THEMIS:-$top/build/themis}
if [ ! -x "$themis" ]; then
	echo "mkimages: $themis is missing (make build/themis builds it)" >&2
	exit 1
fi
table=$("$themis" fs --mkfs) || {
	echo "mkimages: '$themis fs --mkfs' failed" >&2
	exit 1
}
# A VAR=VALUE line's value, and the "MIB COMMAND" of a filesystem's line.
define() { printf '%s\n' "$table" | sed -n "s/^$1=//p"; }
entry() { printf '%s\n' "$table" | sed -n "s/^$1 \([0-9]*\) \(.*\)/\1 \2/p"; }
all=$(printf '%s\n' "$table" | sed -n 's/^\([a-z0-9]*\) [0-9]* .*/\1/p' | tr '\n' ' ')
want=${*:-$all}
mkdir -p "$out/images"
MKFS_UUID=$(define MKFS_UUID)
base_time=$(define MKFS_FAKETIME) # the instant FIXED_TIME is, as the .mkfs lines say it
[ -n "$MKFS_UUID" ] && [ -n "$base_time" ] && [ -n "$all" ] || {
	echo "mkimages: cannot read the mkfs list from '$themis fs --mkfs'" >&2
	exit 1
}

fixed=${THEMIS_MKFS_FIXED:-$top/build/lib/mkfs-fixed.so}
if [ ! -f "$fixed" ]; then
	echo "mkimages: $fixed is missing (make build/lib/mkfs-fixed.so builds it)" >&2
	exit 1
fi
# A pid namespace needs root (CAP_SYS_ADMIN): without one, gfs2's
# journal sequence differs from other machines' images.
pidns="unshare --pid --fork"
if ! $pidns true 2>/dev/null; then
	echo "mkimages: warning: no pid namespace ($pidns failed; not root?):" \
		"gfs2.img will differ from other machines' in its journal's sequence" >&2
	pidns=""
fi
MKFS_ENV=$(define MKFS_ENV) MKFS_HOST=$(define MKFS_HOST)
# FIXED_TIME is the instant the shim freezes mkfs's clock at.
printf '%s\n' $MKFS_ENV | grep -q '^FIXED_TIME=[0-9]' && [ -n "$MKFS_HOST" ] || {
	echo "mkimages: no FIXED_TIME in MKFS_ENV, or no MKFS_HOST, in '$themis fs --mkfs'" >&2
	exit 1
}

# fixed CMD...: CMD on the constant host (above), in a folder holding the
# library and the image. The same words as repro.sh's make_image
# (src/check/repro_sh_setup.inc), down to the library's relative name:
# the environment's strings sit on the stack, and mkfs.gfs2 and mkfs.jfs
# write stale stack bytes (pointers into it) to the disk.
fixed() {
	# shellcheck disable=SC2086 # word lists
	$pidns $MKFS_HOST $MKFS_ENV LD_PRELOAD=./mkfs-fixed.so "$@"
}

mkfs_one() { # mkfs_one FS FILE: the table's command, IMG being FILE
	cmd=$(entry "$1" | cut -d' ' -f2-)
	# shellcheck disable=SC2034 # used by the eval below
	name=$(basename "$2")
	case $cmd in
	*" IMG") (cd "$(dirname "$2")" && eval "fixed ${cmd% IMG} \"\$name\"") >/dev/null ;;
	*) echo "mkimages: unknown filesystem '$1' (known: $all)" >&2; return 2 ;;
	esac
}

size_of() { entry "$1" | cut -d' ' -f1; }

for fs in $want; do
	img="$out/images/$fs.img"
	made_by="$(entry "$fs") uuid $MKFS_UUID at $base_time on mkfs-fixed-2${pidns:+ pid 1}"
	[ -s "$img" ] && [ "$(cat "$img.mkfs" 2>/dev/null)" = "$made_by" ] && continue
	mk=$out/images/.mkfs
	rm -rf "$mk"
	mkdir -p "$mk" && cp "$fixed" "$mk/mkfs-fixed.so"
	truncate -s "$(size_of "$fs")M" "$mk/$fs.img.tmp"
	if ! mkfs_one "$fs" "$mk/$fs.img.tmp"; then
		rm -rf "$mk"
		echo "mkimages: mkfs for $fs failed" >&2
		exit 1
	fi
	mv "$mk/$fs.img.tmp" "$img"
	rm -rf "$mk"
	printf '%s\n' "$made_by" >"$img.mkfs"
	echo "mkimages: $img ($(size_of "$fs") MiB $fs)"
done
