#!/bin/sh
# tier: full
# timeout: 3600
# The reproducer (themis repro: repro.c and repro.sh), proven under QEMU
# on x86_64 kernels built from the same Debian source with the same
# planted bugs (scripts/build-kernel.sh --arch x86_64). Properties guarded:
#   - a real trace of the link-count bug (explore on the riscv
#     Image-ext4-link3) gives a reproducer that, run by repro.sh with no
#     Themis on the x86 ext4-link3 kernel, says REPRODUCED naming nlink
#     (exit 1), and on the stock x86 kernel NOT REPRODUCED (exit 0);
#   - likewise for the truncate-tail bug (a content difference only on
#     disk, after sync and drop_caches): REPRODUCED naming content in the
#     on-disk view on bzImage-ext4-tail, with the stale bytes' row, NOT
#     REPRODUCED on the stock kernel; and through a remount, as a
#     durability finding: ext4's disk differs from its own cache;
#   - repro.c compiles with -Wall -Wextra -Werror, and names each operation;
#   - F1, a stock-kernel finding (docs/findings.md): its reproducer says
#     REPRODUCED on the stock x86 kernel and NOT REPRODUCED on the one with
#     its fix (guest/fixes/f2fs-recovery-nodes);
#   - F2: jfs_fsck's log replay fails after `create; sync` and a power
#     cut, and the disk does not mount: REPRODUCED on the stock x86 kernel
#     with Debian's jfsutils;
#   - F3: f2fs loses the second of two O_SYNC writes that extends a file
#     to a block boundary: REPRODUCED on the stock x86 kernel, on the one
#     with F1's fix, and NOT REPRODUCED with its own fix
#     (guest/fixes/f2fs-isize-recover);
#   - F4: nilfs2 loses new files that fsync and fdatasync returned on:
#     REPRODUCED on the stock x86 kernel, NOT REPRODUCED with its fix
#     (guest/fixes/nilfs2-fsync-new);
#   - F5: jfs sends the loop device no cache flush through create, write,
#     fsync, sync and unmount where ext4 sends some, and crash images that
#     lose one of those writes are damaged: REPRODUCED on the stock x86
#     kernel, NOT REPRODUCED with its fix (guest/fixes/jfs-flush);
#   - F17: jfs's readdir of a damaged directory never ends: the flipped
#     disk themis corrupt --save wrote lists forever on the stock x86
#     kernel, and ends with its fix (guest/fixes/jfs-readdir-end);
#   - F18: reiserfs oopses mounting a disk whose private root is not a
#     directory: the flipped disk oopses the stock x86 kernel and is
#     refused with its fix (guest/fixes/reiserfs-privroot-dir);
#   - F19: ocfs2's setxattr and write take ip_alloc_sem and a transaction
#     in opposite orders: its reproducer under qemu-system-riscv64 says
#     REPRODUCED on the 6.12 lockdep kernel (no fix: the base kernel only
#     shows that nothing else reports it);
#   - crash findings, from their traces alone (themis repro on the
#     .min.trace of explore --crash on the riscv kernel): the generated
#     reproducer (dm-log-writes records the writes, the crash disk is
#     rebuilt from the trace's crash point, recovered by mounting, judged)
#     says REPRODUCED on the x86 kernel with the bug and NOT REPRODUCED on
#     the one without: the planted fsync that commits nothing
#     (ext4-fsync-async: f0 missing) and rename that commits the new name
#     first (ext4-rename-split: a namespace no prefix had); F1 (a crash of
#     f2fs's recovery recovers another state; not with its fix), F3 (f2fs
#     recovers the first O_SYNC write's size: in one of up to 30 attempts,
#     the bug needs both writes in one tick of the inode clock; in none of
#     20 with its fix), F4 (nilfs2 loses f0 fsync returned on; not with its
#     fix), F5 (jfs's checker finds the subset's disk damaged; with its fix
#     the subset is no crash state the kernel can leave); and F2, whose fix
#     is in jfsutils: REPRODUCED, logredo failing as under Themis;
#   - a crash trace whose kept writes are not in the recording (a range no
#     write touches): exit 2 naming it;
#   - refused with exit 2 and one line naming the trace: a missing or
#     malformed trace, a finding, a time discrepancy, settime, a
#     filesystem compared with itself, a folder that cannot be made;
#     --help 0.
#   tests/repro/test_repro.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel ext4-link3 ext4-tail ext4-fsync-async ext4-rename-split f2fs-recovery-nodes
need_kernel --version 6.12 base
need_kernel --debug=lockdep --version 6.12 base
need_kernel --arch x86_64 base ext4-link3 ext4-tail f2fs-recovery-nodes f2fs-isize-recover \
	nilfs2-fsync-new jfs-flush ext4-fsync-async ext4-rename-split jfs-readdir-end \
	reiserfs-privroot-dir
