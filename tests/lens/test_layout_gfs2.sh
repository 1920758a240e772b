#!/bin/sh
# tier: fast
# 6.12: full
# The gfs2 layout map (src/format/layout_gfs2.c) and raw times
# (rawtime_gfs2.c) against gfs2-utils' gfs2_edit and tunegfs2 on images
# the guest populated. Properties guarded:
#   - the superblock at the block gfs2_edit -p sb names (LBA 128 with
#     tunegfs2's 4 KiB blocks), each resource group's header and bitmap
#     blocks where gfs2_edit -p rindex puts them;
#   - every file reached from the master directory and from the root
#     (gfs2_edit -p master, -p root, -p BLOCK of each directory): its
#     dinode, its tree's indirect blocks and data blocks (gfs2_edit's
#     pointer listing), named by what the file is (journal, rindex,
#     system-file; directory, data, symlink) with the inode as owner; an
#     exhash directory's leaves; an extended attribute's blocks as xattr,
#     each of the type gfs2_edit's blocktype says;
#   - on unmounted images, the free blocks add up to the resource groups'
#     rg_free;
#   - the raw mtime and ctime (themis clock --raw) equal gfs2_edit's
#     di_mtime, di_mtime_nsec, di_ctime, di_ctime_nsec;
#   - the base image is not written.
# The populated images: the guest's fixed script (boot --script), and a
# replay of a trace this test writes: 60 long names in one directory (an
# exhash directory of several leaves), a file of 24 blocks with holes and
# one past 2 MB (a tree of height 2), a 6000-byte xattr (stored in data
# blocks), a 300000-byte file.
# Usage: test_layout_gfs2.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/gfs2.img
cksum_before=$(cksum <"$base")

if ! command -v gfs2_edit >/dev/null 2>&1 || ! command -v tunegfs2 >/dev/null 2>&1; then
	fail "gfs2_edit or tunegfs2 is missing (Debian package gfs2-utils)"
	finish "layout gfs2"
	exit 1
fi

# ge ARGS... IMG: gfs2_edit, which opens nothing unless the device's name
# holds a slash.
ge() {
	eval "img=\${$#}"
	case $img in */*) ;; *) img=./$img ;; esac
	n=$#
	args=
	i=1
	for a in "$@"; do
		[ $i -lt $n ] && args="$args $a"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	timeout 20 gfs2_edit $args "$img" 2>/dev/null
}

# blocks IMG: sectors per filesystem block, from tunegfs2 -l.
spb() { echo $(($(tunegfs2 -l "$1" | awk '/^Block size:/ { print $3 }') / 512)); }

# q BLOCK STRUCTURE [OWNER]: one block as a map query.
q() { echo "$(($1 * s)) $((($1 + 1) * s - 1)) $2 ${3:-}"; }

# fixed_queries IMG: the superblock and the resource groups.
fixed_queries() {
	img=$1
	q "$(ge -p sb "$img" | awk '/^Block #/ { print $3; exit }')" superblock
	ge -p rindex "$img" | awk '/ri_addr/ { a = $2 } /ri_length/ { print a, $2 }' |
		while read -r addr len; do
			q "$addr" resource-group
			k=1
			while [ $k -lt "$len" ]; do
				q $((addr + k)) rgrp-bitmap
				k=$((k + 1))
			done
		done
}

# entries DIRLISTING: "INO TYPE NAME" of each entry gfs2_edit listed.
entries() {
	awk '$2 ~ /^\[[0-9A-F]+\]$/ && $3 ~ /\// { split($3, a, "/"); print a[2], $(NF - 1), $NF }'
}

# file_queries IMG INO ROLE: the dinode, its tree (gfs2_edit prints each
# level's pointers indented by three spaces a level below the one above),
# its xattr blocks; for an exhash directory, its leaves.
file_queries() {
	img=$1 ino=$2 role=$3
	ge -p "$ino" "$img" >"$work/di"
	q "$ino" dinode "$ino"
	mode=$(awk '$1 == "di_mode" { print $2; exit }' "$work/di")
	height=$(awk '$1 == "di_height" { print $2; exit }' "$work/di")
	case $role:$mode in
	user:04*) what=directory ;;
	user:012*) what=symlink ;;
	user:*) what=data ;;
	*:04*) what=master-directory ;;
	*) what=$role ;;
	esac
	case $mode in
	04*)
		# An exhash directory's leaves: each pointer followed by its
		# "Directory block:".
		awk '/=> 0x[0-9a-f]+ \/ [0-9]+/ { b = $NF } /^Directory block:/ && b { print b; b = "" }' \
			"$work/di" | sort -un | while read -r b; do q "$b" "$what" "$ino"; done
		;;
	*)
		awk -v h="$height" '/=> 0x[0-9a-f]+ \/ [0-9]+/ {
				match($0, /^ */); lvl = RLENGTH / 3
				print (lvl < h - 1 ? "indirect" : "leaf"), $6 }' "$work/di" |
			while read -r kind b; do
				[ "$kind" = leaf ] && kind=$what
				q "$b" "$kind" "$ino"
			done
		;;
	esac
	ea=$(awk '$1 == "di_eattr" { print $2; exit }' "$work/di")
	if [ "${ea:-0}" != 0 ]; then
		q "$ea" xattr "$ino"
		echo "$ea $ino" >>"$work/eattrs"
	fi
}

