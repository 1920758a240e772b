#!/bin/sh
# The model checker end to end: a short differential exploration finds
# nothing on the stock kernel and finds each planted bug (with a trace that
# replays to the same discrepancy), the same seed explores the same states,
# and bad input is refused clearly.
#   tests/check/test_explore.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$top/build}
themis=$b/themis
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib.sh"


# 1. The stock kernel: ext4 against xfs agree; the same seed, the same run.
for i in 1 2; do
	"$themis" explore ext4 xfs --depth 3 --branch 8 --seed 3 --quiet --out "$work/run$i" \
		>"$work/stock$i" 2>&1
	echo "exit $?" >>"$work/stock$i"
done
if grep -q '^exit 0' "$work/stock1" && grep -q '0 discrepancies' "$work/stock1"; then
	ok "stock kernel, ext4 vs xfs: $(head -n 1 "$work/stock1" | cut -d: -f2)"
else
	fail "stock kernel: discrepancies or an error:"
	cat "$work/stock1"
	ls "$work/run1" && cat "$work/run1"/*.trace 2>/dev/null | head -n 30
fi
s1=$(grep -o '[0-9]* states, [0-9]* unique' "$work/stock1")
s2=$(grep -o '[0-9]* states, [0-9]* unique' "$work/stock2")
[ -n "$s1" ] && [ "$s1" = "$s2" ] && ok "same seed, same exploration ($s1)" ||
	fail "two runs with one seed differ: '$s1' vs '$s2'"
grep -q '"states_per_second"' "$work/run1/report.json" && ok "report.json written" ||
	fail "no report.json"

# 1b. Benign differences are canonicalized, not reported: btrfs counts no
#     subdirectories in a directory's nlink, FAT keeps no modes, link counts
#     or xattrs. (Controls run by hand: without the agent's btrfs nlink rule,
#     or without the `ignore` list, these searches report discrepancies.)
for pair in "btrfs ext4" "vfat ext4"; do
	# shellcheck disable=SC2086
	"$themis" explore $pair --ops mkdir,rmdir,create,rename --paths d0/,d0/d0/,d1/,f0 \
		--branch all --depth 3 --quiet >"$work/benign" 2>&1 &&
		ok "$pair agree: $(grep -o '[0-9]* states,' "$work/benign")" ||
		{ fail "$pair: benign differences reported:"; cat "$work/benign"; }
done

# 2. Each planted bug is found, and its trace replays to it; the stock
#    kernel explored the same way finds nothing. Each search is narrowed to
#    the operations and pools a developer chasing that class of bug would
#    give (guest/bugs/*/README.md), and enumerated exhaustively.
narrow() {
	case $1 in
	ext4-meta) echo "--ops mkdir,rename --paths d0/,d0/d0/,d0/d1/" ;;
	ext4-data) echo "--ops create,write,remount --paths f0 --sizes 0,512" ;;
	esac
}
for bug in ext4-meta ext4-data; do
	img=$b/guest/Image-$bug
	if [ ! -f "$img" ]; then
		fail "$img missing (make guest builds the planted-bug kernels)"
		continue
	fi
	# shellcheck disable=SC2046
	"$themis" explore ext4 xfs $(narrow $bug) --branch all --depth 4 --quiet \
		>"$work/$bug.stock" 2>&1 && ok "$bug's search on the stock kernel: nothing" ||
		{ fail "$bug's search on the stock kernel reports something"; cat "$work/$bug.stock"; }
	# shellcheck disable=SC2046
	"$themis" explore ext4 xfs --kernel "$img" $(narrow $bug) --branch all --depth 4 --quiet \
		--stop-on-first --minimize --out "$work/$bug" >"$work/$bug.out" 2>&1
	st=$?
	trace=$(ls "$work/$bug"/discrepancy-*.min.trace 2>/dev/null | head -n 1)
	[ -n "$trace" ] || trace=$(ls "$work/$bug"/discrepancy-*.trace 2>/dev/null | head -n 1)
	if [ "$st" -ne 1 ] || [ -z "$trace" ]; then
		fail "$bug: not found (exit $st)"
		tail -n 5 "$work/$bug.out"
		continue
	fi
	ok "$bug: found: $(grep '^discrepancy' "$trace")"
	expect 1 "reproduced" -- "$themis" replay "$trace"
	# The same operations on the stock kernel: no discrepancy.
	expect 0 "not reproduced" -- "$themis" replay "$trace" --kernel "$b/guest/Image"
done

