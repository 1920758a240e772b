#!/bin/sh
# tier: fast
# 6.12: fast
# The scope's newer operations (issue 21: fdatasync, mwrite, renameat2,
# copyrange, fallocate's modes, O_DIRECT writes) as the guest agent runs
# them, and the flag words a filesystem refuses. Properties guarded:
#   - mwrite: a store into a file with no page there faults (-1 EFAULT);
#     inside the page that holds the end of the file it lands (2 0), and
#     past that page it faults again; ext4, xfs and btrfs agree at every
#     state of create/write/mwrite/renameat2/copyrange to depth 3;
#   - renameat2: noreplace onto an existing name is EEXIST, exchange of
#     two files succeeds, whiteout leaves a whiteout (a character device:
#     opening it is ENXIO) where the source was; copyrange copies;
#   - fallocate: every mode runs on ext4, xfs and f2fs alike, O_DIRECT
#     writes too;
#   - the data's seed: the default scope overwrites the first block with
#     the second seed too (write, O_SYNC write, mwrite: "seed 2/2" in the
#     coverage), a scope of --sizes the first seed alone ("seed 1/1");
#   - refusals (OP:WORD rules, rules/FS.rules): with btrfs in the run collapse_range and
#     insert_range are never tried, with ext2 renameat2 exchange and
#     whiteout never, each said in a note; the rest of those operations
#     still is, and nothing differs (without the filter, ext2 against ext4
#     differs at once: the control in the commit that added this test).
#   tests/check/test_scope.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"

# saw PATTERN WHAT: the last run's verbose lines hold PATTERN.
saw() {
	if grep -q -- "$1" "$work/out"; then ok "$2"; else fail "$2: no line '$1'"; fi
}
never() {
	if grep -q -- "$1" "$work/out"; then fail "$2: '$(grep -m1 -- "$1" "$work/out")'"; else ok "$2"; fi
}

explore() {
	"$themis" explore "$@" --verbose --jobs 1 --out "$work/run" >"$work/out" 2>&1
	rc=$?
}

# agreed WHAT: the last run found nothing.
agreed() {
	[ "$rc" -eq 0 ] && ok "$1" || fail "$1: exit $rc (want 0); $(grep -m1 discrepanc "$work/out")"
}

explore ext4 xfs btrfs --paths f0,f1 --sizes 4096,4097 --depth 3 \
	--ops create,write,mwrite,renameat2,copyrange
agreed "ext4, xfs and btrfs agree on mwrite, renameat2, copyrange (depth 3)"
saw "op mwrite f0 0 4096 1 -> ext4 -1 EFAULT xfs -1 EFAULT btrfs -1 EFAULT" "a store into an empty file faults"
saw "op mwrite f0 4095 2 1 -> ext4 2 0 xfs 2 0 btrfs 2 0" "stores inside the last page land"
saw "op mwrite f0 4096 4096 1 -> ext4 4096 0" "a whole page of a 2-page file lands"
saw "op renameat2 f0 f1 noreplace -> ext4 -1 EEXIST xfs -1 EEXIST btrfs -1 EEXIST" "noreplace onto a name is EEXIST"
saw "op renameat2 f0 f1 exchange -> ext4 0 0 xfs 0 0 btrfs 0 0" "exchange of two files"
saw "op renameat2 f0 f1 whiteout -> ext4 0 0 xfs 0 0 btrfs 0 0" "rename with a whiteout"
saw "op mwrite f0 [0-9 ]* -> ext4 -1 ENXIO" "the whiteout left behind is a device node (ENXIO)"

explore ext4 xfs btrfs --paths f0,f1 --sizes 4096 --depth 4 --ops create,write,copyrange
agreed "ext4, xfs and btrfs agree on copyrange (depth 4)"
saw "op copyrange f[01] f[01] 0 4096 -> ext4 4096 0 xfs 4096 0 btrfs 4096 0" "copy_file_range copies a block"

explore ext4 xfs f2fs --paths f0 --depth 2 --ops create,fallocate,write --sizes 4096,8192
agreed "ext4, xfs and f2fs agree on fallocate's modes and O_DIRECT"
for mode in keep_size punch_hole,keep_size zero_range zero_range,keep_size collapse_range insert_range; do
	saw "op fallocate f0 $mode 0 4096 -> ext4 " "fallocate $mode tried"
done

explore ext4 btrfs --paths f0 --depth 2 --ops create,fallocate
saw "note: btrfs refuses fallocate collapse_range,insert_range" "btrfs's refusal is noted"
never "op fallocate f0 collapse_range\|op fallocate f0 insert_range" "btrfs's refused modes are not tried"
saw "op fallocate f0 punch_hole,keep_size 0 4096 -> ext4 0 0 btrfs 0 0" "btrfs's other modes are"

explore ext4 ext2 --paths f0,f1 --depth 2 --ops create,renameat2
agreed "ext4 against ext2: renameat2 noreplace agrees"
saw "note: ext2 refuses renameat2 exchange,whiteout" "ext2's refusal is noted"
never "op renameat2 [^ ]* [^ ]* exchange\|op renameat2 [^ ]* [^ ]* whiteout" "ext2's refused flags are not tried"
saw "op renameat2 f0 f1 noreplace -> ext4 0 0 ext2 0 0" "noreplace is"

explore ext4 xfs --paths f0 --depth 2 --ops create,write,mwrite
agreed "the default sizes, both seeds: ext4 and xfs agree"
saw "^  write .* seed 2/2 " "write's coverage: both seeds"
saw "^  mwrite .* seed 2/2 " "mwrite's coverage: both seeds"
saw "op write f0 0 4096 2 sync" "the O_SYNC overwrite with the second seed is tried"
explore ext4 xfs --paths f0 --depth 1 --ops create,write --sizes 0,4096
saw "^  write .* seed 1/1 " "a scope of --sizes: the first seed alone"

finish test_scope
