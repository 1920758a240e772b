#!/bin/sh
# tier: fast
# 6.12: full
# explore --crash (src/lens/lens_crash.c). Properties guarded:
#   - the stock kernel: every crash state of a scope with fsync, O_SYNC
#     writes, sync and rename mounts, recovers, passes e2fsck and
#     xfs_repair, and keeps what sync and fsync promised, and each
#     recovery crashed again recovers to the same state: no discrepancy,
#     and crash states were checked (at operation ends, after flushes, as
#     subsets of an epoch's writes, and of recoveries);
#   - a planted fsync that returns without committing
#     (guest/bugs/ext4-fsync-async) is found as crash:lost-fsync on ext4,
#     naming the file, and not on xfs; its trace records crash-states and
#     replays to the same signature;
#   - a planted rename that commits the new name before the old one goes
#     (guest/bugs/ext4-rename-split) is found as crash:atomicity (both
#     names recovered: no prefix of the operations had them), with e2fsck's
#     verdict (the link count) shown; it replays, and each simplified
#     trace's discrepancy and show lines are what its replay shows;
#   - a crash discrepancy's trace ends in a `crash` step naming its point,
#     and replay crashes that point alone (a point the operation lacks is
#     said, the last flush's disk recovers clean, all of the operation's
#     writes in order reproduce); a malformed step is exit 2; themis repro
#     writes its reproducer (crash:atomicity at "drop 0");
#   - a filesystem with no recovery story (vfat) runs under --crash and is
#     promised nothing beyond sync: no discrepancy; where ext4 and vfat,
#     crashed at one operation's end, recover different trees (each within
#     its promises), that is counted (ends_diverged), not reported;
#   - the memo of crash contents (src/lens/crash_memo.h) answers
#     recoveries and changes no finding: the planted fsync and rename
#     runs and F1's find the same discrepancies with --crash-memo off;
#   - F3 (docs/findings.md), reachable once F1 is fixed: two O_SYNC writes,
#     the second extending f0 to a block boundary, and f2fs recovers the
#     first's size: crash:lost-fsync, "short of the written range's end";
#     on the kernel with F3's fix (guest/fixes/f2fs-isize-recover) its
#     trace no longer loses the write (F1 is what it shows there), and
#     with both fixes (guest/fixes/all) the scope is clean;
#   - an O_SYNC write promises the range it wrote, not what earlier plain
#     writes left dirty elsewhere in the file: ext4 and xfs, stock, on a
#     scope of plain and O_SYNC writes: nothing (the whole-file promise
#     reported 17 false lost-fsync on ext4); an mwrite past the end of a
#     short file promises the file's own length, not the range's end;
#   - and the range's bytes as the call left them: on the planted
#     ext4-range-nodata (a ranged sync writes no data), an O_SYNC
#     overwrite of a fallocated block keeps f0's size, mode and owner but
#     reads back zeros: crash:lost-fsync, "read back otherwise", on ext4
#     only; stock ext4 and xfs on the same scope: nothing; an O_SYNC
#     overwrite of a synced block is found lost with the second data seed
#     (its trace replays "reproduced") and cannot be with the first (the
#     same bytes: "not reproduced"), nor on the stock kernel;
#   - fsync through a symlink promises the file the link leads to: btrfs,
#     which logs only that inode, is not blamed for the link; the planted
#     fsync is found through the link, naming both; an O_SYNC write
#     through a link has its bytes read back from the file the link led
#     to, not through the link, which btrfs need not keep (4 false
#     lost-fsync on stock btrfs before);
#   - F4: nilfs2 (held to ext4's promises) loses a new, empty file that
#     fsync or fdatasync returned on: crash:lost-fsync, "missing"; not
#     with guest/fixes/nilfs2-fsync-new;
#   - F8: reiserfs (held to ext4's promises) loses a new file that fsync
#     returned on in the first transaction after the mount: fsync wrote
#     nothing; not with guest/fixes/reiserfs-first-commit;
#   - F10: ocfs2 with its default mount options sends no flush, so a power
#     cut after `create f0; write f0 ... sync` can keep a commit block
#     and lose a block it commits: crash:unmountable (EROFS); not with
#     guest/fixes/ocfs2-barrier;
#   - jfs's recovery is jfs_fsck's log replay on the host
#     (src/lens/crash_replay.h): after `create; fsync` every crash disk mounts
#     (without the replay none would: the kernel refuses a dirty jfs);
#     F2, the replay failing after `create; sync`, is found as
#     crash:unmountable naming logredo; with --crash-memo check every
#     answer of the memo equals the guest's recovery after a replay (the
#     replay is deterministic);
#   - F5: jfs never flushes the disk's write cache, so a power cut during
#     `create f0; remount` may keep any subset of the jfs disk's writes
#     since the mount (crash point "subset 1 0": an epoch from write 0)
#     and its checker finds the maps damaged; ext4, which flushes, never;
#     with F5's fix (guest/fixes/jfs-flush) the damage is gone;
#   - bad input: --crash-states 0 or past the maximum, exit 2.
#   tests/check/test_crash.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel ext4-fsync-async ext4-rename-split ext4-range-nodata f2fs-isize-recover \
	f2fs-recovery-nodes nilfs2-fsync-new jfs-flush reiserfs-first-commit ocfs2-barrier all