# 2b. Without narrowing by hand: a swarm of exhaustive random slices finds
#     each bug too (seeds fixed: the same seed explores the same slices),
#     and the same swarm on the stock kernel finds nothing.
swarm_seed() { [ "$1" = ext4-meta ] && echo 1 || echo 3; }
for bug in ext4-meta ext4-data; do
	seed=$(swarm_seed $bug)
	"$themis" explore ext4 xfs --kernel "$b/guest/Image-$bug" --depth 4 --swarm 1000 --seed "$seed" \
		--stop-on-first --quiet --out "$work/swarm-$bug" >"$work/swarm-$bug.out" 2>&1
	[ $? -eq 1 ] && grep -q "kind\": \"discrepancy" "$work/swarm-$bug/report.json" &&
		ok "$bug: found by --swarm 1000 (seed $seed): $(grep -o '"detail": "[^"]*"' "$work/swarm-$bug/report.json" | head -n 1)" ||
		{ fail "$bug: not found by the swarm"; tail -n 3 "$work/swarm-$bug.out"; }
	"$themis" explore ext4 xfs --depth 4 --swarm 1000 --seed "$seed" --max-states 4000 --quiet \
		>"$work/swarm-stock-$bug.out" 2>&1 &&
		ok "the same swarm on the stock kernel: nothing ($(grep -o '[0-9]* states,' "$work/swarm-stock-$bug.out"))" ||
		{ fail "the stock kernel's swarm (seed $seed) reports something"; tail -n 3 "$work/swarm-stock-$bug.out"; }
done

# 3. A guest that hangs in an operation is a finding, with a trace, and the
#    search goes on from the parent state (an operation budget far too small
#    for a remount stands in for a hang).
"$themis" explore ext4 xfs --ops create,remount --paths f0 --branch all --depth 2 --quiet \
	--op-budget 800000 --out "$work/hang" >"$work/hang.out" 2>&1
st=$?
if [ $st -eq 1 ] && ls "$work/hang"/finding-*.trace >/dev/null 2>&1 &&
	grep -q '"kind": "finding"' "$work/hang/report.json" &&
	grep -q 'op remount' "$work/hang"/finding-0001.trace &&
	[ "$(grep -o '[0-9]* states,' "$work/hang.out" | cut -d' ' -f1)" -gt 2 ]; then
	ok "a hang is a finding with a trace, and the search goes on ($(grep -o '[0-9]* finding' "$work/hang.out"))"
else
	fail "hang handling (exit $st):"
	cat "$work/hang.out"
fi

# 4. Starting from a saved machine explores the same states as a boot.
"$themis" boot --disk "$b/images/ext4.img" --disk "$b/images/xfs.img" --append themis.fs=ext4,xfs \
	--save "$work/m.snap" >/dev/null 2>&1 || fail "saving a machine"
"$themis" explore ext4 xfs --depth 3 --branch 8 --seed 3 --quiet --load "$work/m.snap" >"$work/loaded" 2>&1
s3=$(grep -o '[0-9]* states, [0-9]* unique' "$work/loaded")
[ "$s3" = "$s1" ] && ok "explore --load: the same exploration as after a boot ($s3)" ||
	fail "explore --load explored '$s3', a boot '$s1'"

# 5. The sanitizer build explores clean too (forks, restores, comparisons).
"$b/asan/themis" explore ext4 xfs --kernel "$b/guest/Image" --initrd "$b/guest/initramfs.cpio.gz" \
	--disk "$b/images/ext4.img" --disk "$b/images/xfs.img" --depth 3 --branch 5 --quiet \
	--minimize --out "$work/asan" >"$work/asan.out" 2>&1 &&
	ok "the ASan+UBSan build explores clean: $(grep -o '[0-9]* states,' "$work/asan.out")" ||
	{ fail "the sanitizer build's exploration:"; tail -n 8 "$work/asan.out"; }

# 6. Bad input.
good=$(ls "$work"/ext4-meta/discrepancy-*.trace 2>/dev/null | head -n 1)
if [ -n "$good" ]; then
	grep -v '^end$' "$good" >"$work/noend.trace"
	sed 's/^\(image ext4 [^ ]*\) .*/\1 00000000000000000000000000000000/' "$good" >"$work/other.trace"
	expect 2 "damaged trace" -- "$themis" replay "$work/noend.trace"
	expect 2 "changed since it was recorded" -- "$themis" replay "$work/other.trace"
fi
truncate -s 1M "$work/tiny.img"
printf 'not a trace\n' >"$work/bad.trace"
expect 2 "unknown filesystem" -- "$themis" explore ext4 zfs
expect 2 "unknown operation" -- "$themis" explore ext4 xfs --ops create,frobnicate
expect 2 "depth needs" -- "$themis" explore ext4 xfs --depth 0
expect 2 "depth needs" -- "$themis" explore ext4 xfs --depth 100000
expect 2 "at least two" -- "$themis" explore ext4
expect 2 "holds no filesystem" -- "$themis" explore ext4 xfs --disk "$work/tiny.img" --disk "$b/images/xfs.img"
expect 2 "cannot create\|cannot write" -- "$themis" explore ext4 xfs --out /proc/themis-out
expect 2 "not a Themis trace" -- "$themis" replay "$work/bad.trace"
expect 2 "No such file" -- "$themis" replay "$work/missing.trace"

finish explore
