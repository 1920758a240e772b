#!/bin/sh
# tier: fast
# The base images are the same bytes on every machine and every run
# (scripts/mkimages.sh on the constant host of src/mkfs/fixed_host.c): a
# trace names its images by hash, and a finding reproduces only on the
# image it was found on (F15's crash states changed with mkfs.gfs2's pid).
# Properties guarded:
#   - every filesystem's image, made twice from nothing, is byte for byte
#     the same, and the same as the build's (the images every other test
#     runs on), but for jfs's log, where mkfs.jfs writes pages from a
#     stack buffer it never clears (mangled pointers of its own run): its
#     differences lie inside the log the superblock names (s_logpxd), and
#     nowhere else;
#   - an image's .mkfs line names the constant host, so an image made
#     before it is made again.
#   tests/check/test_images.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"

mk() { # mk DIR: every image into DIR/images
	THEMIS=$themis THEMIS_MKFS_FIXED=$b/lib/mkfs-fixed.so \
		"$top/scripts/mkimages.sh" "$1" >"$1.out" 2>&1
}

# jfs_log_blocks IMG: "FIRST END" of the log's 4 KiB blocks (superblock
# at 32 KiB, s_logpxd at 72: a 24-bit length, then the address's 8 high
# bits and 32 low bits).
jfs_log_blocks() {
	# shellcheck disable=SC2046 # two numbers
	set -- $(od -An -tu4 -j $((32768 + 72)) -N 8 "$1")
	echo "$2 $(($2 + ($1 & 16777215)))"
}

# differ A B: "" when the same, else where they differ (4 KiB blocks,
# first and last), or "outside the log" for a jfs change beyond it.
differ() {
	cmp -s "$1" "$2" && return 0
	case $(basename "$1") in
	jfs.img)
		# shellcheck disable=SC2046 # two numbers
		set -- "$1" "$2" $(jfs_log_blocks "$1")
		cmp -l "$1" "$2" | awk -v lo="$3" -v hi="$4" '
			{ blk = int(($1 - 1) / 4096); if (blk < lo || blk >= hi) out++; n++ }
			END { if (out) printf "%d bytes, %d outside the log [%d, %d)\n", n, out, lo, hi }'
		;;
	*) cmp -l "$1" "$2" | awk '{ n++; b = int(($1 - 1) / 4096); if (n == 1) f = b }
		END { printf "%d bytes, in blocks %d..%d\n", n, f, b }' ;;
	esac
}

if mk "$work/a" && mk "$work/b"; then
	n=0 bad=""
	for img in "$work"/a/images/*.img; do
		fs=$(basename "$img" .img)
		n=$((n + 1))
		d=$(differ "$img" "$work/b/images/$fs.img")
		[ -z "$d" ] || bad="$bad $fs (twice: $d)"
		d=$(differ "$img" "$b/images/$fs.img")
		[ -z "$d" ] || bad="$bad $fs (against $b/images: $d)"
	done
	if [ "$n" -ge 16 ] && [ -z "$bad" ]; then
		ok "$n images made twice: the same bytes, and the build's (jfs's log aside)"
	else
		fail "$n images, differing:$bad"
	fi
	if grep -q " on mkfs-fixed-2 pid 1$" "$work/a/images/gfs2.img.mkfs"; then
		ok "gfs2.img.mkfs names the constant host: $(cat "$work/a/images/gfs2.img.mkfs")"
	else
		fail "gfs2.img.mkfs: $(cat "$work/a/images/gfs2.img.mkfs")"
	fi
else
	fail "scripts/mkimages.sh failed:"
	tail -n 5 "$work/a.out" "$work/b.out" 2>/dev/null | sed 's/^/    /'
fi

finish test_images
