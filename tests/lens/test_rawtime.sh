#!/bin/sh
# tier: fast
# 6.12: full
# The raw timestamps (`themis clock --raw IMG NAME INO`, src/format/rawtime_*.c)
# against a reading that shares no code with them, on every format Themis
# mounts. Properties guarded:
#   - ext4 (debugfs), xfs with and without bigtime (xfs_db), btrfs
#     (btrfs inspect-internal dump-tree), f2fs (dump.f2fs), jfs
#     (jfs_debugfs), and minix v1/v2/v3, vfat (FAT16 and FAT32), exfat and
#     nilfs2 (tests/lens/rawtime_decode.py, written from the on-disk specs;
#     nilfs2's through the DAT, as the kernel finds an inode, where Themis
#     takes the newest ifile block in the logs): the same mtime, and the
#     same ctime where the format stores one, to the nanosecond;
#   - the images: made with mkfs under faketime (known times in the root
#     inode), populated by tools where they write (debugfs, jfs_debugfs,
#     mkfs.btrfs --rootdir, sload.f2fs, mcopy), and by the guest's script
#     (`themis boot --script`: times with nanoseconds, or FAT's 2 s and
#     exfat's 10 ms), so both tool-written and kernel-written fields count;
#   - fields past 2038 decode by each format's rule: ext4's epoch bits,
#     jfs's unsigned 32-bit seconds, exfat's UTC offset;
#   - vfat: the 2-second unit, a long name and an 8.3 name;
#   - no format answers "no raw-time parser"; a file that is not there is
#     exit 2 with one line.
# Usage: test_rawtime.sh BUILD
set -u
build=${1:-build}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
themis=$build/themis
decode() { python3 "$here/rawtime_decode.py" "$@"; }
export TZ=UTC

# raw IMG NAME INO: Themis's reading, into $raw_m and $raw_c (sec.nsec).
raw() {
	raw_m="" raw_c=""
	if ! "$themis" clock --raw "$1" "$2" "$3" >"$work/raw" 2>&1; then
		fail "themis clock --raw $(basename "$1") $2 $3: $(cat "$work/raw")"
		return 1
	fi
	raw_m=$(grep -o ' mtime=[-0-9.]*' "$work/raw" | cut -d= -f2)
	raw_c=$(grep -o ' ctime=[-0-9.]*' "$work/raw" | cut -d= -f2)
}
# same WHAT THEMIS TOOL WHO: the two readings agree.
same() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		ok "$1: $2 (as $4 reads it)"
	else
		fail "$1: themis reads '$2', $4 reads '$3' ($(cat "$work/raw"))"
	fi
}
# both WHAT IMG NAME INO MTIME CTIME WHO: mtime and ctime against the tool.
both() {
	raw "$2" "$3" "$4" || return
	same "$1 mtime" "$raw_m" "$5" "$7"
	same "$1 ctime" "$raw_c" "$6" "$7"
}
# norm SEC NSEC: sec.nsec with 9 digits.
norm() { printf '%d.%09d' "$1" "$2"; }
# guest FS: the base image after the guest's script, in $work/g-FS.img.
guest() {
	"$themis" boot --disk "$build/images/$1.img" --script --save-disks "$work/g-$1" \
		>"$work/g-$1.out" 2>&1 && [ -s "$work/g-$1/disk0.img" ] &&
		mv "$work/g-$1/disk0.img" "$work/g-$1.img" && return 0
	fail "$1: the guest's script: $(tail -n 2 "$work/g-$1.out")"
	return 1
}
# The clock is frozen (-f, no '@'): a mkfs that takes over a second on a
# busy host stamps the same second (nilfs2's root once read :10).
mkimg() { # mkimg FILE MIB MKFS...: an image made at 2030-05-06T07:08:09Z
	f=$1 mib=$2
	shift 2
	rm -f "$f" && truncate -s "${mib}M" "$f" &&
		QA_CHECK_FS=1 faketime -f '2030-05-06 07:08:09' "$@" "$f" >/dev/null 2>&1 ||
		fail "$* $f failed (scripts/deps.sh installs the tools)"
}
made=1904281689 # 2030-05-06T07:08:09Z

