#!/bin/sh
# tier: fast
# Saved machines: `themis boot --save` at the agent's command loop, and
# `--load` later. A loaded machine must be the saved one (same RAM hash) and
# behave as the booted one (the agent's script says the same words, the
# disks come out clean); a damaged file, one from another build, another
# disk set, or a base image changed since the save are refused clearly.
#   tests/boot/test_snapshot.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$top/build}
themis=$b/themis
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib.sh"

# poke FILE OFFSET CHAR: overwrite one byte of FILE in place. A failure, or
# an offset past the end (dd would grow the file, a different change from
# the one the caller means), counts as a failure of the test.
poke() {
	size=$(stat -c %s "$1" 2>/dev/null) || size=0
	if [ "$2" -ge "$size" ]; then
		fail "poke: $1 has no byte $2"
	elif ! printf '%s' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; then
		fail "poke: cannot write byte $2 of $1"
	fi
}

cp "$b/images/ext4.img" "$work/ext4.img"
cp "$b/images/xfs.img" "$work/xfs.img"
disks="--disk $work/ext4.img --disk $work/xfs.img"
snap=$work/m.snap

# shellcheck disable=SC2086
"$themis" boot $disks --save "$snap" --stats >"$work/save.out" 2>&1 || fail "save exited $?"
saved_hash=$(sed -n 's/^ram-hash //p' "$work/save.out")
"$themis" boot --load "$snap" --stats >"$work/load.out" 2>&1 || fail "plain load exited $?"
loaded_hash=$(sed -n 's/^ram-hash //p' "$work/load.out")
[ -n "$saved_hash" ] && [ "$saved_hash" = "$loaded_hash" ] &&
	ok "the loaded machine's RAM hash is the saved one's ($saved_hash)" ||
	fail "RAM hash: saved $saved_hash, loaded $loaded_hash"

# The agent's script from the loaded machine says what it says after a boot.
"$themis" boot --load "$snap" --script --save-disks "$work/out-load" >"$work/script-load" 2>&1 ||
	fail "load + script exited $?"
# shellcheck disable=SC2086
"$themis" boot $disks --script >"$work/script-boot" 2>&1 || fail "boot + script exited $?"
words() { sed -n '/^script vda/,/^script done/p' "$1" | grep -v '^\['; }
if [ -n "$(words "$work/script-boot")" ] && [ "$(words "$work/script-load")" = "$(words "$work/script-boot")" ]; then
	ok "the script's words after --load equal those after a boot"
else
	fail "the script's words differ after --load"
	diff "$work/script-boot" "$work/script-load" | head -n 10
fi
e2fsck -fn "$work/out-load/disk0.img" >/dev/null 2>&1 && xfs_repair -n "$work/out-load/disk1.img" >/dev/null 2>&1 &&
	ok "disks after load + script: fsck clean" || fail "disks after load + script are not clean"

# Bad snapshots and mismatches.
cp "$snap" "$work/flip.snap"
poke "$work/flip.snap" 100000 X
head -c 1000 "$snap" >"$work/short.snap"
head -c 5000 /dev/urandom >"$work/random.snap"
cp "$themis" "$work/themis-other" && printf 'another build' >>"$work/themis-other"
expect 2 "damaged snapshot" -- "$themis" boot --load "$work/flip.snap"
expect 2 "damaged snapshot\|too short" -- "$themis" boot --load "$work/short.snap"
expect 2 "not a Themis snapshot" -- "$themis" boot --load "$work/random.snap"
expect 2 "No such file" -- "$themis" boot --load "$work/missing.snap"
expect 2 "another build of themis" -- "$work/themis-other" boot --load "$snap"
expect 2 "not the base image" -- "$themis" boot --load "$snap" --disk "$work/xfs.img" --disk "$work/ext4.img"
expect 2 "snapshot has 2 disks" -- "$themis" boot --load "$snap" --disk "$work/ext4.img"
# One byte inside the image, its size unchanged: the hash must see it.
poke "$work/ext4.img" 5000000 Z
expect 2 "not the base image" -- "$themis" boot --load "$snap"
expect 2 "goes with neither" -- "$themis" boot --save "$work/x.snap" --script

finish snapshot
