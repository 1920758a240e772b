#!/bin/sh
# The layout map (`themis layout`, src/lens/layout*.c) against each
# filesystem's own tools. Properties guarded:
#   - every built image's map parses, names its superblock at the LBA the
#     format puts it, and is sorted, disjoint and inside the image;
#   - ext2/ext4: every superblock copy, descriptor block, reserved GDT
#     block, bitmap, inode table and free run dumpe2fs lists is named so in
#     the map, and after debugfs writes files, every directory, data,
#     indirect and extent-tree block debugfs lists is named so, with the
#     inode as owner;
#   - xfs: the AG headers, btree roots and log at xfs_db's addresses;
#   - btrfs: every tree node dump-tree lists, named by its tree;
#   - bad input (missing, empty, random, truncated, damaged superblock, bad
#     flags) exits 2 with one line naming the file, and no image is written.
# Usage: test_layout.sh BUILD (the build folder: BUILD/themis,
# BUILD/asan/themis when present, BUILD/images/*.img)
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
themis=$build/themis
asan=$build/asan/themis
[ -x "$asan" ] || asan=$themis
images=$build/images
export E2FSPROGS_FAKE_TIME=1767225600

# map IMG OUT: the text map of IMG into OUT (fails the test if it does not parse).
map() {
	if ! "$themis" layout "$1" >"$2" 2>"$work/map.err"; then
		fail "layout $(basename "$1"): $(cat "$work/map.err")"
		return 1
	fi
}