x86=$b/guest-x86

# record NAME KERNEL EXPLORE-ARGS...: a real trace into $work/NAME.trace.
record() {
	name=$1 kernel=$2
	shift 2
	"$themis" explore ext4 ext2 --kernel "$b/guest/$kernel" "$@" --stop-on-first --jobs 1 \
		--quiet --out "$work/$name-run" >/dev/null 2>&1
	t=$(ls "$work/$name-run"/discrepancy-*.trace 2>/dev/null | head -n 1)
	if [ -z "$t" ]; then
		fail "$name: explore on $kernel found no discrepancy"
		return 1
	fi
	cp "$t" "$work/$name.trace"
}

# prove NAME SIG-FIELD VIEW: the reproducer under QEMU, planted and stock.
prove() {
	name=$1 field=$2 view=$3
	expect 0 "reproducer written" -- "$themis" repro "$work/$name.trace" --out "$work/$name"
	if cc -O2 -Wall -Wextra -Werror -o "$work/$name.bin" "$work/$name/repro.c" 2>"$work/cc.log"; then
		ok "$name: repro.c compiles with -Wall -Wextra -Werror"
	else
		fail "$name: repro.c does not compile cleanly: $(head -n 3 "$work/cc.log")"
	fi
	expect 1 "REPRODUCED: ext4 and ext2 differ in $field at f0, in $view" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage-$name" "$work/$name"
	cp "$work/out" "$work/$name.planted"
	grep -q "^differs  .*$field=" "$work/$name.planted" ||
		fail "$name: the comparison does not show the $field lines"
	expect 0 "NOT REPRODUCED: no difference in $field in $view" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$work/$name"
}

for k in bzImage bzImage-ext4-link3 bzImage-ext4-tail bzImage-f2fs-recovery-nodes; do
	[ -f "$x86/$k" ] || {
		fail "$x86/$k missing: make guest builds it (scripts/build-kernel.sh --arch x86_64)"
		finish "repro"
		exit 1
	}
done

# The link-count bug: create; link; link, seen at once.
if record ext4-link3 Image-ext4-link3 --ops create,link --paths f0,f1,f2 --depth 3; then
	prove ext4-link3 nlink "the live view"
fi
# The truncate-tail bug: a stale block on disk, seen after drop_caches.
if record ext4-tail Image-ext4-tail --ops create,write,fsync,truncate --paths f0 \
	--sizes 1,4096 --depth 5; then
	prove ext4-tail content "the on-disk view (drop-caches)"
	grep -q "^differs  disk  f0 @00000000:  bytes=[0-9a-f]* on ext4, nothing on ext2" \
		"$work/ext4-tail.planted" ||
		fail "ext4-tail: no bytes row of f0 in the comparison"
	# The same trace seen through a remount, as a durability finding:
	# ext4's disk against its own cache.
	sed -e 's/^durability drop-caches$/durability remount/' \
		-e 's/^discrepancy disk:content .*/discrepancy durability:content f0 differs/' \
		"$work/ext4-tail.trace" >"$work/own.trace"
	expect 0 "reproducer written" -- "$themis" repro "$work/own.trace" --out "$work/own"
	expect 1 "REPRODUCED: ext4's disk differs from ext4's cache in content at f0" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage-ext4-tail" "$work/own"
fi

