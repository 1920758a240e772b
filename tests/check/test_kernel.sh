#!/bin/sh
# tier: full
# The kernel's own reports as an oracle (src/lens/lens_kernel.c) on the
# debug kernel (scripts/build-kernel.sh --debug: KASAN, lockdep, UBSAN,
# BUG and WARN text): the planted warning guest/bugs/ext4-warn, which
# changes nothing a file holds or returns, is found as kernel:warning with
# the report's lines, where in ext4 it fired and its call trace, each frame
# with its source line (the debug kernel's line tables); its trace
# replays as reproduced and groups as the kernel view; the same scope on
# the plain debug kernel reports nothing (the debug kernel itself is
# quiet), and on the base kernel with the same patch nothing either (the
# base kernels compile warnings out: why the debug kernel exists); a report
# while the crash lens recovers a crash disk is found at that crash point;
# a lock-order inversion no serial run can deadlock on
# (guest/bugs/ext4-lock-order) is found by the default scope as
# kernel:lockdep, and minimized to the two operations that take the locks;
# a use-after-free that returns the right answer (guest/bugs/ext4-uaf) is
# found by the default scope on the 6.12 debug kernel as kernel:kasan; a
# report a panic cuts short (guest/bugs/ext4-bug-on) still signs the
# finding with what was printed; a warning a corrupted image's mount and
# walk print (guest/bugs/ext4-iget-warn) is `themis corrupt`'s
# kernel-failure, counted by kind.
#   tests/check/test_kernel.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel --debug base ext4-warn jbd2-replay-warn ext4-lock-order ext4-bug-on ext4-iget-warn
need_kernel ext4-warn ext4-lock-order
need_kernel --debug --version 6.12 base ext4-uaf
need_kernel --debug=lockdep --version 6.12 base ext4-lock-order
need_kernel --version 6.12 ext4-uaf
cd "$work" || exit 1

scope="ext4 ext2 --ops create,link --paths f0,f1,f2 --depth 3 --jobs 1 --quiet"

# quiet_first N KERNEL...: the default scope's first N states on each
# kernel report nothing (a control: the planted bug's own kernel finds
# it within them).
quiet_first() {
	n=$1
	shift
	for k in "$@"; do
		"$themis" explore ext4 ext2 --kernel "$b/guest/$k" --max-states "$n" --jobs 1 \
			--quiet --out "$work/quiet-$k" >"$work/quiet-$k.out" 2>&1
		st=$?
		[ "$st" -eq 3 ] && grep -q '^0 discrepancies, 0 findings' "$work/quiet-$k.out" &&
			grep -q " $n states" "$work/quiet-$k.out" &&
			ok "$k: the same first $n states report nothing" ||
			{ fail "$k on the first $n states: exit $st:"; tail -n 3 "$work/quiet-$k.out" | sed 's/^/    /'; }
	done
}

# 0. --kernel-reports: a kernel that cannot print the kinds asked for is
#    refused before anything runs or an earlier run's files go, saying
#    what it lacks (from its System.map); the debug kernels are taken
#    (sections 5 and 6 ask for lockdep and kasan).
mkdir -p "$work/kept" && : >"$work/kept/discrepancy-0001.trace"
expect 2 "Image cannot print these reports: kasan, lockdep (its System.map has no sign of CONFIG_KASAN, CONFIG_PROVE_LOCKING); a debug kernel can: scripts/build-kernel.sh --debug" -- \
	"$themis" explore ext4 ext2 --kernel-reports kasan,lockdep --kernel "$b/guest/Image" \
	--depth 1 --out "$work/kept"
[ -f "$work/kept/discrepancy-0001.trace" ] && ok "the refused run left the earlier run's files" ||
	fail "the refused run removed the earlier run's files"
expect 2 "Image-debug cannot print these reports: kasan (" -- \
	"$themis" explore ext4 ext2 --kernel-reports lockdep,kasan,ubsan --kernel "$b/guest/Image-debug" \
	--depth 1 --out "$work/kept"
expect 2 "--kernel-reports: unknown kind 'frob' (known: kasan kfence" -- \
	"$themis" explore ext4 ext2 --kernel-reports lockdep,frob --depth 1 --out "$work/kept"

# 1. The planted warning, found, with its lines.
# shellcheck disable=SC2086
"$themis" explore $scope --kernel "$b/guest/Image-debug-ext4-warn" --out "$work/warn" \
	>"$work/warn.out" 2>&1