# tree_queries IMG ROOTINO ROLE: every file reached from a directory; the
# master directory's jindex holds journals, its rindex is the index.
tree_queries() {
	img=$1
	todo="$2:$3" seen=" $2 "
	file_queries "$img" "$2" "$3"
	while [ -n "$todo" ]; do
		set -- $todo
		dir=${1%:*} drole=${1#*:}
		shift
		todo=$*
		ge -p "$dir" "$img" | entries >"$work/ents"
		while read -r ino type name; do
			case $name in . | ..) continue ;; esac
			case $seen in *" $ino "*) continue ;; esac
			seen="$seen$ino "
			role=$drole
			[ "$drole" = jindex ] && role=journal
			[ "$drole" = system-file ] && [ "$name" = jindex ] && role=jindex
			[ "$drole" = system-file ] && [ "$name" = rindex ] && role=rindex
			file_queries "$img" "$ino" "$role"
			[ "$type" = Dir ] && todo="$todo $ino:$role"
		done <"$work/ents"
	done
}

# check_xattr MAP IMG WHAT: every block the map names xattr is an EA, ED
# or indirect block to gfs2_edit, and the EA blocks' pointers match.
check_xattr() {
	awk '$4 == "xattr" { for (b = $1; b <= $2; b += 8) print b / 8 }' "$1" | sort -un >"$work/xb"
	bad=
	while read -r b; do
		t=$(ge -p "$b" blocktype "$2" | awk '{ print $1; exit }')
		case $t in 10 | 11 | 5) ;; *) bad="$bad $b:$t" ;; esac
	done <"$work/xb"
	[ -z "$bad" ] && ok "$3: $(wc -l <"$work/xb") xattr blocks, each EA, ED or IN to gfs2_edit" ||
		fail "$3: xattr blocks of other types to gfs2_edit:$bad"
	# Each EA block's unstuffed values: ea_num_ptrs ED blocks in the map.
	want=$(cut -d' ' -f1 "$work/eattrs" | while read -r ea; do
		ge -p "$ea" "$2" | awk '$1 == "ea_num_ptrs" { s += $2 } END { print s + 0 }'
	done | awk '{ s += $1 } END { print s + 0 }')
	got=$(wc -l <"$work/xb")
	neas=$(wc -l <"$work/eattrs")
	[ "$got" -eq $((want + neas)) ] && ok "$3: xattr blocks = EA blocks + ea_num_ptrs ($got)" ||
		fail "$3: $got xattr blocks in the map, gfs2_edit: $neas EA blocks and $want value blocks"
}

# check_free MAP IMG WHAT: the map's free blocks against the rg_free sum.
check_free() {
	want=$(ge -p rgs "$2" | awk '$1 == "rg_free" { s += $2 } END { print s + 0 }')
	got=$(awk -v s="$s" '$4 == "free" { n += $3 } END { print n / s }' "$1")
	[ "$got" = "$want" ] && ok "$3: $got free blocks, as rg_free says" ||
		fail "$3: $got free blocks in the map, rg_free $want"
}

