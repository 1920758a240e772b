#!/bin/sh
# tier: fast
# 6.12: full
# The reiserfs layout map (src/format/layout_reiserfs.c) and raw times
# (rawtime_reiserfs.c) against debugreiserfs (reiserfsprogs) on the base
# image and on images the guest populated. Properties guarded:
#   - the fixed areas where debugreiserfs puts them: the superblock's block
#     (its header), the bitmap blocks (-m), the journal and its header
#     block (-J);
#   - every tree node debugreiserfs -d prints, as internal-node or
#     leaf-node;
#   - every unformatted node an indirect item lists (-d), as data (or
#     directory, symlink: by the stat data's mode) with the item's object
#     id, the inode number, as owner;
#   - the free blocks the bitmaps (-m) print, as free;
#   - the raw sd_mtime and sd_ctime (themis clock --raw) of the root and
#     of each root file: the mtime as debugreiserfs -d prints it (day/year
#     time, to the second, the format's resolution), both as the bytes at
#     the stat data's place debugreiserfs gives (location in its leaf);
#   - the base image is not written.
# The populated images: the guest's fixed script (boot --script), and a
# replay of a trace this test writes: 60 long names in one directory
# (directory items over several leaves, an internal node), a file of 23
# one-block pieces with holes, a file of 300000 bytes, an xattr (a file
# under the hidden .reiserfs_priv when the mount allows user xattrs), a
# symlink, and times set before 2038 and past it (u32 seconds).
# Usage: test_layout_reiserfs.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/reiserfs.img
cksum_before=$(cksum <"$base")
export TZ=UTC LC_ALL=C

if ! command -v debugreiserfs >/dev/null 2>&1; then
	fail "debugreiserfs is missing (Debian package reiserfsprogs)"
	finish "layout reiserfs"
	exit 1
fi

# dbg OPTS IMG: debugreiserfs's output (it prints the names' bytes raw).
dbg() { timeout 20 debugreiserfs $1 "$2" 2>/dev/null | tr -d '\000'; }

