#!/bin/sh
# tier: fast
# 6.12: full
# The ocfs2 layout map (src/format/layout_ocfs2.c) and raw times
# (rawtime_ocfs2.c) against ocfs2-tools' debugfs.ocfs2 on images the guest
# populated. Properties guarded:
#   - the superblock at block 2 (OCFS2_SUPER_BLOCK_BLKNO, at the block
#     size `stats` gives); every system file `ls -l //` lists has its inode
#     block as "inode" owned by it; the extents `stat` gives the journal,
#     heartbeat and slot map under those names; every group descriptor of
#     the global bitmap and of the inode and extent allocators (`stat`'s
#     group chains) as group-descriptor owned by the allocator;
#   - every file reached from the root (`ls -l` down the tree): its inode
#     block; its extents by its type (data, directory, symlink) and, for a
#     tree deeper than the inode, its extent blocks (extent-block), all
#     owned by it; an indexed directory's root and leaf blocks (`dx_dump`)
#     as directory-index; an xattr block and the extents of values held
#     outside (`xattr -v`) as xattr;
#   - `themis clock --raw` gives each file's mtime and ctime as `stat`
#     prints them, seconds and nanoseconds;
#   - on unmounted images, the free clusters add up to the global bitmap's
#     Free count;
#   - the base image is not written.
# The populated images: the guest's fixed script (boot --script), and a
# replay of a trace this test writes: 20 long names in one directory (out
# of the inode into blocks and an index), a file of 56 one-cluster extents
# with holes (an extent block), xattrs of 3000 bytes (a value tree outside
# the inode) and 20 bytes, a 300000-byte file.
# Usage: test_layout_ocfs2.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/ocfs2.img
cksum_before=$(cksum <"$base")

if ! command -v debugfs.ocfs2 >/dev/null 2>&1; then
	fail "debugfs.ocfs2 is missing (Debian package ocfs2-tools)"
	finish "layout ocfs2"
	exit 1
fi

# dbg IMG CMD: one debugfs.ocfs2 request.
dbg() { timeout 20 debugfs.ocfs2 -R "$2" "$1" 2>/dev/null; }

# geometry IMG: $spb sectors a block, $bpc blocks a cluster.
geometry() {
	set -- $(dbg "$1" stats | sed -n 's/.*Block Size Bits: \([0-9]*\) *Cluster Size Bits: \([0-9]*\).*/\1 \2/p')
	spb=$(((1 << $1) / 512)) bpc=$((1 << ($2 - $1)))
}

# q BLOCK BLOCKS WHAT [OWNER]: a query in sectors.
q() { echo "$(($1 * spb)) $((($1 + $2) * spb - 1)) $3 ${4:-}"; }

# extents WHAT OWNER: the extent records debugfs.ocfs2 printed (stat,
# xattr -v) as queries: a record under "Tree Depth: 0" is WHAT (its
# clusters), one under a deeper list an extent block.
extents() {
	awk -v what="$1" -v owner="$2" -v spb="$spb" -v bpc="$bpc" '
		/Tree Depth:/ { depth = $3; rows = 0; next }
		/## Offset/ { rows = 1; next }
		rows && $1 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ {
			n = depth > 0 ? 1 : $3 * bpc
			if (n) print $4 * spb, ($4 + n) * spb - 1, (depth > 0 ? "extent-block" : what), owner
			next }
		{ rows = 0 }'
}

# groups OWNER: the group descriptors of a chain allocator's stat.
groups() {
	awk -v owner="$1" -v spb="$spb" '
		/Block#/ && /Contig/ { rows = 1; next }
		rows && $2 ~ /^[0-9]+$/ { print $2 * spb, ($2 + 1) * spb - 1, "group-descriptor", owner; next }
		{ rows = 0 }'
}

# fixed_queries IMG: the superblock, the system files and allocators.
fixed_queries() {
	img=$1
	q 2 1 superblock
	dbg "$img" "ls -l //" | awk '$1 ~ /^[0-9]+$/ && $NF != "." && $NF != ".." { print $1, $NF }' |
		while read -r ino name; do
			q "$ino" 1 inode "$ino"
			dbg "$img" "stat //$name" >"$work/sys"
			case $name in
			journal:*) extents journal "$ino" <"$work/sys" ;;
			heartbeat) extents heartbeat "$ino" <"$work/sys" ;;
			slot_map) extents slot-map "$ino" <"$work/sys" ;;
			global_bitmap | *inode_alloc* | extent_alloc:*) groups "$ino" <"$work/sys" ;;
			esac
		done
}

# raw_check IMG PATH INO: themis clock --raw against stat's mtime and ctime.
raw_check() {
	awk '$1 == "mtime:" || $1 == "ctime:" { print substr($1, 1, 5), $2, $3 }' "$work/stat" |
		while read -r n s ns; do printf '%s=%d.%09d\n' "$n" $((s)) $((ns)); done | sort >"$work/want"
	"$themis" clock --raw "$1" "$(basename "$2")" "$3" 2>&1 | tr ' ' '\n' |
		grep -E '^[mc]time=' | sort >"$work/got"
	if ! cmp -s "$work/want" "$work/got" || [ ! -s "$work/want" ]; then
		fail "$2 (inode $3): raw times $(tr '\n' ' ' <"$work/got"), debugfs.ocfs2 $(tr '\n' ' ' <"$work/want")"
		raw_bad=$((raw_bad + 1))
	fi
	raw_n=$((raw_n + 1))
}