# ---- ext4: debugfs sets the fields, debugfs reads them back ----
# ext_time FIELD: sec.nsec of debugfs's "FIELD: 0xBASE:EXTRA".
ext_time() {
	v=$(grep -o "^ *$1: 0x[0-9a-f]*:[0-9a-f]*" "$work/stat" | sed 's/.*: //')
	base=$(printf '%d' "${v%%:*}") extra=$(printf '%d' "0x${v#*:}")
	[ "$base" -ge 2147483648 ] && base=$((base - 4294967296))
	norm $((base + ((extra & 3) << 32))) $((extra >> 2))
}
mkimg "$work/e.img" 16 mkfs.ext4 -q -F -I 256
echo hi >"$work/hi"
for c in "write $work/hi f" "set_inode_field f mtime 0x80000000" \
	"set_inode_field f mtime_extra 0x00000005" "set_inode_field f ctime 0x12345678" \
	"set_inode_field f ctime_extra 0x0000000a"; do
	debugfs -w -R "$c" "$work/e.img" >/dev/null 2>&1 || fail "debugfs $c"
done
debugfs -R "stat f" "$work/e.img" >"$work/stat" 2>/dev/null
ino=$(sed -n 's/^Inode: \([0-9]*\).*/\1/p' "$work/stat")
both "ext4 (epoch bits)" "$work/e.img" f "$ino" "$(ext_time mtime)" "$(ext_time ctime)" debugfs
if guest ext4; then
	debugfs -R "stat t" "$work/g-ext4.img" >"$work/stat" 2>/dev/null
	ino=$(sed -n 's/^Inode: \([0-9]*\).*/\1/p' "$work/stat")
	both "ext4 (the guest's t)" "$work/g-ext4.img" t "$ino" "$(ext_time mtime)" \
		"$(ext_time ctime)" debugfs
fi

# ---- xfs: xfs_db ----
xfs_time() { # xfs_time IMG INO FIELD
	TZ=UTC xfs_db -r -c "inode $2" -c "p core.$3" "$1" >"$work/xdb" 2>&1
	s=$(sed -n "s/^core.$3.sec = //p" "$work/xdb") n=$(sed -n "s/^core.$3.nsec = //p" "$work/xdb")
	norm "$(date -u -d "$s" +%s)" "$n"
}
xfs_check() { # xfs_check WHAT IMG
	ino=$(xfs_db -r -c sb -c 'p rootino' "$2" | sed 's/.*= //')
	both "$1" "$2" x "$ino" "$(xfs_time "$2" "$ino" mtime)" "$(xfs_time "$2" "$ino" ctime)" xfs_db
}
mkimg "$work/x.img" 300 mkfs.xfs -q -f -m bigtime=1
xfs_check "xfs bigtime (root)" "$work/x.img"
mkimg "$work/x0.img" 300 mkfs.xfs -q -f -m bigtime=0
xfs_check "xfs legacy (root)" "$work/x0.img"
guest xfs && xfs_check "xfs (the guest's root)" "$work/g-xfs.img"