# check_map MAP QUERIES WHAT: each query line "FIRST LAST STRUCTURE [OWNER]"
# (LBAs) must be covered wholly by ranges of STRUCTURE (and that owner).
check_map() {
	bad=$(awk -v what="$3" '
		FNR == NR { if ($1 !~ /^#/) { n++; a[n] = $1; z[n] = $2; s[n] = $4; o[n] = 0
			for (i = 5; i <= NF; i++) if ($i ~ /^owner=/) o[n] = substr($i, 7) }
			next }
		{ q++; want = $3; cov = 0
		  for (i = 1; i <= n; i++) {
			if (z[i] < $1 || a[i] > $2) continue
			lo = a[i] < $1 ? $1 : a[i]; hi = z[i] > $2 ? $2 : z[i]
			if (s[i] != want || ($4 != "" && o[i] != $4)) {
				printf "%s: sectors %d-%d are %s owner %d, want %s owner %s\n", what, lo, hi, s[i], o[i], want, $4
				bad++; next }
			cov += hi - lo + 1 }
		  if (cov != $2 - $1 + 1) { printf "%s: %d-%d %s only %d sectors named\n", what, $1, $2, want, cov; bad++ } }
		END { if (!q) print what ": no queries (the reference tool printed nothing?)" }' "$1" "$2" | head -n 5)
	if [ -n "$bad" ]; then
		fail "$bad"
	else
		ok "$3: $(wc -l <"$2") structures where the tool puts them"
	fi
}

# sane IMG FS SB_LBA: parses as FS, names the superblock at SB_LBA, ranges
# sorted, disjoint and inside the image; the JSON form parses.
sane() {
	img=$1 fs=$2 sb=$3
	map "$img" "$work/$fs.map" || return
	sectors=$(($(stat -c %s "$img") / 512))
	head -n 1 "$work/$fs.map" | grep -q "^# $fs:" || fail "$fs: map header $(head -n 1 "$work/$fs.map")"
	msg=$(awk -v sectors="$sectors" -v sb="$sb" '
		/^#/ { next }
		{ if ($2 - $1 + 1 != $3 || $3 < 1) { print "bad range " $0; exit }
		  if (n && $1 <= last) { print "unsorted or overlapping at " $0; exit }
		  if ($2 >= sectors) { print "past the image (" sectors " sectors): " $0; exit }
		  last = $2; n++
		  if ($1 <= sb && sb <= $2 && $4 == "superblock") found = 1 }
		END { if (!n) print "empty map"; else if (!found) print "no superblock at LBA " sb }' "$work/$fs.map")
	[ -z "$msg" ] && ok "$fs: $(grep -vc '^#' "$work/$fs.map") ranges, superblock at $sb, sorted, inside" ||
		fail "$fs: $msg"
	if command -v python3 >/dev/null 2>&1; then
		"$themis" layout "$img" --json "$work/$fs.json" >/dev/null &&
			python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); assert l and all("lba" in r and "count" in r and "structure" in r for r in l)' "$work/$fs.json" ||
			fail "$fs: --json does not write a list of {lba, count, structure}"
	fi
}

# dumpe2fs_queries IMG: dumpe2fs's group placements as map queries.
dumpe2fs_queries() {
	dumpe2fs "$1" 2>/dev/null | awk '
		/^Block size:/ { spb = $3 / 512 }
		function q(r, what,   p) { split(r, p, "-"); if (p[2] == "") p[2] = p[1]
			printf "%d %d %s\n", p[1] * spb, (p[2] + 1) * spb - 1, what }
		/^Group [0-9]+:/ { g = $2 + 0 }
		/superblock at/ { for (i = 1; i <= NF; i++) {
			if ($i == "superblock") { s = $(i + 2); sub(",", "", s)
				q(s, g ? "superblock-backup" : "superblock") }
			if ($i == "descriptors") q($(i + 2), g ? "group-descriptors-backup" : "group-descriptors") } }
		/Reserved GDT blocks at/ { q($5, "reserved-gdt") }
		/Block bitmap at/ { q($4, "block-bitmap") }
		/Inode bitmap at/ { q($4, "inode-bitmap") }
		/Inode table at/ { q($4, "inode-table") }
		/^  Free blocks: [0-9]/ { for (i = 3; i <= NF; i++) { r = $i; sub(",", "", r); q(r, "free") } }' |
		awk '$1 >= 2 || $3 != "superblock"' # with 4 KiB blocks, sectors 0-1 are "boot"
}

# debugfs_queries IMG PATH...: each path's blocks as debugfs lists them.
debugfs_queries() {
	img=$1
	shift
	spb=$(($(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ { print $3 }') / 512))
	for p in "$@"; do
		debugfs -R "stat $p" "$img" 2>/dev/null | awk -v spb="$spb" '
			NR == 1 { ino = $2; kind = ($4 == "directory") ? "directory" : "data" }
			/^(BLOCKS|EXTENTS):/ { on = 1; next }
			on && /^TOTAL/ { on = 0 }
			on { gsub(/, /, "\n"); n = split($0, e, "\n")
			     for (i = 1; i <= n; i++) { split(e[i], kv, ":"); if (kv[2] == "") continue
				what = kind
				if (kv[1] ~ /IND/) what = "indirect"
				if (kv[1] ~ /ETB/) what = "extent-tree"
				split(kv[2], p, "-"); if (p[2] == "") p[2] = p[1]
				printf "%d %d %s %d\n", p[1] * spb, (p[2] + 1) * spb - 1, what, ino } }'
	done
}

# Images the tests write into: copies, never the base images.
cksum_before=$(cat "$images"/*.img | md5sum)

# The base images, each at its superblock.
for fs in ext2 ext3 ext4 xfs btrfs f2fs vfat exfat jfs nilfs2 minix; do
	img=$images/$fs.img
	if [ ! -s "$img" ]; then
		fail "$img is missing (scripts/mkimages.sh builds it)"
		continue
	fi
	case $fs in
	xfs) sb=0 ;;
	vfat | exfat) sb=0 ;;
	btrfs) sb=128 ;;
	jfs) sb=64 ;;
	*) sb=2 ;;
	esac
	sane "$img" "$fs" "$sb"
done

# ext2 and ext4 against dumpe2fs, then with files against debugfs.
head -c 300000 /dev/urandom >"$work/big"
head -c 3000 /dev/urandom >"$work/small"
for fs in ext2 ext4; do
	cp "$images/$fs.img" "$work/$fs.img"
	map "$work/$fs.img" "$work/$fs.base.map" || continue
	dumpe2fs_queries "$work/$fs.img" >"$work/q"
	check_map "$work/$fs.base.map" "$work/q" "$fs vs dumpe2fs"
	{
		echo "mkdir d"
		echo "write $work/small d/small"
		echo "write $work/big d/big"
		echo "symlink d/link /$(printf '%080d' 0)"
	} >"$work/cmds"
	debugfs -w -f "$work/cmds" "$work/$fs.img" >/dev/null 2>&1
	map "$work/$fs.img" "$work/$fs.files.map" || continue
	debugfs_queries "$work/$fs.img" / /d /d/small /d/big /d/link >"$work/q"
	grep -q indirect "$work/q" || [ "$fs" = ext4 ] || fail "$fs: debugfs listed no indirect block"
	check_map "$work/$fs.files.map" "$work/q" "$fs files vs debugfs"
	dumpe2fs_queries "$work/$fs.img" >"$work/q"
	check_map "$work/$fs.files.map" "$work/q" "$fs files vs dumpe2fs"
done

# ext4 with 4 KiB blocks and a fragmented file, so its extents need a tree block.
truncate -s 16M "$work/e4k.img"
mkfs.ext4 -q -F -b 4096 "$work/e4k.img"
{
	echo "mkdir d"
	for i in $(seq 0 39); do echo "write $work/small d/s$i"; done
	for i in $(seq 0 2 39); do echo "rm d/s$i"; done
	echo "write $work/big d/big"
} >"$work/cmds"
debugfs -w -f "$work/cmds" "$work/e4k.img" >/dev/null 2>&1
if map "$work/e4k.img" "$work/e4k.map"; then
	debugfs_queries "$work/e4k.img" /d /d/big /d/s1 /d/s39 >"$work/q"
	grep -q extent-tree "$work/q" || fail "e4k: debugfs listed no extent tree block"
	check_map "$work/e4k.map" "$work/q" "ext4 4k extents vs debugfs"
	dumpe2fs_queries "$work/e4k.img" >"$work/q"
	check_map "$work/e4k.map" "$work/q" "ext4 4k vs dumpe2fs"
fi

# Bad input: one line naming the file, exit 2, no crash (the ASan build).
: >"$work/empty"
head -c 1048576 /dev/urandom >"$work/random"
head -c 4000000 "$images/ext4.img" >"$work/truncated.img"
cp "$images/ext2.img" "$work/damaged.img"
printf '\377\377\377\377' | dd of="$work/damaged.img" bs=1 seek=$((1024 + 0x18)) conv=notrunc 2>/dev/null
# bad PATTERN FILE: exit 2 and exactly one line, naming the file.
bad() {
	expect 2 "$(basename "$2"): $1" -- "$asan" layout "$2"
	[ "$(wc -l <"$work/out")" -eq 1 ] || fail "$(basename "$2"): more than one line of error"
}
bad "cannot open" "$work/missing.img"
bad ".*empty image" "$work/empty"
bad ".*not a filesystem Themis knows" "$work/random"
bad "ext4: .*truncated" "$work/truncated.img"
bad "ext2: block size" "$work/damaged.img"
expect 2 "unknown option '--bogus'" -- "$asan" layout --bogus "$images/ext2.img"
expect 2 "needs an image" -- "$asan" layout
expect 2 "needs a file name" -- "$asan" layout "$images/ext2.img" --json
expect 0 "usage: themis layout" -- "$asan" layout --help
expect 0 "inode-table" -- "$asan" layout "$images/ext4.img"

[ "$(cat "$images"/*.img | md5sum)" = "$cksum_before" ] && ok "base images unchanged" ||
	fail "a base image changed"
finish layout