# file_queries IMG PATH INO: the file's inode, extents, index and xattrs.
file_queries() {
	img=$1 path=$2 ino=$3
	q "$ino" 1 inode "$ino"
	dbg "$img" "stat $path" >"$work/stat"
	raw_check "$img" "$path" "$ino" >&2
	case $(sed -n 's/.*Type: \(.*\)   Attr.*/\1/p' "$work/stat") in
	Directory) what=directory ;;
	"Symbolic Link") what=symlink ;;
	*) what=data ;;
	esac
	extents "$what" "$ino" <"$work/stat"
	dx=$(sed -n 's/.*Indexed Tree Root: \([0-9]*\).*/\1/p' "$work/stat")
	if [ -n "$dx" ] && [ "$dx" != 0 ]; then
		q "$dx" 1 directory-index "$ino"
		dbg "$img" "dx_dump $path" | sed -n 's/.*Dir Index Leaf: \([0-9]*\).*/\1/p' |
			while read -r leaf; do q "$leaf" 1 directory-index "$ino"; done
	fi
	xb=$(sed -n 's/.*Extended Attributes Block: \([0-9]*\).*/\1/p' "$work/stat")
	[ -n "$xb" ] && [ "$xb" != 0 ] && q "$xb" 1 xattr "$ino"
	if grep -q HasXattr "$work/stat"; then
		dbg "$img" "xattr -v $path" | extents xattr "$ino"
	fi
}

# tree_queries IMG: every file reached from the root directory.
tree_queries() {
	img=$1
	raw_n=0 raw_bad=0
	todo=/
	file_queries "$img" / "$(dbg "$img" "stat /" | awk '$1 == "Inode:" { print $2 }')"
	while [ -n "$todo" ]; do
		set -- $todo
		dir=$1
		shift
		todo=$*
		dbg "$img" "ls -l $dir" | awk '$1 ~ /^[0-9]+$/ && $NF != "." && $NF != ".." { print $1, substr($2, 1, 1), $NF }' >"$work/ls.$$"
		while read -r ino type name; do
			path=${dir%/}/$name
			file_queries "$img" "$path" "$ino"
			[ "$type" = d ] && todo="$todo $path"
		done <"$work/ls.$$"
	done
}

# check_free MAP IMG WHAT: the map's free clusters against the global bitmap's Free.
check_free() {
	want=$(dbg "$2" "stat //global_bitmap" | awk '/Bitmap Total:/ { print $NF }')
	got=$(awk -v c=$((spb * bpc)) '$4 == "free" { s += $3 } END { print s / c }' "$1")
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "$3: $got free clusters, as the global bitmap says" ||
		fail "$3: $got free clusters in the map, the global bitmap's Free $want"
}

# check IMG WHAT FREE KINDS: the map of IMG against everything above;
# with FREE "free", the free count too; debugfs.ocfs2 must have shown
# each structure of KINDS.
check() {
	map "$1" "$work/m" || return
	geometry "$1"
	fixed_queries "$1" >"$work/q"
	check_map "$work/m" "$work/q" "$2: superblock, system files and groups vs debugfs.ocfs2"
	tree_queries "$1" >"$work/q" 2>"$work/raw"
	for w in $4; do
		grep -q " $w [0-9]" "$work/q" || fail "$2: debugfs.ocfs2 showed no $w"
	done
	check_map "$work/m" "$work/q" "$2: files vs debugfs.ocfs2"
	if [ -s "$work/raw" ]; then
		cat "$work/raw"
	else
		ok "$2: raw mtime and ctime of every file as debugfs.ocfs2 prints them"
	fi
	[ "$3" = free ] && check_free "$work/m" "$1" "$2"
}

check "$base" "ocfs2 mkfs" free ""

# The guest's fixed script (files with holes, a directory, renames,
# links, a symlink; its directories stay inline): unmounted at the end,
# so the bitmap is current.
if "$themis" boot --disk "$base" --script --save-disks "$work/s" >"$work/boot.log" 2>&1; then
	check "$work/s/disk0.img" "ocfs2 script" free data
else
	fail "boot --script: $(tail -n 2 "$work/boot.log")"
fi

# The trace (see the top), replayed on the base: the disk after its last step.
if hash_helper; then
	long=$(printf 'n%.0s' $(seq 150))
	{
		trace_header ocfs2 "$base"
		echo "op mkdir d 0755"
		for i in $(seq 10 29); do echo "op create d/$long$i 0644 -"; done
		echo "op create sp 0644 -"
		for i in $(seq 0 2 110); do echo "op write sp $((i * 4096)) 4096 $i -"; done
		echo "op setxattr sp user.big 3000 7"
		echo "op setxattr sp user.small 20 8"
		echo "op create big 0644 -"
		echo "op write big 0 300000 5 -"
		echo "op symlink $(printf 'l%.0s' $(seq 150)) ln"
		printf 'discrepancy none none\nend\n'
	} >"$work/t.trace"
	# The repository has no rules/ocfs2.rules yet: an empty one beside
	# the others (the trace records no discrepancy to accept).
	mkdir -p "$work/rules"
	cp "$here/../../rules/"*.rules "$work/rules/"
	[ -e "$work/rules/ocfs2.rules" ] || : >"$work/rules/ocfs2.rules"
	if replay_last "$work/t.trace" "$work/replay.img" --rules "$work/rules"; then
		check "$work/replay.img" "ocfs2 replay" - "data directory extent-block directory-index xattr"
	fi
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" ||
	fail "the base image changed"
finish "layout ocfs2"
