#!/bin/sh
# tier: fast
# 6.12: full
# f2fs's layout map (src/format/layout_f2fs.c) against f2fs-tools' dump.f2fs.
# Properties guarded, on the base image, on the image the guest's script
# leaves (boot --script: inline directories and small inline files, a
# file with holes in data blocks) and on one sload.f2fs fills (a 16 MB
# file reaching direct and indirect node blocks, a directory of 300
# entries spilling out of its inode into dentry blocks, small inline files):
#   - the superblock, its backup, and the checkpoint, SIT, NAT and SSA
#     areas where dump.f2fs's superblock puts them;
#   - every node the NAT (dump.f2fs -n) places in the main area: an inode's
#     own block is "inode", its other nodes "node", owned by the inode;
#   - every inode's i_addr[] blocks (dump.f2fs -i) are "data" or
#     "directory" by its i_mode, owned by it; an inline inode (data or
#     dentries) counted as inside its inode block;
#   - every block the SIT (dump.f2fs -s) marks valid in a data segment is,
#     by the SSA's owning node (dump.f2fs -a) and that node's inode in the
#     NAT, "data" or "directory" of that inode: the blocks reached through
#     direct nodes, which dump.f2fs -i does not list;
#   - every block the SIT marks invalid is "free";
#   - the base image is not written.
# Usage: test_layout_f2fs.sh BUILD (the build folder: BUILD/themis,
# BUILD/images/f2fs.img)
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/f2fs.img
cksum_before=$(cksum <"$base")

# dumps IMG: dump.f2fs's superblock, NAT, SIT and SSA dumps of IMG into
# $work/d (dump.f2fs writes dump_nat, dump_sit and dump_ssa where it runs),
# and each inode's node info (dump.f2fs -i) as $work/d/inodes: a line
# "ino MODE INLINE XATTR_NID" then "ino addr ADDR" per i_addr entry.
dumps() {
	img=$(realpath "$1")
	rm -rf "$work/d" && mkdir -p "$work/d"
	(
		cd "$work/d" || exit 1
		dump.f2fs -d 1 "$img" >super 2>&1
		dump.f2fs -n 0~-1 "$img" >/dev/null 2>&1
		dump.f2fs -s 0~-1 "$img" >/dev/null 2>&1
		dump.f2fs -a 0~-1 "$img" >/dev/null 2>&1
		awk '$2 + 0 == $4 + 0 { print $2 + 0 }' dump_nat | while read -r ino; do
			echo N | dump.f2fs -i "$(printf 0x%x "$ino")" "$img" 2>/dev/null | awk -v ino="$ino" '
				/^i_mode/ { gsub(/\]/, "", $NF); mode = $NF }
				/^i_inline/ { gsub(/\]/, "", $NF); inl = $NF }
				/^i_xattr_nid/ { gsub(/\]/, "", $NF); xnid = $NF }
				/^i_addr\[/ { gsub(/\]/, "", $NF); a[++n] = $NF }
				END { print ino, mode, inl, xnid
				      for (i = 1; i <= n; i++) print ino, "addr", a[i] }'
		done >inodes
	)
	for f in super dump_nat dump_sit dump_ssa inodes; do
		[ -s "$work/d/$f" ] || fail "$(basename "$1"): dump.f2fs wrote no $f"
	done
}