st=$?
t=$(grep -l '^discrepancy kernel:warning:ext4_link ' "$work/warn"/discrepancy-*.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$t" ] &&
	grep -q '^discrepancy kernel:warning:ext4_link the kernel reported warning during .op link f0 f[12]. on ext4: WARNING: CPU: 0 PID: [0-9]* at fs/ext4/namei.c:[0-9]* ext4_link' "$t" &&
	grep -q '^show kernel .*ext4_link' "$t" && grep -q '^show kernel .*end trace' "$t"; then
	ok "ext4-warn on the debug kernel: $(grep -m1 '^discrepancy' "$t" | cut -c1-120)"
	# Each frame with its source line, from the kernel's line tables
	# (Image-debug-ext4-warn.debug): the warning's own and its callers'.
	if grep -q '^show kernel .* ext4_link+0x[0-9a-f]*/0x[0-9a-f]* (fs/ext4/namei.c:[0-9]*)$' "$t" &&
		grep -q '^show kernel .* vfs_link+0x[0-9a-f]*/0x[0-9a-f]* (fs/namei.c:[0-9]*)$' "$t"; then
		ok "the frames carry their source lines: $(grep -m1 ' ext4_link+.*(fs/' "$t" | sed 's/^show kernel *//')"
	else
		fail "no source line on the report's frames:"
		grep '^show kernel .*ext4_link' "$t" | head -n 3 | sed 's/^/    /'
	fi
else
	fail "ext4-warn on the debug kernel: exit $st, trace '$t':"
	tail -n 5 "$work/warn.out" | sed 's/^/    /'
fi
grep -q 'kernel reports: [1-9][0-9]* ([1-9][0-9]* warning)' "$work/warn.out" &&
	ok "the summary counts the reports: $(grep -m1 '^kernel reports' "$work/warn.out")" ||
	fail "no 'kernel reports' line in the summary"
grep -q 'kernel view' "$work/warn.out" &&
	ok "the group names the kernel view" ||
	{ fail "no group in the kernel view:"; grep '^  group' "$work/warn.out" | sed 's/^/    /'; }
[ -n "$t" ] && expect 1 'reproduced: the kernel reported warning' -- "$themis" replay "$t"
[ -n "$t" ] && expect 2 'a kernel report (kernel:warning:ext4_link)' -- "$themis" repro "$t" --out "$work/repro"

# 2. The plain debug kernel: no report of its own on the same scope.
# shellcheck disable=SC2086
"$themis" explore $scope --kernel "$b/guest/Image-debug" --out "$work/plain" >"$work/plain.out" 2>&1
st=$?
[ "$st" -eq 0 ] && grep -q '^0 discrepancies, 0 findings' "$work/plain.out" &&
	! grep -q '^kernel reports' "$work/plain.out" &&
	ok "the debug kernel alone reports nothing on the scope" ||
	{ fail "the plain debug kernel: exit $st:"; tail -n 5 "$work/plain.out" | sed 's/^/    /'; }

# 3. The base kernel with the same patch: the warning is compiled out.
# shellcheck disable=SC2086
"$themis" explore $scope --kernel "$b/guest/Image-ext4-warn" --out "$work/base" >"$work/base.out" 2>&1
st=$?
[ "$st" -eq 0 ] && grep -q '^0 discrepancies' "$work/base.out" &&
	ok "the base kernel with the patch: nothing to read (CONFIG_BUG is off)" ||
	{ fail "the base kernel with ext4-warn: exit $st:"; tail -n 5 "$work/base.out" | sed 's/^/    /'; }

# 4. A report while a crash disk is recovered (the crash lens's own
#    machine): guest/bugs/jbd2-replay-warn warns whenever jbd2's recovery
#    replays blocks; at `create f0; fsync f0`'s end the power cut leaves a
#    journal to replay. The trace ends in the crash step; replay redoes
#    that recovery and its report.
"$themis" explore ext4 ext2 --crash --ops create,fsync --paths f0 --depth 2 --jobs 1 --quiet \
	--kernel "$b/guest/Image-debug-jbd2-replay-warn" --out "$work/jbd2" >"$work/jbd2.out" 2>&1
st=$?
t=$(grep -l '^discrepancy kernel:warning:jbd2_journal_recover,jbd2_journal_load ' "$work/jbd2"/discrepancy-*.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q '^crash end$' "$t" &&
	grep -q 'while it recovered a crash: WARNING: CPU: 0 PID: [0-9]* at fs/jbd2/recovery.c' "$t"; then
	ok "a report in a crash's recovery: $(grep -m1 '^discrepancy' "$t" | cut -c1-110)"
	expect 1 'reproduced: the kernel reported warning while it recovered a crash' -- \
		"$themis" replay "$t"
else
	fail "jbd2-replay-warn under --crash: exit $st, trace '$t':"
	tail -n 5 "$work/jbd2.out" | sed 's/^/    /'
fi

# 4b. A report a panic cuts short (guest/bugs/ext4-bug-on: BUG_ON at a
#    third name, then the oops's panic): the finding carries the report's
#    first line and its lines, groups by it (kernel:bug:ext4_link), and
#    replays as reproduced.
# shellcheck disable=SC2086
"$themis" explore $scope --kernel "$b/guest/Image-debug-ext4-bug-on" --out "$work/bugon" \
	>"$work/bugon.out" 2>&1
st=$?
t=$(ls "$work"/bugon/finding-*.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$t" ] &&
	grep -q "^discrepancy finding guest failure during 'op link f[0-2] f[0-2]': kernel panic: .* (after the kernel reported bug: kernel BUG at fs/ext4/namei.c:[0-9]*!)" "$t" &&
	grep -q '^show kernel .*ext4_link+' "$t" && grep -q '^show kernel ---\[ end trace' "$t" &&
	grep -q '^  group 1: kernel:bug:ext4_link (kernel view' "$work/bugon.out" &&
	! grep -q '^  group 2' "$work/bugon.out"; then
	ok "a BUG cut short by its panic: the finding carries the report, one group kernel:bug:ext4_link"
	expect 1 'reproduced: guest failure during .op link' -- "$themis" replay "$t"
else
	fail "ext4-bug-on: exit $st, trace '$t':"
	grep '^discrepancy' "$t" 2>/dev/null | head -n 1 | cut -c1-200 | sed 's/^/    /'
	grep '^  group' "$work/bugon.out" | sed 's/^/    /'
fi

# 4c. corrupt reads the reports too: guest/bugs/ext4-iget-warn warns on an
#    inode of a non-directory with the hash-index flag and goes on. The
#    flip that sets that flag on ext3's f0 (inode-table byte 289 of sector
#    525, bit 4: 0x1000 of i_flags) is a kernel-failure counted as a
#    warning, with the report's first line, and its whole report, each
#    frame with its source line, on stderr and in --json's "report"; on
#    the plain debug kernel the same flip is only e2fsck's (fsck-only),
#    with no report.
for k in Image-debug-ext4-iget-warn Image-debug; do
	"$themis" corrupt ext3 --at 525:289:4 --kernel "$b/guest/$k" --json "$work/corrupt-$k.json" \
		>"$work/corrupt-$k.out" 2>&1
	echo "$?" >"$work/corrupt-$k.st"
done
python3 - "$work/corrupt-Image-debug-ext4-iget-warn.json" "$work/corrupt-Image-debug.json" <<'PY' &&
import json, re, sys
warn, plain = (json.load(open(p))[0] for p in sys.argv[1:])
r = warn["report"] or ""
assert r.startswith("WARNING: CPU: 0 PID: "), r[:80]
assert re.search(r"\] ext4_lookup\+0x[0-9a-f]+/0x[0-9a-f]+ \(fs/ext4/namei\.c:[0-9]+\)", r), r
assert plain["report"] is None, plain["report"]
PY
	grep -q '^themis: corrupt:     \[<[0-9a-f]*>\] ext4_lookup+0x[0-9a-f]*/0x[0-9a-f]* (fs/ext4/namei.c:[0-9]*)' \
		"$work/corrupt-Image-debug-ext4-iget-warn.out" &&
	ok "corrupt: the flip's whole report, frames with source lines, on stderr and in --json" ||
	fail "corrupt: the flip's report is not kept whole (--json report, stderr)"

o=$work/corrupt-Image-debug-ext4-iget-warn.out
if [ "$(cat "$work/corrupt-Image-debug-ext4-iget-warn.st")" -eq 1 ] &&
	grep -q '^ext3 .* 525:289 *4 *kernel-failure *errors *the kernel: WARNING: CPU: 0 PID: [0-9]* at fs/ext4/inode.c:[0-9]* __ext4_iget+' "$o" &&
	grep -q 'ext3 (no checksums, fsck clean) *1 flips: .*kernel-failure 1 \[warning 1\]' "$o"; then
	ok "corrupt: a warning on a flipped image is a kernel-failure, [warning 1]: $(grep -m1 '^ext3 ' "$o" | cut -c1-40)..."
else
	fail "corrupt on Image-debug-ext4-iget-warn: exit $(cat "$work/corrupt-Image-debug-ext4-iget-warn.st"):"
	grep '^ext3 \|kernel-failure [0-9]' "$o" | head -n 3 | sed 's/^/    /'
fi
o=$work/corrupt-Image-debug.out
grep -q '^ext3 .* 525:289 *4 *fsck-only *errors' "$o" &&
	ok "corrupt: the same flip on the plain debug kernel is fsck-only" ||
	{ fail "corrupt on Image-debug:"; grep '^ext3 ' "$o" | head -n 2 | sed 's/^/    /'; }

# 5. A lock-order inversion only lockdep sees (guest/bugs/ext4-lock-order:
#    create takes two mutexes in one order, mkdir in the other): the
#    default exploration, no narrowing, stops at it; the minimizer keeps
#    the two operations that take the locks. The plain debug kernel and
#    the base kernel with the same patch report nothing on the same first
#    500 states (the search's order is the same on every kernel).
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-debug-ext4-lock-order" --stop-on-first \
	--kernel-reports lockdep,warning --minimize --jobs 1 --quiet --out "$work/lock" \
	>"$work/lock.out" 2>&1
st=$?
m=$(ls "$work"/lock/discrepancy-*.min.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$m" ] &&
	grep -q "^discrepancy kernel:lockdep:ext4_mkdir,ext4_create the kernel reported lockdep during 'op mkdir [a-z0-9]* [0-7]*' on ext4: WARNING: possible circular locking dependency detected" "$m" &&
	grep -q '^show kernel .*(ext4_dirstat_lock).*at: ext4_mkdir' "$m" &&
	[ "$(grep '^op ' "$m" | cut -d' ' -f2 | tr '\n' ' ')" = "create mkdir " ]; then
	ok "ext4-lock-order by the default scope, minimized to create; mkdir: $(grep -m1 '^discrepancy' "$m" | cut -c1-90)"
	expect 1 'reproduced: the kernel reported lockdep' -- "$themis" replay "$m"
else
	fail "ext4-lock-order on the debug kernel: exit $st, minimized trace '$m':"
	grep '^discrepancy\|^op ' "$m" "$work/lock.out" 2>/dev/null | head -n 5 | sed 's/^/    /'
fi
quiet_first 500 Image-debug Image-ext4-lock-order

# 6. A use-after-free that returns the right answer (guest/bugs/ext4-uaf,
#    6.12: unlink reads a byte of a name it has freed): only KASAN sees
#    it. The default scope stops at it, minimized to create; unlink; the
#    plain 6.12 debug kernel and the base 6.12 kernel with the patch
#    report nothing on the same first 200 states.
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-6.12-debug-ext4-uaf" --stop-on-first \
	--kernel-reports kasan --minimize --jobs 1 --quiet --out "$work/uaf" >"$work/uaf.out" 2>&1
st=$?
m=$(ls "$work"/uaf/discrepancy-*.min.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$m" ] &&
	grep -q "^discrepancy kernel:kasan:ext4_unlink the kernel reported kasan during 'op unlink [a-z0-9]*' on ext4: BUG: KASAN: slab-use-after-free in ext4_unlink+" "$m" &&
	grep -q '^show kernel Read of size 1 at addr ' "$m" &&
	[ "$(grep '^op ' "$m" | cut -d' ' -f2 | tr '\n' ' ')" = "create unlink " ]; then
	ok "ext4-uaf by the default scope, minimized to create; unlink: $(grep -m1 '^discrepancy' "$m" | cut -c1-90)"
else
	fail "ext4-uaf on the 6.12 debug kernel: exit $st, minimized trace '$m':"
	grep '^discrepancy\|^op ' "$m" "$work/uaf.out" 2>/dev/null | head -n 5 | sed 's/^/    /'
fi
quiet_first 200 Image-6.12-debug Image-6.12-ext4-uaf

# 7. The 6.12 lockdep kernel (--debug=lockdep: the debug set without
#    KASAN, the hunt's kernel): judged by what its System.map holds
#    (lockdep yes, KASAN no), and it finds the lock-order inversion of
#    section 5 (its 6.12 port) by the default scope, minimized to the
#    same two operations; the kernel without the patch reports nothing.
expect 2 "Image-6.12-lockdep cannot print these reports: kasan (" -- \
	"$themis" explore ext4 ext2 --kernel-reports lockdep,kasan --kernel "$b/guest/Image-6.12-lockdep" \
	--depth 1 --out "$work/lk-refused"
"$themis" explore ext4 ext2 --kernel "$b/guest/Image-6.12-lockdep-ext4-lock-order" --stop-on-first \
	--kernel-reports lockdep,ubsan,kfence,warning --minimize --jobs 1 --quiet --out "$work/lock612" \
	>"$work/lock612.out" 2>&1
st=$?
m=$(ls "$work"/lock612/discrepancy-*.min.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$m" ] &&
	grep -q "^discrepancy kernel:lockdep:ext4_mkdir,ext4_create the kernel reported lockdep during 'op mkdir [a-z0-9]* [0-7]*' on ext4: WARNING: possible circular locking dependency detected" "$m" &&
	[ "$(grep '^op ' "$m" | cut -d' ' -f2 | tr '\n' ' ')" = "create mkdir " ]; then
	ok "ext4-lock-order on the 6.12 lockdep kernel, minimized to create; mkdir"
else
	fail "ext4-lock-order on Image-6.12-lockdep-ext4-lock-order: exit $st, minimized trace '$m':"
	grep '^discrepancy\|^op ' "$m" "$work/lock612.out" 2>/dev/null | head -n 5 | sed 's/^/    /'
fi
quiet_first 500 Image-6.12-lockdep

finish test_kernel