# fixed_queries IMG: the superblock, bitmaps, journal and its header, in
# sectors ("FIRST LAST STRUCTURE"), and the free runs of the bitmaps.
fixed_queries() {
	dbg -m "$1" | awk '
		function q(a, n, w) { print a * bs / 512, (a + n) * bs / 512 - 1, w }
		/^Blocksize:/ { bs = $2 }
		/^Count of blocks on the device:/ { count = $NF }
		/^Reiserfs super block in block/ { q($6, 1, "superblock") }
		/^#[0-9]+: block [0-9]+:/ { sub(":", "", $3); q($3, 1, "bitmap")
			for (i = 4; i <= NF; i++) if ($i ~ /^Free\(/) {
				split(substr($i, 6), r, /[-)]/)
				if (r[1] < count) q(r[1], (r[2] < count ? r[2] : count - 1) - r[1] + 1, "free") } }'
	dbg -J "$1" | awk '
		/^Blocksize:/ { bs = $2 }
		/^Journal header \(block #/ { h = $4; sub("#", "", h) }
		/^[ \t]*Size [0-9]+ blocks \(including 1 for journal header\) \(first block/ {
			n = $2; f = $NF; sub(")", "", f) }
		END { print f * bs / 512, (f + n - 1) * bs / 512 - 1, "journal"
			print h * bs / 512, (h + 1) * bs / 512 - 1, "journal-header" }'
}

# tree_queries IMG: debugreiserfs -d's nodes, and the blocks its indirect
# items list by the owner's mode (the stat data item before them);
# "sd OBJ BLOCK LOCATION FORMAT MTIME" lines for the stat data too.
tree_queries() {
	dbg -d "$1" | awk '
		function q(a, n, w, o) { print a * bs / 512, (a + n) * bs / 512 - 1, w, o }
		/^Blocksize:/ { bs = $2 }
		/^INTERNAL NODE \([0-9]+\)/ { b = $3; gsub(/[()]/, "", b); q(b, 1, "internal-node") }
		/^LEAF NODE \([0-9]+\)/ { leaf = $3; gsub(/[()]/, "", leaf); q(leaf, 1, "leaf-node") }
		/^\| *[0-9]+\|[0-9]+ [0-9]+ 0x[0-9a-f]+ / {
			split($0, f, "|"); split(f[3], k, " "); obj = k[2]; type = k[4]
			for (i = 1; i <= NF; i++) if ($i == "location") loc = $(i + 1)
			fmt = $0 ~ /format new/ ? "new" : "old"; inind = 0
			if (type == "SD") { sdobj = obj; sdloc = loc; sdfmt = fmt }
			if (type == "IND") inind = 1 }
		/^\((NEW|OLD) SD\), mode / { m = substr($4, 1, 1)
			mode[sdobj] = m == "d" ? "directory" : m == "l" ? "symlink" : "data"
			for (i = 1; i <= NF; i++) if ($i == "mtime") t = $(i + 1) " " $(i + 2)
			print "sd", sdobj, leaf, sdloc, sdfmt, t }
		inind && /^\[/ { s = $0; gsub(/[][]/, " ", s); n = split(s, p, " ")
			for (i = 1; i <= n; i++) if (p[i] ~ /^[0-9]+$/ && p[i] != 0)
				q(p[i], 1, obj in mode ? mode[obj] : "data", obj)
				else if (p[i] ~ /^[0-9]+\([0-9]+\)$/) {
					split(p[i], r, /[()]/); if (r[1] != 0) q(r[1], r[2], mode[obj], obj) } }'
}

# le32 IMG BYTE: the little-endian 32-bit word at BYTE.
le32() { od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '; }

# check_times IMG WHAT: for the root (object 2) and every file the root
# directory lists, themis clock --raw against the stat data debugreiserfs
# shows: its mtime as printed, both times as the bytes at its place.
check_times() {
	img=$1 what=$2 bs=$(dbg -m "$1" | awk '/^Blocksize:/ { print $2 }')
	n=0
	dbg -d "$img" | awk '/^\| *[0-9]+\|1 2 0x[0-9a-f]+ DIR/ { d = 1; next }
		/^---/ { d = 0 } d && /^ *[0-9]+: / { split($0, a, "\""); nm = a[2]; sub(/ +$/, "", nm)
			if (nm != "." && nm != "..") { s = $0; sub(/.*\[/, "", s); split(s, k, /[] ]/)
				print nm, k[2] } }' >"$work/entries"
	echo ". 2" >>"$work/entries"
	while read -r name obj; do
		line=$(grep "^sd $obj " "$work/sd" | head -n 1)
		[ -n "$line" ] || continue
		set -- $line
		leaf=$3 loc=$4 fmt=$5 shown="$6 $7"
		at=$((leaf * bs + loc))
		if [ "$fmt" = new ]; then mt=$(le32 "$img" $((at + 28))) ct=$(le32 "$img" $((at + 32)))
		else mt=$(le32 "$img" $((at + 16))) ct=$(le32 "$img" $((at + 20))); fi
		printed=$(date -u -d "@$mt" '+%d/%Y %H:%M:%S')
		raw=$("$themis" clock --raw "$img" "$name" "$obj" 2>&1)
		got_m=$(echo "$raw" | sed -n 's/.* mtime=\([0-9-]*\)\.\([0-9]*\) .*/\1.\2/p')
		got_c=$(echo "$raw" | sed -n 's/.* ctime=\([0-9-]*\)\.\([0-9]*\) .*/\1.\2/p')
		if [ "$got_m" != "$mt.000000000" ] || [ "$got_c" != "$ct.000000000" ] ||
			[ "$printed" != "$shown" ]; then
			fail "$what: $name ($obj): themis says '$raw'; stat data holds mtime $mt ($printed, debugreiserfs shows $shown), ctime $ct"
			return
		fi
		n=$((n + 1))
	done <"$work/entries"
	[ "$n" -ge 1 ] && ok "$what: raw mtime and ctime of $n files as debugreiserfs's stat data" ||
		fail "$what: no stat data to compare times with"
}

# check IMG WHAT KINDS: the map of IMG against everything above;
# debugreiserfs must have shown each structure of KINDS.
check() {
	map "$1" "$work/m" || return
	fixed_queries "$1" >"$work/q"
	check_map "$work/m" "$work/q" "$2: fixed areas and free blocks vs debugreiserfs -m -J"
	tree_queries "$1" >"$work/all"
	grep '^sd ' "$work/all" >"$work/sd"
	grep -v '^sd ' "$work/all" >"$work/q"
	for w in $3; do
		grep -q " $w" "$work/q" || fail "$2: debugreiserfs showed no $w"
	done
	check_map "$work/m" "$work/q" "$2: tree nodes and files vs debugreiserfs -d"
	check_times "$1" "$2"
}

check "$base" "reiserfs mkfs" "leaf-node"

if "$themis" boot --disk "$base" --script --save-disks "$work/s" >"$work/boot.log" 2>&1; then
	check "$work/s/disk0.img" "reiserfs script" "internal-node leaf-node data"
else
	fail "boot --script: $(tail -n 2 "$work/boot.log")"
fi

# The trace (see the top), replayed on the base: the disk after its last step.
if hash_helper; then
	long=$(printf 'n%.0s' $(seq 150))
	{
		trace_header reiserfs "$base"
		echo "op mkdir d 0755"
		for i in $(seq 10 69); do echo "op create d/$long$i 0644 -"; done
		echo "op create sp 0644 -"
		for i in $(seq 0 2 44); do echo "op write sp $((i * 4096)) 4096 $i -"; done
		echo "op setxattr sp user.big 3000 7"
		echo "op create big 0644 -"
		echo "op write big 0 300000 5 -"
		echo "op symlink $long ln"
		echo "op utimes big @3000000000"
		echo "op utimes sp @305419896"
		printf 'discrepancy none none\nend\n'
	} >"$work/t.trace"
	# The checker's rules: the repository's, with an empty reiserfs.rules
	# while the repository has none (replay refuses a filesystem without).
	rules=$(cd "$here/../.." && pwd)/rules
	if [ ! -f "$rules/reiserfs.rules" ]; then
		mkdir "$work/rules" && cp "$rules"/*.rules "$work/rules/" &&
			: >"$work/rules/reiserfs.rules" && rules=$work/rules
	fi
	if replay_last "$work/t.trace" "$work/replay.img" --rules "$rules"; then
		check "$work/replay.img" "reiserfs replay" "internal-node leaf-node data"
		[ "$(grep -c " leaf-node" "$work/q")" -ge 3 ] ||
			fail "reiserfs replay: fewer than 3 leaves (the directory did not grow)"
		grep -q '^big [0-9]' "$work/entries" && grep -q "^sd $(awk '$1 == "big" { print $2 }' "$work/entries") " "$work/sd" ||
			fail "reiserfs replay: no stat data of big (its time past 2038 unchecked)"
	fi
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" ||
	fail "the base image changed"
finish "layout reiserfs"