need_kernel gfs2-remount-freeze
f8_fixed=$b/guest/Image-reiserfs-first-commit f10_fixed=$b/guest/Image-ocfs2-barrier
# F14 and F15 on 6.1: the stock kernel BUGs at the checkers' read-only
# remount of a gfs2 (F9), so their "stock" has F9's fix alone, and their
# fix is all.
f14_stock=$b/guest/Image-gfs2-remount-freeze f14_fixed=$b/guest/Image-all
case ${THEMIS_KERNEL:-} in
*/Image-6.12)
	need_kernel --version 6.12 f2fs-recovery-nodes jfs-flush all
	f8_fixed=$b/guest/Image-6.12-all f10_fixed=$b/guest/Image-6.12-all
	f14_stock=$THEMIS_KERNEL f14_fixed=$b/guest/Image-6.12-all ;;
esac

scope="--depth 2 --ops create,write,fsync,sync,rename --paths f0,f1 --sizes 0,4096 --quiet"

# explore_crash NAME KERNEL FS FS: run the scope with --crash into $work/NAME.
explore_crash() {
	name=$1 kernel=$2
	shift 2
	# shellcheck disable=SC2086
	"$themis" explore "$@" $scope --crash --kernel "$kernel" --out "$work/$name" \
		>"$work/$name.out" 2>&1
	echo $?
}

st=$(explore_crash stock "$b/guest/Image" ext4 xfs)
states=$(sed -n 's/.*"crash_states": \([0-9]*\).*/\1/p' "$work/stock/report.json")
ends=$(sed -n 's/.*"at_operation_end": \([0-9]*\).*/\1/p' "$work/stock/report.json")
flushes=$(sed -n 's/.*"after_flush": \([0-9]*\).*/\1/p' "$work/stock/report.json")
subsets=$(sed -n 's/.*"subsets": \([0-9]*\).*/\1/p' "$work/stock/report.json")
nested=$(sed -n 's/.*"recovery_crashes": \([0-9]*\).*/\1/p' "$work/stock/report.json")
if [ "$st" -eq 0 ] && [ "${states:-0}" -ge 50 ] && [ "${ends:-0}" -gt 0 ] &&
	[ "${flushes:-0}" -gt 0 ] && [ "${subsets:-0}" -gt 0 ] && [ "${nested:-0}" -gt 0 ]; then
	ok "stock kernel: $states crash states ($ends ends, $flushes after flushes, $subsets subsets; $nested recoveries crashed again), none wrong"
else
	fail "stock kernel: status $st, crash states '$states' ($ends/$flushes/$subsets/$nested)"
	tail -n 5 "$work/stock.out" | sed 's/^/    /'
fi

# clean NAME WHAT ARGS...: `explore ARGS --crash --out $work/NAME` must
# judge crash states and find nothing; WHAT says what that shows.
clean() {
	name=$1 what=$2
	shift 2
	"$themis" explore "$@" --crash --quiet --out "$work/$name" >"$work/$name.out" 2>&1
	st=$?
	if [ "$st" -eq 0 ] && grep -q "crash states recovered and judged" "$work/$name.out"; then
		ok "$what"
	else
		fail "$what: status $st"
		grep '^discrepancy' "$work/$name.out" | head -n 2 | sed 's/^/    /'
	fi
}

