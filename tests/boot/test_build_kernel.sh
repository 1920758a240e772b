#!/bin/sh
# tier: fast
# scripts/build-kernel.sh's variants, built in the plain kernel's tree and
# put back after. Properties guarded:
#   - a user's own patch folder (one comment added to fs/ext4/namei.c)
#     builds Image-NAME, and the last line printed is the path to pass to
#     --kernel; a patch that changes no code gives the base kernel, byte
#     for byte: the variant is the base plus its patch and nothing else;
#   - after a real variant (the planted ext4-link3's patch) the tree is
#     put back: the comment variant built next is the base again (without
#     the put back it would carry the planted bug's code); the same
#     patches give the same image whatever was built before;
#   - a variant build killed mid-way (SIGKILL, no trap runs) is undone by
#     the next run before anything else: the comment variant is the base;
#   - a patch that does not apply fails naming it and leaves the tree as
#     it was; a patch to a Kconfig file is refused (variants share their
#     base's configuration); a variant costs its patch, not a tree copy
#     (no linux-6.1-NAME folder appears).
#   tests/boot/test_build_kernel.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel base
bk=$top/scripts/build-kernel.sh
tree=$b/linux-6.1
lock=$b/guest/.build-kernel.lock
f=fs/ext4/namei.c

# A patch adding one comment at the end of $f, in folder $work/$1.
mkpatch() {
	mkdir -p "$work/$1/a/fs/ext4" "$work/$1/b/fs/ext4"
	flock "$lock" cp "$tree/$f" "$work/$1/a/$f"
	cp "$work/$1/a/$f" "$work/$1/b/$f"
	echo "/* $2 */" >>"$work/$1/b/$f"
	(cd "$work/$1" && diff -u "a/$f" "b/$f") >"$work/$1/0001-$1.patch"
	rm -rf "$work/$1/a" "$work/$1/b"
}
# same_as_base NAME WHAT: Image-NAME equals the base Image, byte for byte.
same_as_base() {
	if cmp -s "$b/guest/Image-$1" "$b/guest/Image"; then
		ok "$2"
	else
		fail "$2: Image-$1 differs from the base Image"
	fi
}

mkpatch themis-comment "a comment and nothing else"
(cd "$work" && "$bk" --patch "$work/themis-comment" "$b") >"$work/c1.out" 2>&1
st=$?
last=$(tail -n 1 "$work/c1.out")
[ "$st" -eq 0 ] && [ "$last" = "$b/guest/Image-themis-comment" ] &&
	ok "a patch folder of one's own: last line '$last'" ||
	{ fail "build of a user's patch: status $st, last line '$last'"; tail -n 5 "$work/c1.out"; }
same_as_base themis-comment "a patch that changes no code gives the base kernel, byte for byte"
[ ! -e "$b/linux-6.1-themis-comment" ] && ok "no copy of the tree" || fail "a tree copy $b/linux-6.1-themis-comment"

# After a real variant (the planted link-count bug's patch, in a folder of
# this test's, so that it is built now), the comment variant (rebuilt:
# its patch changed) must be the base again.
need_kernel ext4-link3
mkdir -p "$work/themis-link3" "$work/themis-killed"
cp "$top"/guest/bugs/ext4-link3/*.patch "$work/themis-link3/"
cp "$top"/guest/bugs/ext4-link3/*.patch "$work/themis-killed/"
"$bk" --patch "$work/themis-link3" "$b" >"$work/l3.out" 2>&1 || fail "the link3 copy: $(tail -n 3 "$work/l3.out")"
cmp -s "$b/guest/Image-themis-link3" "$b/guest/Image-ext4-link3" && ! cmp -s "$b/guest/Image-themis-link3" "$b/guest/Image" &&
	ok "the same patches give the same image, whatever was built before" ||
	fail "Image-themis-link3 differs from Image-ext4-link3, or equals the base"
mkpatch themis-comment "a second comment"
"$bk" --patch "$work/themis-comment" "$b" >"$work/c2.out" 2>&1 || fail "comment variant after the link3 copy"
same_as_base themis-comment "after a variant that changes code the tree is put back"

# Killed mid-build (the link3 patch in, no trap runs): the next run puts
# the tree back first.
setsid "$bk" --patch "$work/themis-killed" "$b" >"$work/killed.out" 2>&1 &
pid=$!
for _ in $(seq 1200); do
	grep -q "building $tree/" "$work/killed.out" 2>/dev/null && break
	sleep 0.1
done
kill -KILL -- "-$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q "building $tree/" "$work/killed.out" && ok "killed mid-build, with its patch in" ||
	fail "the build never started: $(tail -n 3 "$work/killed.out")"
mkpatch themis-comment "a third comment"
"$bk" --patch "$work/themis-comment" "$b" >"$work/c3.out" 2>&1 || fail "comment variant after a killed build"
same_as_base themis-comment "a killed variant build is undone by the next run"

# Bad patches.
mkdir -p "$work/nope"
printf -- '--- a/fs/ext4/namei.c\n+++ b/fs/ext4/namei.c\n@@ -1,1 +1,1 @@\n-this line is not there\n+nor this\n' \
	>"$work/nope/0001-nope.patch"
expect 1 "0001-nope.patch does not apply" -- "$bk" --patch "$work/nope" "$b"
flock "$lock" sh -c "[ ! -d '$tree/.themis-patched' ]" && ok "a patch that does not apply leaves nothing in" ||
	fail "the tree was left patched"
mkdir -p "$work/kconf"
printf -- '--- a/fs/ext4/Kconfig\n+++ b/fs/ext4/Kconfig\n@@ -1,1 +1,1 @@\n-x\n+y\n' >"$work/kconf/0001-k.patch"
expect 1 "changes a Kconfig file" -- "$bk" --patch "$work/kconf" "$b"
# Debug sets: --debug=lockdep is 6.12's debug kernel without KASAN; on
# 6.1, whose debug kernel has no KASAN, it would be --debug's, so it is
# refused; an unknown set is refused. Both before anything is built.
expect 2 "6.1's debug kernel adds nothing to guest/kernel/debug.config (no debug-6.1.config), so it is --debug's: use --debug" -- \
	"$bk" --debug=lockdep "$b"
expect 2 "--debug=kasan: unknown debug set (known: --debug, --debug=lockdep)" -- \
	"$bk" --debug=kasan --version 6.12 "$b"
for n in themis-comment themis-link3 themis-killed nope kconf; do
	rm -f "$b/guest/Image-$n" "$b/guest/Image-$n.stamp" "$b/guest/kernel-build-$n.log"
done
finish test_build_kernel
