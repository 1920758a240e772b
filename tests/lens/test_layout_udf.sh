#!/bin/sh
# tier: fast
# 6.12: full
# The udf layout map (src/format/layout_udf.c) against udftools' udfinfo
# and tests/lens/udf_decode.py (an independent reader of ECMA-167's file
# structures: udftools 2.3 prints no file entries) on images the guest
# populated. Properties guarded:
#   - the fixed structures where udfinfo puts them: the volume recognition
#     sequence, the main and reserve volume descriptor sequences, the
#     integrity descriptor, the anchor at block 256 (the superblock) and
#     the backup anchors;
#   - the file set descriptor, and every file entry reached from the root
#     (and the system stream directory) as file-entry with its inode number
#     (the block Linux numbers it by) as owner; each file's extents as
#     data, directory or symlink, and an allocation extent descriptor's
#     block, with that owner;
#   - the free blocks add up to udfinfo's freeblocks (the integrity
#     descriptor's free space table) on unmounted images;
#   - the raw mtime and ctime (themis clock --raw) equal the decoder's
#     reading of modificationTime and attrTime, to the microsecond;
#   - the base image is not written.
# The populated images: the guest's fixed script (boot --script), and a
# replay of a trace this test writes, on a 16 MiB image of its own: 24
# long names in one directory (its identifiers outgrow the entry into
# blocks), and a file of 140 one-block extents with holes between (its 279
# allocation descriptors outgrow the entry into an allocation extent
# descriptor). Linux's udf has no xattrs.
# Usage: test_layout_udf.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d -p "${TMPDIR:-/tmp}")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$here/../lib.sh"
. "$here/layout_lib.sh"
themis=$build/themis
base=$build/images/udf.img
cksum_before=$(cksum <"$base")

if ! command -v udfinfo >/dev/null 2>&1; then
	fail "udfinfo is missing (Debian package udftools)"
	finish "layout udf"
	exit 1
fi

# info IMG: udfinfo's report into $work/info.
info() { timeout 20 udfinfo "$1" >"$work/info" 2>/dev/null; }
field() { sed -n "s/^$1=//p" "$work/info"; }
# area TYPE: "START BLOCKS" of each of udfinfo's areas of that type.
area() { sed -n "s/^start=\([0-9]*\), blocks=\([0-9]*\), type=$1\$/\1 \2/p" "$work/info"; }
# decode IMG ARGS...: udf_decode.py with udfinfo's geometry.
decode() {
	img=$1
	shift
	python3 "$here/udf_decode.py" "$img" "$(field blocksize)" "$(area PSPACE | cut -d' ' -f1)" \
		"$(area MVDS | cut -d' ' -f1)" "$@"
}

