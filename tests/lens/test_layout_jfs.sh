#!/bin/sh
# tier: fast
# 6.12: full
# The jfs layout map (src/format/layout_jfs.c) against jfs_debugfs (jfsutils)
# on images the guest populated. Properties guarded:
#   - the fixed areas (superblock, aggregate inode table, its backup, the
#     inline log, the fsck workspace) where jfs_debugfs's superblock and
#     aggregate inodes put them;
#   - the block map and inode map files' extents (aggregate inodes 2 and
#     16), and every inode extent the inode map's IAG 0 lists, as
#     inode-table, with each file's inode where jfs_debugfs finds it;
#   - every file reached from the root: a regular file's data extents, and
#     the xtree pages of one whose xtree outgrew the inode, with the inode
#     as owner; a directory's dtree pages (two levels down) and, once its
#     index table outgrew the inode, the index table's pages; an
#     out-of-line extended attribute as xattr;
#   - on unmounted images, the free blocks add up to the block map's
#     dn_nfree;
#   - the base image is not written.
# The populated images: the guest's fixed script (boot --script), and a
# replay of a trace this test writes: 20 long names in one directory (a
# dtree of pages and an index table outside the inode), a file of 23
# one-block extents with holes (an xtree page) and an xattr of 3000 bytes.
# Usage: test_layout_jfs.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/jfs.img
cksum_before=$(cksum <"$base")

if ! command -v jfs_debugfs >/dev/null 2>&1; then
	fail "jfs_debugfs is missing (Debian package jfsutils)"
	finish "layout jfs"
	exit 1
fi

# dbg IMG: jfs_debugfs reading its commands from stdin.
dbg() { timeout 20 jfs_debugfs "$1" 2>/dev/null; }
# enters N: N empty lines (jfs_debugfs steps through entries on enter).
enters() { i=0; while [ $i -lt "$1" ]; do echo; i=$((i + 1)); done; }
# quit: leave whatever prompt jfs_debugfs is at (a leaf dtree's entries
# go round and round), then the program.
quit() { printf 'x\nx\nx\nq\n'; }
# nodes: the entries of the xtree or dtree nodes jfs_debugfs printed, one
# "LEVEL KIND ADDR LEN" a line (LEVEL 1 the root, 2 the node below it).
nodes() {
	awk 'function hex(s,   v, i) { v = 0; s = tolower(substr(s, 3))
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		/Root [DX]-Tree Node/ { lvl = 0 }
		/\[[15]\] flag\t/ { lvl++; kind = /BT_INTERNAL/ ? "internal" : "leaf" }
		/xad\.len|xd\.len/ { for (i = 1; i <= NF; i++) if ($i ~ /^0x/) len = hex($i) }
		/xad\.addr\t/ { print lvl, kind, $NF, len }
		/^addressPXD\(xd\)/ { print lvl, kind, $2, len }'
}
# q FIRST_BLOCK BLOCKS STRUCTURE [OWNER]: a query in sectors (4 KiB blocks).
q() { echo "$(($1 * 8)) $((($1 + $2) * 8 - 1)) $3 ${4:-}"; }

# tree_queries IMG CMD INO ROOTWHAT LEAFWHAT [FILESET]: a tree's queries: a
# leaf root's entries are LEAFWHAT; an internal root's entries are tree
# pages (ROOTWHAT), and the entries below each (LEAFWHAT when the page is
# a leaf, ROOTWHAT when it is internal).
tree_queries() {
	img=$1 cmd=$2 ino=$3 node=$4 leaf=$5 fset=${6:-}
	{ echo "$cmd $ino $fset"; enters 200; quit; } | dbg "$img" | nodes >"$work/root"
	owner=$ino
	[ -n "$fset" ] && owner=""
	k=0
	while read -r lvl kind addr len; do
		[ "$lvl" = 1 ] || continue
		if [ "$kind" = leaf ]; then
			q "$addr" "$len" "$leaf" "$owner"
			continue
		fi
		q "$addr" "$len" "$node" "$owner"
		{ echo "$cmd $ino $fset"; enters $((k + 1)); echo d; enters 200; quit; } |
			dbg "$img" | nodes | while read -r l2 kind2 a2 n2; do
			[ "$l2" = 2 ] || continue
			what=$node
			[ "$kind2" = leaf ] && what=$leaf
			q "$a2" "$n2" "$what" "$owner"
		done
		k=$((k + 1))
	done <"$work/root"
}

# slot FILE WHAT: the sector of the inode "Inode N at block B, offset 0xO" names.
slot() {
	sed -n 's/.*Inode [0-9]* at block \([0-9]*\), offset \(0x[0-9a-f]*\):.*/\1 \2/p' "$1" |
		while read -r blk off; do echo "$((blk * 8 + off / 512)) $((blk * 8 + off / 512)) $2"; done
}
# inode IMG INO: jfs_debugfs's "i" of a fileset inode, into $work/inode.
inode() { printf 'i %s\nx\nq\n' "$2" | dbg "$1" >"$work/inode"; }
field() { awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$work/inode"; }

# file_queries IMG INO: the inode's slot in the inode table, its blocks.
file_queries() {
	img=$1 ino=$2
	inode "$img" "$ino"
	slot "$work/inode" inode-table
	mode=$(field "di_mode:")
	type=$(($(printf '%d' "$mode") & 0xf000))
	if [ "$(field di_ea.flag:)" = 0x20 ]; then
		q "$(field di_ea.address:)" "$(field di_ea.len:)" xattr "$ino"
	fi
	case $type in
	$((0x8000))) tree_queries "$img" xt "$ino" xtree data ;;
	$((0x4000)))
		tree_queries "$img" dt "$ino" directory directory
		[ "$(field di_next_index:)" -gt 14 ] &&
			tree_queries "$img" xt "$ino" xtree directory-index
		;;
	esac
}

