#!/bin/sh
# tier: fast
# 6.12: full
# The ntfs3 layout map (src/format/layout_ntfs3.c) and raw times
# (src/format/rawtime_ntfs3.c) against ntfs-3g's own tools (ntfsinfo,
# ntfsls, ntfscluster, ntfscat). Properties guarded:
#   - the boot sector (superblock, LBA 0) and its backup after the volume;
#   - every non-resident attribute of the system files (records 0 to 11,
#     and $Extend's) where ntfsinfo's runlists put it, named by what it
#     holds: $MFT's records and bitmap, $MFTMirr, $LogFile, $AttrDef,
#     $Bitmap, $Boot, $Secure's streams and indexes, $UpCase;
#   - every file reached from the root (ntfsls): each $DATA run as data,
#     each $I30 index block as directory, an $EA or security descriptor as
#     xattr, with the MFT record (the inode number) as owner;
#   - the free clusters add up to ntfscluster's count;
#   - `themis clock --raw` reads each file's m_time and c_time as stored
#     in its $STANDARD_INFORMATION (ntfscat), to the 100 ns;
#   - the base image is not written.
# The populated images: the base with one file ntfs-3g copied in (ntfscp
# grows the MFT: Linux 6.1's ntfs3 never sets sbi->zone_max, so it cannot
# extend a fresh mkntfs MFT and every create gets ENOSPC), then the
# guest's fixed script on it, and a replay of a trace this test writes:
# 20 long names in one directory (an $I30 index of several blocks), a
# file of 23 one-cluster writes with holes, an xattr of 3000 bytes, and a
# 300000-byte file.
# Usage: test_layout_ntfs3.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/ntfs3.img
cksum_before=$(cksum <"$base")

for t in ntfsinfo ntfsls ntfscluster ntfscat ntfscp; do
	if ! command -v $t >/dev/null 2>&1; then
		fail "$t is missing (Debian package ntfs-3g)"
		finish "layout ntfs3"
		exit 1
	fi
done

# spc IMG: sectors per cluster, as ntfscluster says.
spc() { ntfscluster -i "$1" 2>/dev/null | awk '/^sectors per cluster/ { print $NF }'; }

# runs IMG INO: ntfsinfo's runs of inode INO's attributes, attribute lists
# followed: a line "TYPE NAME LCN LEN" per run (hex; NAME - when unnamed,
# LCN <HOLE> for a hole).
runs() {
	ntfsinfo -v -i "$2" "$1" 2>/dev/null | awk '
		/^Dumping attribute/ { t = $4; gsub(/[()]/, "", t); name = "-"; inrun = 0 }
		/^\tAttribute name:/ { name = $NF; gsub(/\047/, "", name) }
		/Runlist:/ { inrun = 1; next }
		inrun && NF == 3 && $1 ~ /^0x/ { print t, name, $2, $3 }'
}

# queries IMG INO SPC: the map queries of inode INO's runs: what each
# attribute holds (the names layout_ntfs3.c documents), owner INO.
queries() {
	runs "$1" "$2" | awk -v ino="$2" -v spc="$3" '
		function hex(s,   v, i) { v = 0; s = tolower(substr(s, 3))
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		BEGIN { split("inode-table mft-mirror journal - attrdef - block-bitmap boot bad-clusters secure upcase", sys, " ") }
		{ t = $1; name = $2
		  if (t == "0x80") what = (ino <= 10 && sys[ino + 1] != "-") ? sys[ino + 1] : "data"
		  else if (t == "0xb0" && ino == 0) what = "inode-bitmap"
		  else if (t == "0xa0" || t == "0xb0") what = name == "$I30" ? "directory" : "index"
		  else if (t == "0xc0") what = "symlink"
		  else if (t == "0xe0" || t == "0x50") what = "xattr"
		  else if (t == "0x20") what = "attribute-list"
		  else what = "data"
		  if ($3 == "<HOLE>") next
		  first = hex($3) * spc; last = (hex($3) + hex($4)) * spc - 1
		  if (first == 0) first = 1	# sector 0 is the boot sector: superblock
		  print first, last, what, ino }'
}

# tree IMG: the inodes reached from the root directory (ntfsls), the
# system files and $Extend's, one a line.
tree() {
	img=$1
	echo 0 1 2 3 4 5 6 7 8 9 10 11 | tr ' ' '\n'
	ntfsls -i -a -s -p '/$Extend' "$img" 2>/dev/null | awk '$2 !~ /^\.\.?$/ { print $1 }'
	todo=/
	while [ -n "$todo" ]; do
		set -- $todo
		dir=$1
		shift
		todo=$*
		ntfsls -F -i -p "$dir" "$img" 2>/dev/null >"$work/ls"
		awk '{ print $1 }' "$work/ls"
		for d in $(awk '$2 ~ /\/$/ && $2 != "./" && $2 != "../" { sub(/\/$/, "", $2); print $2 }' "$work/ls"); do
			todo="$todo ${dir%/}/$d"
		done
	done
}

# check_free MAP IMG WHAT: the map's free clusters against ntfscluster's.
check_free() {
	want=$(ntfscluster -i "$2" 2>/dev/null | awk '/^clusters of free space/ { print $NF }')
	got=$(awk -v spc="$(spc "$2")" '$4 == "free" { s += $3 } END { print s / spc }' "$1")
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "$3: $got free clusters, as ntfscluster says" ||
		fail "$3: $got free clusters in the map, ntfscluster $want"
}

# nt2unix V: an le64 of 100 ns since 1601 as sec.nsec, seconds floored
# (shell arithmetic: 64 bits, where awk's doubles would round).
nt2unix() {
	d=$(($1 - 116444736000000000))
	s=$((d / 10000000)) r=$((d % 10000000))
	[ $r -lt 0 ] && s=$((s - 1)) r=$((r + 10000000))
	printf '%d.%09d' $s $((r * 100))
}

# check_times IMG WHAT NAME INO: themis clock --raw against the m_time and
# c_time ntfscat dumps of $STANDARD_INFORMATION (100 ns since 1601).
check_times() {
	set -- "$@" $(ntfscat -a 0x10 -i "$4" "$1" 2>/dev/null | od -An -t d8 -j 8 -N 16)
	want=""
	[ $# -eq 6 ] && want="$(nt2unix "$5") $(nt2unix "$6")"
	got=$("$themis" clock --raw "$1" "$3" "$4" 2>&1 |
		awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^mtime=/) m = substr($i, 7); if ($i ~ /^ctime=/) c = substr($i, 7) } }
			END { print m, c }')
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "$2: inode $4's mtime ctime $got, as ntfscat reads them" ||
		fail "$2: inode $4: themis reads '$got', ntfscat '$want'"
}

