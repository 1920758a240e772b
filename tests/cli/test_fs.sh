#!/bin/sh
# tier: fast
# One place per filesystem (src/fs): outside src/fs, no source file names a
# filesystem in a string literal (every list, default and help text is
# made from the descriptors); `themis fs` shows each descriptor and refuses
# a name it does not know; the base images' mkfs lines are the ones
# scripts/mkimages.sh runs, and an image made from them now is the base
# image, byte for byte (nilfs2's mkfs takes no fixed seed: named and
# skipped for the byte check).
#   test_fs.sh [BUILD_DIR]
set -u
b=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
themis=$b/themis
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib.sh"

names=$("$themis" fs --names)
[ "$(echo "$names" | wc -l)" -ge 11 ] || fail "themis fs --names: '$names'"

# The lint: comments removed by the compiler, literals searched for any
# filesystem's name as a whole word. The shell fragments (*_sh.inc) are
# not C and name the filesystems they are generated for at run time.
srcs=$(cd "$top" && ls src/*/*.c src/*/*.h src/check/repro_prog.inc guest/agent/*.c guest/agent/*.h |
	grep -v '^src/fs/')
# shellcheck disable=SC2086
if (cd "$top" && python3 tests/cli/fs_names_lint.py $names -- $srcs) >"$work/lint" 2>&1; then
	ok "no string literal outside src/fs names a filesystem ($(echo "$srcs" | wc -w) files)"
else
	fail "string literals outside src/fs name a filesystem (put it in its descriptor):"
	sed 's/^/    /' "$work/lint"
fi
# The lint's control: a file that names one is found.
printf 'static const char *x = "a %s b"; /* %s */\n' "$(echo "$names" | tail -1)" \
	"$(echo "$names" | head -1)" >"$work/named.c"
# shellcheck disable=SC2086
if python3 "$top/tests/cli/fs_names_lint.py" $names -- "$work/named.c" >"$work/lint2" &&
	! grep -q ':1: "a ' "$work/lint2"; then
	fail "the lint misses a literal that names a filesystem"
else
	ok "the lint finds a literal naming one, and not a comment ($(wc -l <"$work/lint2") hit)"
fi
[ "$(wc -l <"$work/lint2")" -eq 1 ] || fail "the lint counted a comment: $(cat "$work/lint2")"

# themis fs: the table names every filesystem; one in full; bad input.
"$themis" fs >"$work/table" || fail "themis fs exited $?"
for fs in $names; do
	grep -q "^$fs " "$work/table" || fail "themis fs has no row for $fs"
done
expect 0 "crash *recovers yes, fsync names yes, ordered names yes" -- "$themis" fs ext4
expect 0 "checker *none: nilfs-utils has no checker" -- "$themis" fs nilfs2
expect 0 "log replay *jfs_fsck --replay_journal_only" -- "$themis" fs jfs
expect 2 "unknown filesystem 'ext9' (known: ext2, ext3" -- "$themis" fs ext9
expect 2 "unknown option '--frob'" -- "$themis" fs --frob
expect 2 "unknown filesystem 'ext9' (known:" -- "$themis" explore ext4 ext9
expect 0 '"fsck": \["xfs_repair"' -- "$themis" fs --json - xfs
"$themis" fs --json "$work/all.json" >/dev/null &&
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
assert [d["name"] for d in a] == sys.argv[2].split(), a' "$work/all.json" "$names" ||
	fail "themis fs --json is not a list of every descriptor"

# The mkfs lines: an image made now from them is the base image, but
# where the descriptor says its mkfs is not repeatable even on the
# constant host (jfs); that one probes as itself.
THEMIS=$themis "$top/scripts/mkimages.sh" "$work" >"$work/mk.log" 2>&1 ||
	fail "scripts/mkimages.sh from the descriptors failed: $(tail -n 3 "$work/mk.log")"
same=0
for fs in $names; do
	if cmp -s "$work/images/$fs.img" "$b/images/$fs.img"; then
		same=$((same + 1))
	elif "$themis" fs "$fs" | grep -q "^  mkfs draws .*not repeatable"; then
		"$themis" layout "$work/images/$fs.img" >/dev/null ||
			fail "$fs: the image made from its descriptor has no layout"
	else
		fail "$fs: the image made from its descriptor is not the base image"
	fi
done
ok "$same images made from the descriptors equal the base images"
[ "$same" -ge 15 ] || fail "only $same images are repeatable"
rm -rf "$work/images"

finish test_fs