# fixed_queries: udfinfo's areas, in sectors.
fixed_queries() {
	per=$(($(field blocksize) / 512))
	for t in VRS:volume-recognition MVDS:volume-descriptors LVID:integrity \
		RVDS:volume-descriptors-backup ANCHOR:anchor; do
		area "${t%%:*}" | while read -r s n; do
			what=${t#*:}
			[ "$what" = anchor ] && { [ "$s" = 256 ] && what=superblock || what=superblock-backup; }
			echo "$((s * per)) $(((s + n) * per - 1)) $what"
		done
	done
}

# check_free MAP WHAT: the map's free blocks against udfinfo's freeblocks.
check_free() {
	want=$(field freeblocks)
	got=$(awk -v per=$(($(field blocksize) / 512)) '$4 == "free" { s += $3 } END { print s / per }' "$1")
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "$2: $got free blocks, as udfinfo says" ||
		fail "$2: $got free blocks in the map, udfinfo $want"
}

# check_times IMG WHAT: each file entry's raw mtime and ctime against the decoder.
check_times() {
	timg=$1 twhat=$2 n=0 bad=""
	for ino in $(awk '$3 == "file-entry" { print $4 }' "$work/q"); do
		want=$(decode "$timg" times "$ino") || { bad="decoder failed on $ino"; break; }
		# "mtime=S.NNNNNNNNN ... ctime=S.NNNNNNNNN": nanoseconds without leading zeros.
		got=$("$themis" clock --raw "$timg" x "$ino" 2>&1 | awk '{
			for (i = 1; i <= NF; i++) if ($i ~ /^[mc]time=/) {
				split(substr($i, 7), t, "."); printf "%s%s %d", sep, t[1], t[2]; sep = " " } }')
		[ "$got" = "$want" ] || { bad="inode $ino: raw $got, decoder $want"; break; }
		n=$((n + 1))
	done
	[ -z "$bad" ] && [ $n -gt 0 ] && ok "$twhat: raw mtime and ctime of $n file entries as decoded" ||
		fail "$twhat: ${bad:-no file entries}"
}

# check IMG WHAT FREE KINDS: the map of IMG against everything above;
# with FREE "free", the free count too; the decoder must have shown each
# structure of KINDS.
check() {
	map "$1" "$work/m" || return
	info "$1" || { fail "$2: udfinfo failed"; return; }
	fixed_queries >"$work/q"
	grep -q " superblock$" "$work/q" || fail "$2: udfinfo shows no anchor at block 256"
	check_map "$work/m" "$work/q" "$2: fixed structures vs udfinfo"
	decode "$1" queries >"$work/q" || { fail "$2: udf_decode.py failed"; return; }
	for w in $4; do
		grep -q "^# kinds.* $w" "$work/q" || fail "$2: the decoder showed no $w"
	done
	sed -i '/^#/d' "$work/q"
	check_map "$work/m" "$work/q" "$2: files vs udf_decode.py"
	[ "$3" = free ] && check_free "$work/m" "$2"
	check_times "$1" "$2"
}

check "$base" "udf mkfs" free ""

# The guest's fixed script (files with holes, a directory, renames,
# links, a symlink): unmounted at the end, so the free count is current.
if "$themis" boot --disk "$base" --script --save-disks "$work/s" >"$work/boot.log" 2>&1; then
	check "$work/s/disk0.img" "udf script" free "data file-entry"
else
	fail "boot --script: $(tail -n 2 "$work/boot.log")"
fi

if hash_helper; then
	long=$(printf 'n%.0s' $(seq 150))
	# Until rules/udf.rules is written, a copy of the rules with an empty one.
	rules=
	if [ ! -e "$here/../../rules/udf.rules" ]; then
		mkdir "$work/rules" && cp "$here"/../../rules/*.rules "$work/rules/" &&
			: >"$work/rules/udf.rules" && rules="--rules $work/rules"
	fi
	# The trace runs on a 16 MiB image of the descriptor's mkfs (every
	# step's disk is saved: a small one keeps that cheap). Linux writes
	# long allocation descriptors: the entry holds 242 of them, and 140
	# one-block writes with holes between make 279.
	truncate -s 16M "$work/small.img"
	mkudffs -b 4096 --uuid=5468656d69734000 "$work/small.img" >/dev/null 2>&1 ||
		fail "mkudffs of a 16 MiB image"
	{
		trace_header udf "$work/small.img"
		echo "op create sp 0644 -"
		for i in $(seq 0 2 278); do echo "op write sp $((i * 4096)) 4096 $i -"; done
		echo "op create big 0644 -"
		echo "op write big 0 300000 5 -"
		echo "op mkdir d 0755"
		for i in $(seq 10 33); do echo "op create d/$long$i 0644 -"; done
		printf 'discrepancy none none\nend\n'
	} >"$work/t.trace"
	# shellcheck disable=SC2086 # $rules: no words or two
	if replay_last "$work/t.trace" "$work/replay.img" $rules; then
		check "$work/replay.img" "udf replay" - "data directory allocation-extent file-entry"
	fi
fi

[ "$(cksum <"$base")" = "$cksum_before" ] && ok "base image unchanged" ||
	fail "the base image changed"
finish "layout udf"