# The kernel with fix $1 (guest/fixes/$1) of the version the tests run on:
# 6.12's where THEMIS_KERNEL is Image-6.12 (make test-612) and the fix is
# ported there (guest/fixes/$1/6.12/), else 6.1's.
fix_kernel() {
	case ${THEMIS_KERNEL:-} in
	*/Image-6.12) [ -f "$b/guest/Image-6.12-$1" ] && echo "$b/guest/Image-6.12-$1" && return ;;
	esac
	echo "$b/guest/Image-$1"
}

# A discrepancy's trace whose signature is $2, in run $1 (or nothing).
trace_of() {
	grep -l "^discrepancy $2 " "$work/$1"/discrepancy-*.trace 2>/dev/null | head -n 1
}

st=$(explore_crash fsync "$b/guest/Image-ext4-fsync-async" ext4 xfs)
t=$(trace_of fsync crash:lost-fsync)
if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q "^discrepancy crash:lost-fsync ext4: a crash lost what '\(fsync\|write\) f[01]" "$t" &&
	! grep -q "^discrepancy crash:lost-fsync xfs" "$work"/fsync/discrepancy-*.trace &&
	grep -q '^crash-states 8$' "$t"; then
	ok "fsync without a commit: $(grep -c . "$work/fsync.out") lines, crash:lost-fsync on ext4 only"
else
	fail "fsync without a commit: status $st, trace '$t'"
	grep '^discrepancy' "$work/fsync.out" | head -n 3 | sed 's/^/    /'
fi
[ -n "$t" ] && expect 1 "reproduced: ext4: a crash lost what" -- "$themis" replay "$t"

st=$(explore_crash rename "$b/guest/Image-ext4-rename-split" ext4 xfs --minimize)
t=$(trace_of rename crash:atomicity)
if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q "^op rename f[01] f[01]$" "$t" &&
	grep -q "^discrepancy crash:atomicity ext4 recovered a namespace no prefix of the operations had .*not atomic; it holds: f0 f1 " "$t" &&
	grep -q "^show fsck ext4 (e2fsck -fn): errors: .*ref count is 1, should be 2" "$t" &&
	grep -q "^show fsck xfs (xfs_repair -n[^)]*): clean" "$t"; then
	ok "rename in two transactions: crash:atomicity (both names), e2fsck's verdict shown (the link count)"
else
	fail "rename in two transactions: status $st, trace '$t'"
	grep '^discrepancy' "$work/rename.out" | head -n 3 | sed 's/^/    /'
fi
[ -n "$t" ] && expect 1 "reproduced: ext4 recovered a namespace no prefix" -- "$themis" replay "$t"
# A simplified crash trace describes itself: its discrepancy and show lines
# are what its replay shows.
n=0
for m in "$work"/rename/discrepancy-*.min.trace; do
	[ -f "$m" ] || continue
	n=$((n + 1))
	true_to_itself "$m" || { fail "$(basename "$m") describes another trace:"; diff "$work/said" "$work/got" | head -n 6; }
done
[ $n -gt 0 ] && ok "the rename run's $n simplified traces each describe themselves" ||
	fail "the rename run wrote no .min.trace"