# Crash findings, from their traces alone.
# crash_trace NAME KERNEL ARGS...: explore --crash on the riscv KERNEL, its
# first minimized trace into $work/NAME.trace and its reproducer into
# $work/NAME.
crash_trace() {
	name=$1 kernel=$2
	shift 2
	"$themis" explore "$@" --crash --kernel "$b/guest/$kernel" --stop-on-first --minimize \
		--jobs 1 --quiet --out "$work/$name-run" >/dev/null 2>&1
	t=$(ls "$work/$name-run"/discrepancy-*.min.trace 2>/dev/null | head -n 1)
	if [ -z "$t" ]; then
		fail "$name: explore --crash on $kernel found nothing"
		return 1
	fi
	cp "$t" "$work/$name.trace"
	expect 0 "reproducer written" -- "$themis" repro "$work/$name.trace" --out "$work/$name"
}
# crash_prove NAME BUGGY PATTERN FIXED FIXED-PATTERN [TRIES]: REPRODUCED
# matching PATTERN on x86 BUGGY, NOT REPRODUCED on FIXED.
crash_prove() {
	name=$1 buggy=$2 pat=$3 fixed=$4 fixpat=$5 tries=${6:-1}
	expect 1 "REPRODUCED: $pat" -- "$top/scripts/repro-qemu.sh" --tries "$tries" \
		"$x86/$buggy" "$work/$name"
	expect 0 "NOT REPRODUCED: $fixpat" -- "$top/scripts/repro-qemu.sh" --tries "$tries" \
		"$x86/$fixed" "$work/$name"
}
fscope="--depth 2 --ops create,write,fsync,sync,rename --paths f0,f1 --sizes 0,4096"
# shellcheck disable=SC2086
crash_trace fsync-async Image-ext4-fsync-async ext4 xfs $fscope &&
	crash_prove fsync-async bzImage-ext4-fsync-async "f0 is missing after the crash" \
		bzImage "f0 came back as the call left it"
# shellcheck disable=SC2086
crash_trace rename-split Image-ext4-rename-split ext4 xfs $fscope &&
	crash_prove rename-split bzImage-ext4-rename-split \
		"the recovered namespace is none a prefix of the operations had: . dir; f0 file; f1 file;" \
		bzImage "the recovered namespace is the one after operation"
crash_trace f1 Image ext4 f2fs --ops create,write --paths f0 --sizes 4096 --depth 2 &&
	crash_prove f1 bzImage "f2fs recovers to another state when its recovery is crashed" \
		bzImage-f2fs-recovery-nodes "a crashed recovery recovers to the same state"
if crash_trace f3 Image-f2fs-recovery-nodes ext4 f2fs --ops create,write --paths f0 \
	--sizes 0,4095,4097 --depth 3; then
	expect 1 "REPRODUCED: f0 came back otherwise than the call left it: size=4097 (short of the written range: 8192)" -- \
		"$top/scripts/repro-qemu.sh" --tries 30 "$x86/bzImage" "$work/f3"
	expect 0 "NOT REPRODUCED: f0 came back as the call left it" -- \
		"$top/scripts/repro-qemu.sh" --tries 20 "$x86/bzImage-f2fs-isize-recover" "$work/f3"
fi
# F2 is jfsutils' logredo (its fix is in jfsutils, not the kernel): the
# generated reproducer's log replay fails as Themis's did.
crash_trace f2 Image ext4 jfs --ops create,sync,fsync --paths f0 --depth 2 &&
	expect 1 "REPRODUCED: jfs's crash disk does not mount" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$work/f2" &&
	grep -q "logredo failed" "$work/out" ||
	fail "F2: the generated reproducer's log replay did not fail as logredo did"
crash_trace f4 Image ext4 nilfs2 --ops create,fsync,fdatasync --paths f0 --depth 2 &&
	crash_prove f4 bzImage "f0 is missing after the crash" bzImage-nilfs2-fsync-new \
		"f0 came back as the call left it"