# ---- btrfs: btrfs inspect-internal dump-tree ----
btrfs_check() { # btrfs_check WHAT IMG NAME
	btrfs inspect-internal dump-tree -t 5 "$2" >"$work/tree" 2>/dev/null
	ino=$(grep -B1 "index [0-9]* namelen [0-9]* name: $3\$" "$work/tree" |
		sed -n 's/.*key (\([0-9]*\) INODE_REF 256).*/\1/p' | head -n 1)
	tm() {
		awk -v k="key ($ino INODE_ITEM 0)" -v f="$1" \
			'/^[[:space:]]*item [0-9]+ key/ && index($0, k) { on = 1; next } on && /key \(/ { exit }
			 on && $1 == f { split($2, t, "."); printf "%d.%09d", t[1], t[2]; exit }' "$work/tree"
	}
	both "$1" "$2" "$3" "${ino:-0}" "$(tm mtime)" "$(tm ctime)" dump-tree
}
mkdir -p "$work/root"
echo hi >"$work/root/a_long_file_name.txt"
touch -d '2031-02-03 04:05:07.123456789 UTC' "$work/root/a_long_file_name.txt"
echo hi >"$work/root/SHORT.TXT"
touch -d '2099-12-31 23:59:59 UTC' "$work/root/SHORT.TXT"
# Not under faketime, which would shift the times stat gives mkfs.
truncate -s 128M "$work/b.img"
mkfs.btrfs -q -f --rootdir "$work/root" "$work/b.img" >/dev/null 2>&1 || fail "mkfs.btrfs --rootdir"
btrfs_check "btrfs (--rootdir)" "$work/b.img" a_long_file_name.txt
guest btrfs && btrfs_check "btrfs (the guest's t)" "$work/g-btrfs.img" t

# ---- f2fs: dump.f2fs ----
f2fs_check() { # f2fs_check WHAT IMG NAME
	for ino in 4 5 6 7 8 9 10 11 12; do
		dump.f2fs -i "$ino" "$2" >"$work/dump" 2>&1
		grep -q "^i_name[[:space:]]*\[$3\]" "$work/dump" && break
	done
	tm() {
		s=$(sed -n "s/^i_$1 .*: \([0-9]*\)\]/\1/p" "$work/dump")
		n=$(sed -n "s/^i_$1_nsec .*: \([0-9]*\)\]/\1/p" "$work/dump")
		norm "$s" "$n"
	}
	both "$1" "$2" "$3" "$ino" "$(tm mtime)" "$(tm ctime)" dump.f2fs
}
mkimg "$work/f.img" 64 mkfs.f2fs -q -f
sload.f2fs -f "$work/root" "$work/f.img" >/dev/null 2>&1 || fail "sload.f2fs"
f2fs_check "f2fs (sload)" "$work/f.img" a_long_file_name.txt
guest f2fs && f2fs_check "f2fs (the guest's t)" "$work/g-f2fs.img" t

# ---- jfs: jfs_debugfs sets and reads the fields ----
jfs_check() { # jfs_check WHAT IMG INO
	printf 'i %s\nx\nq\n' "$3" | jfs_debugfs "$2" >"$work/jd" 2>&1
	tm() {
		s=$(grep -o "di_$1.tv_sec:[[:space:]]*0x[0-9a-f]*" "$work/jd" | sed 's/.*0x/0x/')
		n=$(grep -o "di_$1.tv_nsec:[[:space:]]*0x[0-9a-f]*" "$work/jd" | sed 's/.*0x/0x/')
		norm "$(printf '%d' "$s")" "$(printf '%d' "$n")"
	}
	both "$1" "$2" x "$3" "$(tm mtime)" "$(tm ctime)" jfs_debugfs
}
mkimg "$work/j.img" 64 mkfs.jfs -q
jfs_check "jfs (root, mkfs)" "$work/j.img" 2
printf 'i 2\nm\n18 0xfffffffe\nm\n19 0x075bcd15\nm\n16 0x80000000\nm\n17 0x3b9ac9ff\nx\nq\n' |
	jfs_debugfs "$work/j.img" >/dev/null 2>&1
jfs_check "jfs (root set past 2038: unsigned seconds)" "$work/j.img" 2
[ "$raw_m" = 4294967294.123456789 ] && ok "jfs: 0xfffffffe is 2106, not 1969" ||
	fail "jfs: di_mtime 0xfffffffe read as $raw_m"
guest jfs && jfs_check "jfs (the guest's root)" "$work/g-jfs.img" 2