# The trace ends in a crash step naming its point, and replay crashes that
# point alone: a point the operation does not have is said so (not
# re-derived), the disk as the last flush left it recovers clean, and all
# of the operation's writes in their order reproduce the damage.
if [ -n "$t" ] && step=$(sed -n 's/^crash //p' "$t") && [ -n "$step" ] &&
	[ "$(grep -v '^show' "$t" | tail -n 3 | head -n 1)" = "crash $step" ]; then
	ok "the rename's trace ends in its crash step: crash $step"
	with_step() { sed "s/^crash .*/crash $1/" "$t" >"$work/step.trace"; }
	with_step "flush 0 999999"
	expect 1 "a different discrepancy: the trace's crash step names no crash point" -- \
		"$themis" replay "$work/step.trace"
	range=$("$themis" replay "$work/step.trace" 2>/dev/null |
		sed -n 's/.*write log holds writes \([0-9]*\) to \([0-9]*\)).*/\1 \2/p')
	from=${range% *} to=${range#* }
	order=$(python3 -c "import sys; d='0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/'; print(d[:int(sys.argv[2])-int(sys.argv[1])])" "$from" "$to")
	with_step "flush 0 $from"
	expect 0 "not reproduced" -- "$themis" replay "$work/step.trace"
	with_step "subset 0 $from $order"
	expect 1 "reproduced: ext4 recovered a namespace .*crash point: the trace's step" -- \
		"$themis" replay "$work/step.trace"
	with_step "sideways"
	expect 2 "malformed trace: a crash step is one, after the operations" -- \
		"$themis" replay "$work/step.trace"
	with_step "subset 0 $from 0~"
	expect 2 "malformed trace: a crash step" -- "$themis" replay "$work/step.trace"
	sed 's/^crash .*/&\nop sync/' "$t" >"$work/step.trace"
	expect 2 "malformed trace: an operation after the crash step" -- \
		"$themis" replay "$work/step.trace"
	expect 0 "reproducer written" -- "$themis" repro "$t" --out "$work/repro"
	grep -q '^SIG=crash:atomicity$' "$work/repro/repro.sh" &&
		grep -q '^POINT="drop 0"$' "$work/repro/repro.sh" ||
		fail "the rename's reproducer does not name crash:atomicity at drop 0"
else
	fail "the rename's trace '$t' does not end in a crash step"
fi

st=$(explore_crash vfat "$b/guest/Image" ext4 vfat)
diverged=$(sed -n 's/.*"ends_diverged": \([0-9]*\).*/\1/p' "$work/vfat/report.json")
if [ "$st" -eq 0 ] && grep -q "crash states recovered and judged" "$work/vfat.out" &&
	[ "${diverged:-0}" -gt 0 ]; then
	ok "ext4 against vfat under --crash: nothing promised beyond sync, nothing wrong; at $diverged operation ends they recovered different trees, counted"
else
	fail "ext4 against vfat under --crash: status $st"
	grep '^discrepancy' "$work/vfat.out" | head -n 3 | sed 's/^/    /'
fi

# A finding on the stock kernel (docs/findings.md, F1): f2fs's roll-forward
# recovery rewrites the fsync'd node in place before its checkpoint
# commits, so a power cut during that recovery loses the file a second
# recovery should bring back. Found, and named, on the smallest scope.
"$themis" explore ext4 f2fs --crash --ops create,write --paths f0 --sizes 4096 --depth 2 --quiet \
	--out "$work/f2fs" >"$work/f2fs.out" 2>&1
st=$?
t=$(trace_of f2fs crash:recovery-crash)
if [ "$st" -eq 1 ] && [ -n "$t" ] &&
	grep -q "^discrepancy crash:recovery-crash f2fs: a crash during its recovery, .*f0 exists on f2fs after the whole recovery only" "$t" &&
	! cat "$work"/f2fs/*.trace | grep -q '^discrepancy crash:recovery-crash ext4'; then
	ok "stock f2fs: a crash during roll-forward recovery loses the O_SYNC-written f0 (F1); ext4 recovers it"
else
	fail "stock f2fs's recovery crash (F1) not found: status $st, trace '$t'"
fi
# Its control: with the fix (guest/fixes/f2fs-recovery-nodes), nothing.
clean f2fs-fixed "F1's fix: the recovery crashed again recovers f0 (no discrepancy)" \
	ext4 f2fs --ops create,write --paths f0 --sizes 4096 --depth 2 \
	--kernel "$(fix_kernel f2fs-recovery-nodes)"

# The memo answers recoveries, and every finding is the same without it.
# findings RUN: the run's discrepancy lines, sorted.
findings() { cat "$work/$1"/discrepancy-*.trace 2>/dev/null | grep '^discrepancy' | sort; }
memo_hits() { sed -n 's/.*"recovery_memo_hits": \([0-9]*\).*/\1/p' "$work/$1/report.json"; }
explore_crash fsync-nomemo "$b/guest/Image-ext4-fsync-async" ext4 xfs --crash-memo off >/dev/null
explore_crash rename-nomemo "$b/guest/Image-ext4-rename-split" ext4 xfs --minimize \
	--crash-memo off >/dev/null
for memo in on off; do
	"$themis" explore ext4 f2fs --crash --ops create,write,fsync,rename --paths f0,f1 \
		--sizes 4096 --depth 2 --quiet --crash-memo "$memo" --out "$work/f2fs-wide$memo" \
		>"$work/f2fs-wide$memo.out" 2>&1
done
mv "$work/f2fs-wideon" "$work/f2fs-wide" && mv "$work/f2fs-wideoff" "$work/f2fs-wide-nomemo"
for run in fsync rename f2fs-wide; do
	on=$(findings "$run" | md5sum) off=$(findings "$run-nomemo" | md5sum)
	n=$(findings "$run" | grep -c .)
	if [ "$on" = "$off" ] && [ "$n" -gt 0 ] && [ "$(memo_hits "$run")" -gt 0 ] &&
		[ "$(memo_hits "$run-nomemo")" -eq 0 ]; then
		ok "$run: the memo answered $(memo_hits "$run") recoveries; the same $n discrepancies without it"
	else
		fail "$run: with the memo ($(memo_hits "$run") hits) and without it the discrepancies differ ($n with it)"
		findings "$run" >"$work/on.txt"
		findings "$run-nomemo" >"$work/off.txt"
		diff "$work/on.txt" "$work/off.txt" | head -n 4 | sed 's/^/    /'
	fi
done

# The memo's premise, checked: every answer it would give is recovered in
# the guest as well and must be the same (fingerprint, tree, verdict).
st=$(explore_crash memo-check "$b/guest/Image" ext4 xfs --crash-memo check)
if [ "$st" -eq 0 ] && [ "$(memo_hits memo-check)" -gt 0 ]; then
	ok "stock kernel, --crash-memo check: $(memo_hits memo-check) answers of the memo, each the same as the guest's recovery"
else
	fail "--crash-memo check: status $st, $(memo_hits memo-check) answers"
	grep '^discrepancy' "$work/memo-check.out" | head -n 2 | sed 's/^/    /'
fi

# F3 (docs/findings.md): with F1 fixed, the second of two O_SYNC writes,
# extending f0 from inside a block to a block boundary, is lost.
wscope="--ops create,write --paths f0 --sizes 0,4095,4097 --depth 3 --quiet"
# shellcheck disable=SC2086
"$themis" explore ext4 f2fs --crash $wscope --kernel "$b/guest/Image-f2fs-recovery-nodes" \
	--out "$work/f3" >"$work/f3.out" 2>&1
st=$?
t=$(trace_of f3 crash:lost-fsync)
if [ "$st" -eq 1 ] && [ -n "$t" ] &&
	grep -q "^discrepancy crash:lost-fsync f2fs: a crash lost what 'write f0 [0-9]* [0-9]* 1 sync' made durable: f0 was .*short of the written range's end, 8192" "$t" &&
	! cat "$work"/f3/*.trace | grep -q '^discrepancy crash:lost-fsync ext4'; then
	ok "F3: f2fs loses an O_SYNC write that extends the file to a block boundary; ext4 keeps it"
	expect 1 "a different discrepancy: f2fs: a crash during its recovery" -- \
		"$themis" replay "$t" --kernel "$b/guest/Image-f2fs-isize-recover"
else
	fail "F3 not found: status $st, trace '$t'"
	grep '^discrepancy' "$work/f3.out" | head -n 2 | sed 's/^/    /'
fi

# Its control: with every fix (guest/fixes/all, both f2fs fixes), the same scope
# is clean.
# shellcheck disable=SC2086
clean f3-fixed "F1's and F3's fixes together: the two O_SYNC writes survive every crash state" \
	ext4 f2fs $wscope --kernel "$(fix_kernel all)"

# An O_SYNC write after a plain one: only the range written is promised.
# shellcheck disable=SC2086
clean range "O_SYNC writes after plain ones, stock ext4 and xfs: only the written range promised, nothing wrong" \
	ext4 xfs $wscope

# The range's bytes: an O_SYNC overwrite of a fallocated block whose data
# the planted ranged sync never writes reads back as zeros, every field of
# the file kept.
nscope="--ops create,fallocate,sync,write --paths f0 --sizes 0,4096 --depth 4 --quiet"
# shellcheck disable=SC2086
"$themis" explore ext4 xfs --crash $nscope --kernel "$b/guest/Image-ext4-range-nodata" \
	--out "$work/nodata" >"$work/nodata.out" 2>&1
st=$?
t=$(grep -l "^discrepancy crash:lost-fsync ext4: a crash lost what 'write f0 0 4096 1 sync' made durable: the 4096 bytes it wrote at 0 of f0 read back otherwise" \
	"$work"/nodata/*.trace 2>/dev/null | head -n 1)
if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q '^op fallocate f0 ' "$t" &&
	! cat "$work"/nodata/*.trace | grep -q '^discrepancy crash:lost-fsync xfs'; then
	ok "the planted ranged sync without data: an O_SYNC overwrite's bytes lost, its size kept"
else
	fail "the planted ranged sync not found by its bytes: status $st, trace '$t'"
	grep '^discrepancy' "$work/nodata.out" | head -n 2 | sed 's/^/    /'
fi
# A lost overwrite shows only when it wrote other bytes than the ones it
# replaced: the same trace with the overwrite's seed 2 (the default
# scope's second seed) and with seed 1.
if [ -n "$t" ]; then
	{
		sed -n '/^op /q;p' "$t"
		printf 'op create f0 0644 -\nop write f0 0 4096 1 -\nop sync\nop write f0 0 4096 2 sync\ncrash end\n'
		grep '^discrepancy' "$t"
		echo end
	} >"$work/overwrite.trace"
	expect 1 "reproduced: ext4: a crash lost what 'write f0 0 4096 2 sync' made durable: the 4096 bytes it wrote at 0 of f0 read back otherwise" -- \
		"$themis" replay "$work/overwrite.trace"
	sed 's/^op write f0 0 4096 2 sync$/op write f0 0 4096 1 sync/' "$work/overwrite.trace" >"$work/same.trace"
	expect 0 "not reproduced" -- "$themis" replay "$work/same.trace"
	expect 0 "not reproduced" -- "$themis" replay "$work/overwrite.trace" --kernel "$b/guest/Image"
fi
# shellcheck disable=SC2086
clean nodata-stock "the same scope, stock ext4 and xfs: every O_SYNC write's bytes read back" \
	ext4 xfs $nscope

# An mwrite past the end of the file stores into its last page, not the
# file: the range promises the file as long as it was, not the range's end.
clean mwrite "mwrite past the end of a short file, stock ext4 and xfs: the file's own length promised, nothing wrong" \
	ext4 xfs --ops create,truncate,mwrite --paths f0 --sizes 1,4096 --depth 3

# fsync through a symlink: the file the link leads to is what is synced.
lscope="--ops create,symlink,fsync --paths f0,f1 --sizes 0 --depth 3 --quiet"
# shellcheck disable=SC2086
"$themis" explore ext4 btrfs --crash $lscope --out "$work/link" >"$work/link.out" 2>&1
st=$?
# shellcheck disable=SC2086
"$themis" explore ext4 xfs --crash $lscope --kernel "$b/guest/Image-ext4-fsync-async" \
	--out "$work/link-bug" >"$work/link-bug.out" 2>&1
if [ "$st" -eq 0 ] && cat "$work"/link-bug/*.trace | grep -q "^discrepancy crash:lost-fsync ext4: a crash lost what 'fsync f1' made durable: f0 (through the symlink f1) was"; then
	ok "fsync through a symlink: btrfs not blamed for the link; the planted fsync found through it"
else
	fail "fsync through a symlink: status $st on btrfs"
	grep -h '^discrepancy' "$work/link.out" "$work"/link-bug/*.trace | head -n 3 | sed 's/^/    /'
fi

# shellcheck disable=SC2086
clean link-range "an O_SYNC write through a symlink, stock ext4 and btrfs: its bytes read back from the file, btrfs not blamed for the link" \
	ext4 btrfs --ops create,symlink,write --paths f0,f1 --sizes 0,4096 --depth 3

# found_and_fixed NAME FS KERNEL SIGNATURE PATTERN WHAT SCOPE...: a
# finding of docs/findings.md on the stock kernel (or $stock_kernel when
# set) and gone with its fix: explore ext4 FS --crash SCOPE on both, the
# stock run's first SIGNATURE trace (left in $t) matching PATTERN, the
# fixed run clean.
stock_kernel=""
found_and_fixed() {
	name=$1 fs=$2 fixed=$3 sig=$4 pat=$5 what=$6
	shift 6
	"$themis" explore ext4 "$fs" --crash "$@" ${stock_kernel:+--kernel "$stock_kernel"} \
		--quiet --out "$work/$name" >"$work/$name.out" 2>&1
	st=$?
	"$themis" explore ext4 "$fs" --crash "$@" --quiet --kernel "$fixed" --out "$work/$name-fixed" \
		>"$work/$name-fixed.out" 2>&1
	st_fixed=$?
	t=$(trace_of "$name" "$sig")
	if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q "$pat" "$t" && [ "$st_fixed" -eq 0 ]; then
		ok "$what"
	else
		fail "$name: status $st (trace '$t'), with the fix $st_fixed"
		grep -h '^discrepancy' "$work/$name.out" "$work/$name-fixed.out" | head -n 2 | sed 's/^/    /'
	fi
}

# F4: nilfs2's fsync of a new, empty file writes nothing; with
# guest/fixes/nilfs2-fsync-new it writes the file.
found_and_fixed f4 nilfs2 "$b/guest/Image-nilfs2-fsync-new" crash:lost-fsync \
	"^discrepancy crash:lost-fsync nilfs2: a crash lost what 'f\(data\)\{0,1\}sync f0' made durable: f0 was .*, 'missing' after the crash" \
	"F4: nilfs2 loses a new file fsync'd or fdatasync'd; with the fix it keeps it" \
	--ops create,fsync,fdatasync --paths f0 --depth 2
# nilfs2 has no checker: its fsck line says so (a NULL passed to %s once
# printed "(null)" in the trace, report.json and report.html).
if grep -q "^show fsck nilfs2 (no checker): none" "$t" &&
	! grep -rqs '(null)' "$work/f4" "$work/f4.out"; then
	ok "F4's trace: nilfs2's fsck line says it has no checker; no (null) in its run"
else
	fail "F4's fsck line for nilfs2:"
	grep -rn 'fsck nilfs2\|(null)' "$work/f4" | head -n 3 | sed 's/^/    /'
fi

# F8: reiserfs's fsync in the first transaction after a mount commits
# nothing; with guest/fixes/reiserfs-first-commit it does.
found_and_fixed f8 reiserfs "$f8_fixed" crash:lost-fsync \
	"^discrepancy crash:lost-fsync reiserfs: a crash lost what 'fsync f0' made durable: f0 was .*, 'missing' after the crash" \
	"F8: reiserfs loses a new file fsync'd right after the mount; with the fix it keeps it" \
	--ops create,fsync --paths f0 --depth 2

# F10: ocfs2 without barriers, unmountable after a power cut; with
# guest/fixes/ocfs2-barrier every crash state recovers.
found_and_fixed f10 ocfs2 "$f10_fixed" crash:unmountable \
	"^discrepancy crash:unmountable ocfs2's crash disk does not mount (EROFS) (crash point: ocfs2 lost power with [0-9]* of the [0-9]* writes from 0 in flight" \
	"F10: ocfs2 without barriers does not mount after a power cut; with the fix it does" \
	--ops create,write --paths f0 --sizes 0,4096 --depth 2

# F14: gfs2's msync(MS_SYNC) after a store into a hole returns with the
# blocks the fault allocated still in the log; with
# guest/fixes/gfs2-mkwrite-datasync it flushes them.
stock_kernel=$f14_stock
found_and_fixed f14 gfs2 "$f14_fixed" crash:lost-fsync \
	"^discrepancy crash:lost-fsync gfs2: a crash lost what 'mwrite f0 [0-9]* [0-9]* 1' made durable" \
	"F14: gfs2 loses the bytes msync(MS_SYNC) returned on after a store into a hole; with the fix it keeps them" \
	--ops create,write,mwrite,sync --paths f0 --sizes 0,4096 --depth 3 --jobs 1
# F15: gfs2 writes the log header that commits a transaction with its log
# blocks still in flight (a preflush covers only completed writes), so a
# power cut keeps the header and not all the blocks; with
# guest/fixes/gfs2-log-wait the header waits for them. What the damage
# looks like depends on the image: mkfs.gfs2 starts the journal's sequence
# at a random number seeded by its pid (two images made in a row differ in
# 12,296 bytes, the log headers' sequences and hashes), so the kept header
# either puts the journal out of sequence (fsck.gfs2) or fails the
# recovery: the mount returns EIO (6.12), or it mounts and the first
# readdir does (6.1).
found_and_fixed f15 gfs2 "$f14_fixed" 'crash:\(fsck\|unreadable\|unmountable\)' \
	"^discrepancy crash:fsck gfs2's checker finds the recovered disk damaged (fsck.gfs2 -n): Journal #1 (\"journal0\") has [0-9]* sequencing errors\|^discrepancy crash:unmountable gfs2's crash disk does not mount (EIO)\|^discrepancy crash:unreadable gfs2's crash disk mounts, but reading it back fails (EIO)" \
	"F15: gfs2's commit header outruns its log blocks: the journal out of sequence (fsck.gfs2), no mount or no read (EIO); with the fix none" \
	--crash-states 64 --fsck --ops create,sync --paths f0 --depth 2 --jobs 1
stock_kernel=""

# jfs: the kernel does not replay its log; jfs_fsck does, on the host.
"$themis" explore ext4 jfs --crash --ops create,fsync --paths f0 --depth 2 --quiet \
	--out "$work/jfs" >"$work/jfs.out" 2>&1
st=$?
states=$(sed -n 's/.*"crash_states": \([0-9]*\).*/\1/p' "$work/jfs/report.json")
if [ "$st" -eq 0 ] && [ "${states:-0}" -gt 0 ]; then
	ok "jfs after create and fsync: $states crash states, each mounts after jfs_fsck's log replay"
else
	fail "jfs after create and fsync: status $st, $states crash states"
	grep '^discrepancy' "$work/jfs.out" | head -n 2 | sed 's/^/    /'
fi
"$themis" explore ext4 jfs --crash --ops create,sync,fsync --paths f0 --depth 2 --quiet \
	--crash-memo check --out "$work/f2" >"$work/f2.out" 2>&1
st=$?
t=$(trace_of f2 crash:unmountable)
if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q "^op sync$" "$t" &&
	grep -q "^discrepancy crash:unmountable jfs's crash disk does not mount (EINVAL): its log replay (jfs_fsck --replay_journal_only) failed: logredo failed" "$t" &&
	! cat "$work"/f2/*.trace | grep '^discrepancy' | grep -qv "logredo failed" &&
	[ "$(memo_hits f2)" -gt 0 ]; then
	ok "F2: after create and sync, jfs's log replay fails and the disk does not mount; the memo's $(memo_hits f2) answers equal the replayed recoveries"
else
	fail "F2 not found as it should be: status $st, trace '$t', memo $(memo_hits f2)"
	grep '^discrepancy' "$work/f2.out" | head -n 2 | sed 's/^/    /'
fi

# F5: no flush on jfs, so its first epoch never ends.
"$themis" explore ext4 jfs --crash --ops create,remount --paths f0 --depth 2 --quiet \
	--out "$work/f5" >"$work/f5.out" 2>&1
st=$?
t=$(trace_of f5 "crash:[a-z]*")
if [ "$st" -eq 1 ] && [ -n "$t" ] && grep -q '^crash subset 1 0 ' "$t" &&
	grep -q "^discrepancy crash:\(fsck jfs's checker finds the recovered disk damaged\|unmountable jfs's\)" "$t" &&
	! cat "$work"/f5/*.trace | grep '^discrepancy' | grep -q ' ext4'; then
	ok "F5: a power cut during jfs's remount keeps a subset of its writes since the mount (no flush): $(sed -n 's/^discrepancy crash:\([a-z]*\).*/\1/p' "$t")"
else
	fail "F5 not found as it should be: status $st, trace '$t'"
	grep '^discrepancy' "$work/f5.out" | head -n 2 | sed 's/^/    /'
fi

# F5's fix (guest/fixes/jfs-flush): the same scope keeps none of F5's
# damage. Debian's jfs_fsck still fails its replay where the log has a
# page record (F2, rc=-274); that is all it may find.
"$themis" explore ext4 jfs --crash --ops create,remount --paths f0 --depth 2 --quiet \
	--kernel "$(fix_kernel jfs-flush)" --out "$work/f5fix" >"$work/f5fix.out" 2>&1
st=$?
states=$(sed -n 's/.*"crash_states": \([0-9]*\).*/\1/p' "$work/f5fix/report.json" 2>/dev/null)
other=$(cat "$work"/f5fix/*.trace 2>/dev/null | grep '^discrepancy' | grep -v 'logredo failed (rc=-274)')
if [ "$st" -le 1 ] && [ "${states:-0}" -gt 0 ] && [ -z "$other" ]; then
	ok "F5's fix: $states crash states of create; remount on jfs, none with its damage"
else
	fail "F5's fix: status $st, ${states:-no} crash states, besides F2: '$(echo "$other" | head -n 1)'"
fi

expect 2 "crash-states needs" -- "$themis" explore ext4 xfs --crash-states 0
expect 2 "crash-states needs" -- "$themis" explore ext4 xfs --crash-states 5000
expect 2 "crash-memo needs on, off or check" -- "$themis" explore ext4 xfs --crash --crash-memo maybe
finish "crash"