if crash_trace f5 Image ext4 jfs --ops create,remount --paths f0 --depth 2; then
	crash_prove f5 bzImage "jfs's checker on the recovered disk: errors" bzImage-jfs-flush \
		"the trace's crash point is no crash state this kernel can leave"
	# Kept writes that are not in the recording: another layout.
	sed 's/^\(show crash-point jfs subset 0 0 \)[0-9]*+8/\199999999+8/' "$work/f5.trace" \
		>"$work/f5-moved.trace"
	expect 0 "reproducer written" -- "$themis" repro "$work/f5-moved.trace" --out "$work/f5-moved"
	expect 2 "does not apply to this recording: the trace keeps write 1 to sectors 99999999+8 of its run, which holds 0 (the whole log 0)" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$work/f5-moved"
fi

# F1 (docs/findings.md), found by explore --crash on the stock kernel: its
# hand-written reproducer (a power cut during f2fs's roll-forward
# recovery, made from disk copies) shows it on the stock x86 kernel, and
# not on the one with guest/fixes/f2fs-recovery-nodes.
f1=$top/tests/repro/f1-f2fs-recovery
if cc -O2 -Wall -Wextra -Werror -o "$work/f1.bin" "$f1/repro.c" 2>"$work/cc.log"; then
	expect 1 "REPRODUCED: f0, written with O_SYNC and recovered once, is missing" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f1"
	expect 0 "NOT REPRODUCED" -- "$top/scripts/repro-qemu.sh" "$x86/bzImage-f2fs-recovery-nodes" "$f1"
else
	fail "F1's repro.c does not compile cleanly: $(head -n 3 "$work/cc.log")"
fi

# F2 to F5 (docs/findings.md), found by explore --crash: their
# hand-written reproducers under QEMU, with no Themis in the way.
f2=$top/tests/repro/f2-jfs-logredo
f3=$top/tests/repro/f3-f2fs-osync-size
f4=$top/tests/repro/f4-nilfs2-fsync-new
f5=$top/tests/repro/f5-jfs-no-flush
if cc -O2 -Wall -Wextra -Werror -o "$work/f2.bin" "$f2/repro.c" 2>"$work/cc.log" &&
	cc -O2 -Wall -Wextra -Werror -o "$work/f3.bin" "$f3/repro.c" 2>>"$work/cc.log" &&
	cc -O2 -Wall -Wextra -Werror -o "$work/f4.bin" "$f4/repro.c" 2>>"$work/cc.log" &&
	cc -O2 -Wall -Wextra -Werror -o "$work/f5.bin" "$f5/repro.c" 2>>"$work/cc.log"; then
	expect 1 "REPRODUCED: the replayed disk does not mount" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f2"
	expect 1 "REPRODUCED: [0-9]* files lost the second O_SYNC write" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f3"
	expect 1 "REPRODUCED: [0-9]* files lost the second O_SYNC write" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage-f2fs-recovery-nodes" "$f3"
	expect 0 "NOT REPRODUCED" -- "$top/scripts/repro-qemu.sh" "$x86/bzImage-f2fs-isize-recover" "$f3"
	expect 1 "REPRODUCED: lost after the power cut: f0 (fsync) f1 (fdatasync)" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f4"
	expect 0 "NOT REPRODUCED" -- "$top/scripts/repro-qemu.sh" "$x86/bzImage-nilfs2-fsync-new" "$f4"
	expect 1 "REPRODUCED: jfs sent no cache flush through fsync, sync and unmount" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f5"
	grep -q "^ext4: .* [1-9][0-9]* cache flushes$" "$work/out" ||
		fail "F5: the ext4 control's flush count is not in the output"
	grep -q "^[1-9][0-9]* of the [0-9]* crash images that lose one write are damaged" "$work/out" ||
		fail "F5: no crash image that loses one write is damaged"
	expect 0 "NOT REPRODUCED" -- "$top/scripts/repro-qemu.sh" "$x86/bzImage-jfs-flush" "$f5"
else
	fail "F2's to F5's repro.c does not compile cleanly: $(head -n 3 "$work/cc.log")"
fi