# fileset_queries IMG: every file reached from the root directory.
fileset_queries() {
	img=$1
	todo=2 seen=" 2 "
	file_queries "$img" 2
	while [ -n "$todo" ]; do
		set -- $todo
		dir=$1
		shift
		todo=$*
		for ino in $(printf 'dir %s\nq\n' "$dir" | dbg "$img" | awk '$1 ~ /^[0-9]+$/ && NF == 2 { print $1 }'); do
			case $seen in *" $ino "*) continue ;; esac
			seen="$seen$ino "
			file_queries "$img" "$ino"
			[ $(($(printf '%d' "$(field di_mode:)") & 0xf000)) -eq $((0x4000)) ] && todo="$todo $ino"
		done
	done
}

# fixed_queries IMG: the superblock's areas, the aggregate inodes, the
# block and inode maps, and IAG 0's inode extents.
fixed_queries() {
	img=$1
	echo "64 71 superblock"
	echo "120 127 superblock-backup"
	printf 'su\nx\nq\n' | dbg "$img" | awk '
		{ for (i = 1; i < NF; i++) {
			if ($i == "s_ait2.len:") ait = $(i + 1); if ($i == "s_ait2.address:") aita = $(i + 1)
			if ($i == "s_logpxd.len:") lg = $(i + 1); if ($i == "s_logpxd.address:") lga = $(i + 1)
			if ($i == "s_fsckpxd.len:") fsck = $(i + 1); if ($i == "s_fsckpxd.address:") fscka = $(i + 1) } }
		function q(a, n, w) { if (n) print a * 8, (a + n) * 8 - 1, w }
		END { q(aita, ait, "aggregate-inode-table-backup"); q(lga, lg, "log"); q(fscka, fsck, "fsck-workspace") }'
	for ino in 1 2 16; do
		printf 'i %s a\nx\nq\n' $ino | dbg "$img" >"$work/inode"
		slot "$work/inode" aggregate-inode-table
	done
	tree_queries "$img" xt 2 block-map block-map a
	tree_queries "$img" xt 16 inode-map inode-map a
	for e in 0 1 2 3 4 5 6 7; do
		printf 'iag 0\ni\n%s\nx\nq\n' $e | dbg "$img" | awk '
			/inoext\[[0-9]+\]\.len:/ { n = $NF } /addressPXD:/ { a = $NF }
			END { if (a) print a * 8, (a + n) * 8 - 1, "inode-table" }'
	done
}

# check_free MAP IMG WHAT: the map's free blocks against dn_nfree.
check_free() {
	want=$(printf 'dmap\nx\nq\n' | dbg "$2" | awk '/dn_nfree:/ { print $3 }')
	want=$((want))
	got=$(awk '$4 == "free" { s += $3 } END { print s / 8 }' "$1")
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "$3: $got free blocks, as dn_nfree says" ||
		fail "$3: $got free blocks in the map, dn_nfree $want"
}

# check IMG WHAT FREE KINDS: the map of IMG against everything above;
# with FREE "free", the free count too; jfs_debugfs must have shown each
# structure of KINDS.
check() {
	map "$1" "$work/m" || return
	fixed_queries "$1" >"$work/q"
	check_map "$work/m" "$work/q" "$2: fixed areas and maps vs jfs_debugfs"
	fileset_queries "$1" >"$work/q"
	for w in $4; do
		grep -q " $w [0-9]" "$work/q" || fail "$2: jfs_debugfs showed no $w"
	done
	check_map "$work/m" "$work/q" "$2: files vs jfs_debugfs"
	[ "$3" = free ] && check_free "$work/m" "$1" "$2"
}

check "$base" "jfs mkfs" free ""

# The guest's fixed script (files with holes, a directory, renames,
# links, a symlink): unmounted at the end, so dn_nfree is current.
if "$themis" boot --disk "$base" --script --save-disks "$work/s" >"$work/boot.log" 2>&1; then
	check "$work/s/disk0.img" "jfs script" free data
else
	fail "boot --script: $(tail -n 2 "$work/boot.log")"
fi

# The trace (see the top), replayed on the base: the disk after its last step.
if hash_helper; then
	long=$(printf 'n%.0s' $(seq 150))
	{
		trace_header jfs "$base"
		echo "op mkdir d 0755"
		for i in $(seq 10 29); do echo "op create d/$long$i 0644 -"; done
		echo "op create sp 0644 -"
		for i in $(seq 0 2 44); do echo "op write sp $((i * 4096)) 4096 $i -"; done
		echo "op setxattr sp user.big 3000 7"
		echo "op create big 0644 -"
		echo "op write big 0 300000 5 -"
		printf 'discrepancy none none\nend\n'
	} >"$work/t.trace"
	if replay_last "$work/t.trace" "$work/replay.img"; then
		check "$work/replay.img" "jfs replay" - "data directory xtree directory-index xattr"
		[ "$(grep -c " directory [0-9]" "$work/q")" -ge 3 ] ||
			fail "jfs replay: fewer than 3 dtree pages (no internal dtree page)"
	fi
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" ||
	fail "the base image changed"
finish "layout jfs"
