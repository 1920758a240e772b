#!/bin/sh
# The second opinion for the Linux board: the same kernel, initramfs and
# base images boot under QEMU's virt machine (with its own OpenSBI) and
# under Themis; the guest agent runs its fixed filesystem script on every
# disk in both. The gate asks for
#   1. the same words from the agent (kernel timestamps aside), and
#   2. disks the filesystems' own checkers call clean, and
#   3. identical file trees and contents on QEMU's disks and Themis's,
#      as listed by the agent from a fresh boot on each disk.
#   tests/boot/qemu_compare.sh [BUILD_DIR] [FS,FS ...]
# Default pairs cover every filesystem `themis fs` knows, two at a time in
# its order.
# THEMIS_KERNEL=IMAGE gates another kernel (default BUILD_DIR/guest/Image).
# On the default 6.1 kernel a pair with ntfs3 boots the kernel with F6's
# fix (docs/findings.md: stock 6.1's ntfs3 makes no file on a fresh
# volume, so its tree would be empty on both machines and prove nothing).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$top/build}
[ $# -gt 0 ] && shift
themis=$b/themis
pairs=${*:-$("$themis" fs --names | xargs -n 2 | tr ' ' ',')}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib.sh"

# The agent's own lines: everything from its first line on, minus kernel
# messages ("[  1.23] ..."), Themis's own reports, and the two lines that
# say which machine it is.
agent_lines() {
	tr -d '\r' <"$1" | sed -n '/^themis-agent:/,$p' | grep -v '^\[' | grep -v '^themis: ' |
		grep -v '^themis-agent: doorbell\|^next script'
}

# check_fs FS IMG: the filesystem's own checker as its descriptor says
# (`themis fs`), on a copy (fsck.minix has no read-only mode); 3 when it
# has none.
check_fs() {
	cmd=$("$themis" fs --json - "$1" | python3 -c 'import json, sys
argv = json.load(sys.stdin)[0]["fsck"]
print(" ".join(argv)) if argv else sys.exit(3)') || return 3
	cp --sparse=always "$2" "$2.chk" && $cmd "$2.chk"
	rc=$?
	rm -f "$2.chk"
	return $rc
}

run_pair() {
	pair=$1
	set -- $(echo "$pair" | tr ',' ' ')
	kernel_for "$@"
	dir=$work/$(echo "$pair" | tr ',' '-')
	mkdir -p "$dir/themis"
	qdrives="" tdisks="" fslist="" i=0
	for fs in "$@"; do
		cp "$b/images/$fs.img" "$dir/qemu$i.img"
		qdrives="$qdrives -drive file=$dir/qemu$i.img,if=none,format=raw,id=d$i -device virtio-blk-device,drive=d$i"
		tdisks="$tdisks --disk $b/images/$fs.img"
		fslist="$fslist${fslist:+,}$fs"
		i=$((i + 1))
	done
	append="console=ttyS0 panic=-1 themis.fs=$fslist"
	# shellcheck disable=SC2086
	timeout 600 qemu-system-riscv64 -M virt -m 256M -smp 1 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$b/guest/initramfs.cpio.gz" \
		-append "$append" $qdrives >"$dir/qemu.out" 2>&1 ||
		{ fail "$pair: QEMU exited $?"; tail -n 5 "$dir/qemu.out"; return; }
	# shellcheck disable=SC2086
	"$themis" boot --kernel "$kernel" $tdisks --script --save-disks "$dir/themis" >"$dir/themis.out" 2>&1 ||
		{ fail "$pair: themis exited $?"; tail -n 5 "$dir/themis.out"; return; }
	agent_lines "$dir/qemu.out" >"$dir/qemu.lines"
	agent_lines "$dir/themis.out" >"$dir/themis.lines"
	if ! grep -q '^script done' "$dir/qemu.lines"; then
		fail "$pair: the agent's script did not finish under QEMU"
	elif ! cmp -s "$dir/qemu.lines" "$dir/themis.lines"; then
		fail "$pair: the agent's words differ (< qemu, > themis):"
		diff "$dir/qemu.lines" "$dir/themis.lines" | head -n 12
	else
		echo "ok: $pair: same $(wc -l <"$dir/qemu.lines") lines from the agent"
	fi
	i=0
	for fs in "$@"; do
		for side in qemu themis; do
			f=$dir/qemu$i.img
			[ $side = themis ] && f=$dir/themis/disk$i.img
			check_fs "$fs" "$f" >"$dir/fsck.out" 2>&1
			rc=$?
			if [ $rc -eq 3 ]; then
				echo "note: $pair: $fs on $side: no offline checker exists; only the trees are compared"
			elif [ $rc -eq 0 ]; then
				echo "ok: $pair: $fs on $side: clean"
			else
				fail "$pair: $fs on $side: the checker complains:"
				tail -n 6 "$dir/fsck.out"
			fi
		done
		# The trees: boot once more on each side's disk and let the agent
		# list it (one disk a boot: two copies of one filesystem share
		# its UUID, which xfs and btrfs refuse to mount twice).
		for side in q t; do
			f=$dir/qemu$i.img
			[ $side = t ] && f=$dir/themis/disk$i.img
			"$themis" boot --kernel "$kernel" --disk "$f" --append "themis.fs=$fs" --list >"$dir/list.out" 2>&1 ||
				{ fail "$pair: listing $fs ($side) exited $?"; tail -n 5 "$dir/list.out"; }
			grep '^list0 ' "$dir/list.out" | sed 's/^list0 //' >"$dir/tree.$side"
		done
		if [ -s "$dir/tree.q" ] && cmp -s "$dir/tree.q" "$dir/tree.t"; then
			echo "ok: $pair: $fs: identical trees ($(wc -l <"$dir/tree.q") entries)"
		else
			fail "$pair: $fs: the trees differ (< qemu, > themis):"
			diff "$dir/tree.q" "$dir/tree.t" | head -n 12
		fi
		i=$((i + 1))
	done
}

for p in $pairs; do
	run_pair "$p"
done
finish qemu-compare