# F17 (docs/findings.md), found by themis corrupt: the flipped jfs disk
# (its image carried beside repro.sh) lists forever on the stock x86
# kernel, and ends with guest/fixes/jfs-readdir-end.
f17=$top/tests/repro/f17-jfs-readdir-loop
if cc -O2 -Wall -Wextra -Werror -o "$work/f17.bin" "$f17/repro.c" 2>"$work/cc.log"; then
	expect 1 "REPRODUCED: /tmp/w/mnt/e0: getdents64 has not ended after 10000 calls; '..' returned 10000 times" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f17"
	expect 0 "NOT REPRODUCED: every listing ended" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage-jfs-readdir-end" "$f17"
else
	fail "F17's repro.c does not compile cleanly: $(head -n 3 "$work/cc.log")"
fi

# F18: the flipped reiserfs disk oopses the stock x86 kernel at mount (a
# NULL ->lookup under reiserfs_xattr_init), and is refused with its fix.
f18=$top/tests/repro/f18-reiserfs-privroot
if cc -O2 -Wall -Wextra -Werror -o "$work/f18.bin" "$f18/repro.c" 2>"$work/cc.log"; then
	expect 1 "REPRODUCED: mounting /dev/loop0 killed the mount by signal 9 (an oops)" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage" "$f18"
	grep -q "the kernel: .*BUG: kernel NULL pointer dereference, address: 0000000000000000" "$work/out" ||
		fail "F18: the kernel's NULL pointer line is not in the output"
	expect 0 "NOT REPRODUCED: the mount returned (Input/output error)" -- \
		"$top/scripts/repro-qemu.sh" "$x86/bzImage-reiserfs-privroot-dir" "$f18"
else
	fail "F18's repro.c does not compile cleanly: $(head -n 3 "$work/cc.log")"
fi

# F19: ocfs2's setxattr/write lock-order inversion, which only lockdep
# sees: its reproducer (PID 1 under qemu-system-riscv64) says REPRODUCED on
# the 6.12 lockdep kernel, NOT REPRODUCED on the base 6.12 kernel (no
# lockdep to say it).
f19=$top/tests/repro/f19-ocfs2-xattr-lock-order
expect 1 "REPRODUCED: lockdep reports a lock-order inversion in ocfs2's setxattr" -- \
	sh "$f19/repro.sh" "$b/guest/Image-6.12-lockdep" "$work/f19-lockdep"
grep -q "the kernel: .*(&oi->ip_alloc_sem){++++}-{3:3}, at: ocfs2_xattr_ibody_set+" "$work/out" ||
	fail "F19: the lock lockdep names is not in the output"
expect 0 "NOT REPRODUCED: no lockdep report" -- sh "$f19/repro.sh" "$b/guest/Image-6.12" "$work/f19-base"

# Bad input and what a reproducer cannot do: exit 2, one line naming it.
t=$work/ext4-link3.trace
expect 0 "usage: themis repro" -- "$themis" repro --help
expect 2 "needs a trace" -- "$themis" repro
expect 2 "missing.trace: No such file" -- "$themis" repro "$work/missing.trace"
expect 2 "unknown option '--bogus'" -- "$themis" repro "$t" --bogus
sed 's/^op link f0 f1$/op link f0/' "$t" >"$work/bad.trace"
expect 2 "bad.trace:[0-9]*: malformed trace" -- "$themis" repro "$work/bad.trace"
sed 's/^discrepancy .*/discrepancy finding the guest hung/' "$t" >"$work/finding.trace"
expect 2 "finding.trace: a finding" -- "$themis" repro "$work/finding.trace"
sed 's/^discrepancy state:nlink/discrepancy state:mtime/' "$t" >"$work/time.trace"
expect 2 "time.trace: a time discrepancy" -- "$themis" repro "$work/time.trace"
sed 's/^op link f0 f1$/op settime @2147483648/' "$t" >"$work/settime.trace"
expect 2 "settime.trace: operation 2 'settime @2147483648'" -- "$themis" repro "$work/settime.trace"
sed 's/^fs ext4 ext2$/fs ext4 ext4/' "$t" >"$work/twice.trace"
expect 2 "twice.trace: ext4 is compared with itself" -- "$themis" repro "$work/twice.trace"
expect 2 "cannot make the folder" -- "$themis" repro "$t" --out "$work/missing/deeper"

finish "repro"