# check IMG WHAT FILES KINDS: the map of IMG against ntfsinfo for every
# inode, the free count, and the raw times of FILES ("NAME:INO ...");
# ntfsinfo must have shown each structure of KINDS.
check() {
	map "$1" "$work/m" || return
	s=$(spc "$1")
	{
		echo "0 0 superblock"
		sectors=$(od -An -t u8 -j 40 -N 8 "$1" | tr -d ' ')
		echo "$sectors $sectors superblock-backup"
	} >"$work/q"
	check_map "$work/m" "$work/q" "$2: boot sector and its backup"
	: >"$work/q"
	for ino in $(tree "$1" | sort -un); do
		queries "$1" "$ino" "$s" >>"$work/q"
	done
	for w in $4; do
		grep -q " $w [0-9]" "$work/q" || fail "$2: ntfsinfo showed no $w"
	done
	check_map "$work/m" "$work/q" "$2: every attribute's runs vs ntfsinfo"
	check_free "$work/m" "$1" "$2"
	for f in $3; do
		check_times "$1" "$2" "${f%:*}" "${f#*:}"
	done
}

check "$base" "ntfs3 mkfs" "" "inode-table inode-bitmap mft-mirror journal attrdef block-bitmap boot secure upcase directory xattr"

# The seed: the base with a file ntfs-3g wrote (see the top).
cp "$base" "$work/seed.img"
head -c 9000 /dev/zero | tr '\0' 'q' >"$work/q9"
ntfscp "$work/seed.img" "$work/q9" q9 >/dev/null 2>&1 || fail "ntfscp into a copy of the base"

# The guest's fixed script (files with holes, a directory, renames,
# links, a symlink): unmounted at the end.
if "$themis" boot --disk "$work/seed.img" --script --save-disks "$work/s" >"$work/boot.log" 2>&1; then
	grep -q "mkdir t 0755 -> 0" "$work/boot.log" || fail "script: $(grep -m 1 'mkdir t ' "$work/boot.log")"
	a=$(ntfsls -i -p /t "$work/s/disk0.img" 2>/dev/null | awk '$2 == "a" { print $1 }')
	check "$work/s/disk0.img" "ntfs3 script" "${a:+t/a:$a} q9:64" "data directory"
else
	fail "boot --script: $(tail -n 2 "$work/boot.log")"
fi

# The trace (see the top), replayed on the seed: the disk after its last step.
if hash_helper; then
	long=$(printf 'n%.0s' $(seq 150))
	{
		trace_header ntfs3 "$work/seed.img"
		echo "op mkdir d 0755"
		for i in $(seq 10 29); do echo "op create d/$long$i 0644 -"; done
		echo "op create sp 0644 -"
		echo "op create sq 0644 -"
		for i in $(seq 0 2 44); do
			echo "op write sp $((i * 4096)) 4096 $i -"
			echo "op write sq $((i * 4096)) 4096 $i -"
		done
		echo "op setxattr sp user.big 3000 7"
		echo "op create big 0644 -"
		echo "op write big 0 300000 5 -"
		printf 'discrepancy none none\nend\n'
	} >"$work/t.trace"
	# The repository's rules, with an empty ntfs3.rules until it has one.
	rules=$here/../../rules
	if [ ! -f "$rules/ntfs3.rules" ]; then
		mkdir -p "$work/rules" && cp "$rules"/*.rules "$work/rules/" && : >"$work/rules/ntfs3.rules"
		rules=$work/rules
	fi
	if replay_last "$work/t.trace" "$work/replay.img" --rules "$rules"; then
		r=$work/replay.img
		files=$(ntfsls -i "$r" 2>/dev/null | awk '$2 == "sp" || $2 == "sq" || $2 == "big" || $2 == "d" { printf "%s:%s ", $2, $1 }')
		check "$r" "ntfs3 replay" "$files" "data directory xattr"
		d=$(echo "$files" | tr ' ' '\n' | sed -n 's/^d://p')
		sp=$(echo "$files" | tr ' ' '\n' | sed -n 's/^sp://p')
		[ "$(awk -v d="$d" '$3 == "directory" && $4 == d { n += $2 - $1 + 1 } END { print n + 0 }' "$work/q")" -ge 16 ] ||
			fail "ntfs3 replay: d's index is not two blocks or more"
		[ "$(awk -v f="$sp" '$3 == "data" && $4 == f' "$work/q" | wc -l)" -ge 10 ] ||
			fail "ntfs3 replay: sp is not fragmented into 10 runs or more"
	fi
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" ||
	fail "the base image changed"
finish "layout ntfs3"