# ---- minix: rawtime_decode.py ----
# dec_check WHAT FS IMG NAME-OR-INO [NAME]: Themis against the decoder.
dec_check() {
	decode "$2" "$3" "$4" >"$work/dec" 2>&1 || { fail "$1: the decoder: $(cat "$work/dec")"; return; }
	m=$(grep -oE '(^| )mtime=[-0-9.]*' "$work/dec" | cut -d= -f2)
	c=$(grep -oE '(^| )ctime=[-0-9.]*' "$work/dec" | cut -d= -f2)
	ino=$(grep -o 'ino=[0-9]*' "$work/dec" | cut -d= -f2)
	raw "$3" "${5:-$4}" "${ino:-0}" || return
	same "$1 mtime" "$raw_m" "$m" rawtime_decode.py
	[ -z "$c" ] && [ -z "$raw_c" ] || same "$1 ctime" "$raw_c" "$c" rawtime_decode.py
}
for v in 1 2 3; do
	mkimg "$work/m$v.img" 8 mkfs.minix -$v
	dec_check "minix v$v (root)" minix "$work/m$v.img" 1 x
	[ "$raw_m" = "$made.000000000" ] || fail "minix v$v: root mtime $raw_m, mkfs ran at $made"
done
guest minix && dec_check "minix v3 (the guest's t)" minix "$work/g-minix.img" t

# ---- nilfs2: rawtime_decode.py, through the DAT ----
mkimg "$work/n.img" 160 mkfs.nilfs2 -q -f
dec_check "nilfs2 (root, mkfs)" nilfs2 "$work/n.img" 2 x
[ "$raw_m" = "$made.000000000" ] || fail "nilfs2: root mtime $raw_m, mkfs ran at $made"
guest nilfs2 && dec_check "nilfs2 (the guest's root)" nilfs2 "$work/g-nilfs2.img" 2 x

# ---- vfat: mcopy -m keeps the times touch gave; rawtime_decode.py ----
for bits in 16 32; do
	mkimg "$work/v$bits.img" 64 mkfs.vfat -F $bits
	mcopy -m -i "$work/v$bits.img" "$work/root/a_long_file_name.txt" "$work/root/SHORT.TXT" ::/ ||
		fail "mcopy"
	dec_check "vfat FAT$bits (long name)" vfat "$work/v$bits.img" a_long_file_name.txt
	[ "$raw_m" = 1927857906.000000000 ] && ok "vfat: :07.123 is stored as :06 (2 s)" ||
		fail "vfat: 2031-02-03T04:05:07.123Z read as $raw_m, want 1927857906 (2 s units)"
	dec_check "vfat FAT$bits (8.3 name, 2099)" vfat "$work/v$bits.img" short.txt
done
guest vfat && dec_check "vfat (the guest's t)" vfat "$work/g-vfat.img" t

# ---- exfat: the guest writes it; rawtime_decode.py ----
if guest exfat; then
	dec_check "exfat (the guest's t)" exfat "$work/g-exfat.img" t
	# A UTC offset: +07:00 (0x80 | 28 quarter hours) and 1.23 s more.
	python3 - "$work/g-exfat.img" <<'PY' || fail "exfat: no entry of t to give an offset"
import sys
img = bytearray(open(sys.argv[1], "rb").read())
for o in range(0, len(img) - 96, 32):
    if img[o] == 0x85 and img[o + 32] == 0xC0 and img[o + 32 + 3] == 1 and img[o + 64] == 0xC1 \
            and img[o + 66:o + 68] == b"t\0":
        img[o + 21], img[o + 23] = 123, 0x80 | 28
        open(sys.argv[1], "wb").write(img)
        sys.exit(0)
sys.exit(1)
PY
	dec_check "exfat (t at UTC+07:00, +1.23 s)" exfat "$work/g-exfat.img" t
fi

# Bad input: exit 2, one line.
expect 2 "no file 'nothere' in the root directory" -- "$themis" clock --raw "$work/v16.img" nothere 0
expect 2 "no item (999999 1 0) in tree 5" -- "$themis" clock --raw "$work/b.img" x 999999
for f in "$work"/*.img; do
	"$themis" clock --raw "$f" x 2 2>&1 | grep -q "no raw-time parser" && fail "$f: no raw-time parser"
done
finish "rawtime"