# check_times IMG WHAT: the raw mtime and ctime of every user file the
# walk met against gfs2_edit's fields.
check_times() {
	timg=$1 twhat=$2 bad=0 n=0
	for ino in $(awk -v s="$s" '$3 == "dinode" { print $1 / s }' "$work/uq" | sort -un); do
		want=$(for f in di_mtime di_mtime_nsec di_ctime di_ctime_nsec; do
			ge -p "$ino" field "$f" "$timg"
		done | tr '\n' ' ')
		got=$("$themis" clock --raw "$timg" x "$ino" 2>&1 |
			sed -n 's/.* di_mtime=\(0x[0-9a-f]*\) di_mtime_nsec=\([0-9]*\) .* di_ctime=\(0x[0-9a-f]*\) di_ctime_nsec=\([0-9]*\)$/\1 \2 \3 \4/p')
		set -- $got
		[ $# -eq 4 ] && got="$(($1)) $2 $(($3)) $4 " || got="($got)"
		n=$((n + 1))
		if [ "$got" != "$want" ]; then
			[ $bad -eq 0 ] && fail "$twhat: inode $ino: clock --raw '$got', gfs2_edit '$want'"
			bad=$((bad + 1))
		fi
	done
	[ $bad -eq 0 ] && ok "$twhat: raw mtime and ctime of $n inodes as gfs2_edit reads them"
}

# check IMG WHAT FREE KINDS: the map of IMG against everything above; with
# FREE "free", the free count too; gfs2_edit must have shown each
# structure of KINDS.
check() {
	map "$1" "$work/m" || return
	s=$(spb "$1")
	: >"$work/eattrs"
	fixed_queries "$1" >"$work/q"
	check_map "$work/m" "$work/q" "$2: superblock and resource groups vs gfs2_edit"
	master=$(ge -p sb "$1" | awk '$1 == "no_addr" { print $2; exit }')
	root=$(tunegfs2 -l "$1" | awk '/^Root inode:/ { print $3 }')
	tree_queries "$1" "$master" system-file >"$work/q"
	for w in journal system-file indirect; do
		grep -q " $w [0-9]" "$work/q" || fail "$2: gfs2_edit showed no $w in the master tree"
	done
	check_map "$work/m" "$work/q" "$2: the master tree vs gfs2_edit"
	tree_queries "$1" "$root" user >"$work/uq"
	for w in $4; do
		grep -q " $w [0-9]" "$work/uq" || fail "$2: gfs2_edit showed no $w"
	done
	check_map "$work/m" "$work/uq" "$2: the root's files vs gfs2_edit"
	check_xattr "$work/m" "$1" "$2"
	check_times "$1" "$2"
	[ "$3" = free ] && check_free "$work/m" "$1" "$2"
}

check "$base" "gfs2 mkfs" free ""

# The guest's fixed script (files with holes, a directory, renames,
# links, a symlink): unmounted at the end, so rg_free is current.
if "$themis" boot --disk "$base" --script --save-disks "$work/s" >"$work/boot.log" 2>&1; then
	check "$work/s/disk0.img" "gfs2 script" free "data"
else
	fail "boot --script: $(tail -n 2 "$work/boot.log")"
fi

# The rules the replay reads: the build's, and an empty gfs2.rules until
# the tree has one.
mkdir -p "$work/rules"
cp "$here/../../rules/"*.rules "$work/rules/" 2>/dev/null
[ -f "$work/rules/gfs2.rules" ] || printf '# gfs2: no rules yet\n' >"$work/rules/gfs2.rules"

# The trace (see the top), replayed on the base: the disk after its last step.
if hash_helper; then
	long=$(printf 'n%.0s' $(seq 150))
	{
		trace_header gfs2 "$base"
		echo "op mkdir d 0755"
		for i in $(seq 100 159); do echo "op create d/$long$i 0644 -"; done
		echo "op create sp 0644 -"
		for i in $(seq 0 2 44); do echo "op write sp $((i * 4096)) 4096 $i -"; done
		echo "op write sp 3000000 4096 1 -"
		echo "op setxattr sp user.big 6000 7"
		echo "op create big 0644 -"
		echo "op write big 0 300000 5 -"
		printf 'discrepancy none none\nend\n'
	} >"$work/t.trace"
	if replay_last "$work/t.trace" "$work/replay.img" --rules "$work/rules"; then
		check "$work/replay.img" "gfs2 replay" - "data directory indirect xattr"
		[ "$(grep -c " directory [0-9]" "$work/uq")" -ge 3 ] ||
			fail "gfs2 replay: fewer than 3 directory leaves (no exhash directory)"
	fi
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" ||
	fail "the base image changed"
finish "layout gfs2"