# queries: the map queries from the dumps in $work/d (LBAs: 8 per block).
queries() {
	awk '
	function field(name) { return f[name] }
	function q(first, last, what, owner) { printf "%d %d %s %s\n", first * 8, (last + 1) * 8 - 1, what, owner }
	# one block into the pending run of queries (blocks in ascending order)
	function run(b, what, owner) {
		if (rn && b == rl + 1 && what == rw && owner == ro) { rl = b; return }
		if (rn) q(rf, rl, rw, ro)
		rn = 1; rf = rl = b; rw = what; ro = owner }
	function hex(s,   v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	FILENAME ~ /super$/ && /^[a-z_0-9]+[ \t]+\[0x/ { v = $NF; sub(/\]/, "", v); f[$1] = v + 0; next }
	FILENAME ~ /inodes$/ {
		if ($2 == "addr") { addrs[++na] = $1 " " $3; next }
		kind[$1] = int($2 / 4096) == 4 ? "directory" : "data"
		if (int($3 / 2) % 4) inline[$1] = 1        # F2FS_INLINE_DATA or _DENTRY
		if ($4 + 0) xattr[$4 + 0] = $1
		next }
	FILENAME ~ /dump_nat$/ { nid = $2 + 0; nat_ino[nid] = $4 + 0; nat_blk[nid] = $8 + 0; next }
	FILENAME ~ /dump_sit$/ && /^segno:/ { seg = $2 + 0; byte = 0; next }
	FILENAME ~ /dump_sit$/ && /^ +[0-9a-f][0-9a-f] / {
		for (i = 1; i <= NF; i++) { x = hex($i)
			for (b = 0; b < 8; b++) valid[seg, byte * 8 + b] = int(x / 2 ^ (7 - b)) % 2
			byte++ }
		next }
	FILENAME ~ /dump_ssa$/ && /^segno:/ { sub(/,/, "", $2); sseg = hex($2)  # hex, unlike dump_sit
		 data = $NF == "Data"; next }
	FILENAME ~ /dump_ssa$/ && /^\[/ { s = $0; gsub(/[][]/, " ", s); n = split(s, p, " ")
		for (i = 1; i < n; i += 2) { off = p[i] + 0; if (data) ssa[sseg, off] = hex(p[i + 1]) }  # the nid in hex
		next }
	END {
		main = field("main_blkaddr"); end = main + field("segment_count_main") * 512
		print "2 7 superblock"; print "10 15 superblock-backup"
		q(field("cp_blkaddr"), field("cp_blkaddr") + field("segment_count_ckpt") * 512 - 1, "checkpoint")
		q(field("sit_blkaddr"), field("sit_blkaddr") + field("segment_count_sit") * 512 - 1, "sit")
		q(field("nat_blkaddr"), field("nat_blkaddr") + field("segment_count_nat") * 512 - 1, "nat")
		q(field("ssa_blkaddr"), field("ssa_blkaddr") + field("segment_count_ssa") * 512 - 1, "ssa")
		for (nid in nat_blk) {
			b = nat_blk[nid]; if (b < main || b >= end) continue
			what = nid == nat_ino[nid] ? "inode" : (nid in xattr) ? "xattr" : "node"
			q(b, b, what, nat_ino[nid]); nodes++ }
		for (i = 1; i <= na; i++) { split(addrs[i], p, " ")
			if (p[2] < main || p[2] >= end || (p[1] in inline)) continue
			q(p[2], p[2], kind[p[1]], p[1]); iaddr++ }
		for (seg = 0; seg < field("segment_count_main"); seg++)
			for (o = 0; o < 512; o++) {
				b = main + seg * 512 + o
				if (!valid[seg, o]) { run(b, "free", ""); free++; continue }
				if (!((seg, o) in ssa)) continue
				ino = nat_ino[ssa[seg, o]]
				if (ino in kind) { run(b, kind[ino], ino); viassa++ } }
		if (rn) q(rf, rl, rw, ro)
		for (i in inline) inl++
		for (i in kind) { if (kind[i] == "directory") dirs++; else files++ }
		printf "%d nodes, %d i_addr blocks, %d data blocks by the SSA, %d free blocks, %d files and %d directories, %d inline\n", \
			nodes, iaddr, viassa, free, files, dirs, inl > "/dev/stderr"
	}' "$work/d/super" "$work/d/inodes" "$work/d/dump_nat" "$work/d/dump_sit" "$work/d/dump_ssa"
}

# check IMG WHAT [MIN_NODES]: the map of IMG against dump.f2fs; with
# MIN_NODES, dump.f2fs must have listed at least that many non-inode nodes.
check() {
	map "$1" "$work/map" || return
	dumps "$1"
	queries >"$work/q" 2>"$work/counts"
	echo "   $2: $(cat "$work/counts")"
	check_map "$work/map" "$work/q" "$2 vs dump.f2fs"
	nodes=$(grep -c ' node [0-9]' "$work/q")
	[ "$nodes" -ge "${3:-0}" ] || fail "$2: dump.f2fs listed $nodes node blocks, want ${3:-0}"
}

check "$base" "f2fs base"

# The guest's script (t/a with holes, t/d/b, links, renames; inline
# directories), saved after its unmount.
if "$themis" boot --disk "$base" --script --save-disks "$work/g" >"$work/boot.out" 2>&1 &&
	[ -s "$work/g/disk0.img" ]; then
	check "$work/g/disk0.img" "f2fs script"
	grep -q ' data 5$' "$work/q" || fail "f2fs script: no data block of t/a (inode 5)"
	grep -q 'inline$' "$work/counts" && ! grep -q ' 0 inline$' "$work/counts" ||
		fail "f2fs script: no inline inode"
else
	fail "boot --script: $(tail -n 3 "$work/boot.out")"
fi

# sload.f2fs: a 16 MB file (direct and indirect nodes), a directory of 300
# entries (dentry blocks), inline files, a symlink.
mkdir -p "$work/root/d" "$work/root/many"
head -c 16000000 /dev/urandom >"$work/root/d/big"
head -c 50000 /dev/urandom >"$work/root/d/mid"
for i in $(seq 1 300); do echo "$i" >"$work/root/many/file_with_a_longish_name_$i"; done
ln -s d/mid "$work/root/ln"
truncate -s 256M "$work/sl.img"
if mkfs.f2fs -q -f "$work/sl.img" >/dev/null 2>&1 && sload.f2fs -f "$work/root" "$work/sl.img" >/dev/null 2>&1; then
	check "$work/sl.img" "f2fs sload" 4
	[ "$(awk '$3 == "directory" && $4 != 3' "$work/q" | wc -l)" -ge 2 ] ||
		fail "f2fs sload: dump.f2fs listed no dentry blocks of the 300-entry directory"
else
	fail "mkfs.f2fs or sload.f2fs failed"
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" || fail "the base image changed"
finish "layout f2fs"
