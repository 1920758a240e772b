#!/bin/sh
# tier: fast
# One filesystem across two kernels (explore FS --kernel A --kernel B), a
# regression finder: the planted link-count bug against the stock kernel
# is found, named by kernel, and its trace replays; the stock kernel
# against itself agrees and explores the states one kernel explores with
# the filesystem twice; 6.1 against 6.12; and what two kernels cannot do
# is refused.
#   tests/check/test_kpair.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel ext4-link3 ext4-data
cd "$work" || exit 1

stock=$b/guest/Image link3=$b/guest/Image-ext4-link3 new=$b/guest/Image-6.12

# 1. The planted bug against stock: the discrepancy names both kernels,
#    the trace records both, and it replays as reproduced.
if [ -f "$link3" ]; then
	"$themis" explore ext4 --kernel "$stock" --kernel "$link3" --ops create,link \
		--paths f0,f1,f2 --depth 3 --stop-on-first --minimize --jobs 1 --quiet \
		--out "$work/link3" >"$work/link3.out" 2>&1
	st=$?
	trace=$(ls "$work/link3"/discrepancy-*.min.trace 2>/dev/null | head -n 1)
	if [ "$st" -eq 1 ] && [ -n "$trace" ] &&
		grep -q '^discrepancy state:nlink .*ext4@Image-ext4-link3' "$trace" &&
		grep -q '^explored ext4@Image vs ext4@Image-ext4-link3' "$work/link3.out"; then
		ok "link3 against stock: $(grep '^discrepancy' "$trace" | cut -c1-120)"
	else
		fail "link3 against stock: not found as a link count (exit $st)"
		tail -n 8 "$work/link3.out"
		[ -n "$trace" ] && cat "$trace"
	fi
	if [ -n "$trace" ]; then
		grep -q "^kernel-b $(realpath "$link3") [0-9a-f]\{32\}$" "$trace" &&
			grep -q '^kernel-b-version Linux version' "$trace" &&
			ok "the trace records the second kernel and its version" ||
			{ fail "no kernel-b line in the trace"; cat "$trace"; }
		expect 1 "reproduced" -- "$themis" replay "$trace"
		expect 2 "compares two kernels" -- "$themis" replay "$trace" --kernel "$stock"
		expect 2 "across two kernels" -- "$themis" repro "$trace" --out "$work/repro"
		"$themis" replay "$trace" --save-disks "$work/sd" >/dev/null 2>&1
		last=$(ls "$work/sd" | sed -n 's/^\([0-9]*\)-ext4-b.img$/\1/p' | tail -n 1)
		[ -n "$last" ] && "$themis" diff "$work/sd/$last-ext4.img" "$work/sd/$last-ext4-b.img" \
			2>&1 | grep -q 'inode 12 i_links_count' &&
			ok "replay --save-disks: each kernel's disk; diff names i_links_count" ||
			{ fail "no second kernel's disks, or diff does not name the link count"; ls "$work/sd"; }
		# The same operations with the bug on neither side: the second
		# kernel's line is what makes the discrepancy.
		sed "s|^kernel-b .*|kernel-b $stock $(grep '^kernel ' "$trace" | cut -d' ' -f3)|" \
			"$trace" >"$work/both-stock.trace"
		expect 0 "not reproduced" -- "$themis" replay "$work/both-stock.trace"
		sed 's/^\(kernel-b [^ ]*\) .*/\1 00000000000000000000000000000000/' "$trace" \
			>"$work/other-b.trace"
		expect 2 "second kernel .* changed" -- "$themis" replay "$work/other-b.trace"
	fi
else
	fail "$link3 missing (make guest builds the planted-bug kernels)"
fi

# 1b. The on-disk view across kernels: the planted lost-size bug shows on
#     the second machine's disk only, and its disk (the peer's) is the one
#     e2fsck reads for the second side.
data=$b/guest/Image-ext4-data
if [ -f "$data" ]; then
	"$themis" explore ext4 --kernel "$stock" --kernel "$data" --ops create,write,remount \
		--paths f0 --sizes 0,512 --depth 4 --stop-on-first --jobs 1 --quiet \
		--out "$work/data" >"$work/data.out" 2>&1
	st=$?
	grep -q "^discrepancy at depth [0-9]: disk differs at f0: size=1024 on ext4@Image's disk, size=512 on ext4@Image-ext4-data's disk" "$work/data.out" &&
		grep -q '^    ext4@Image-ext4-data: clean (e2fsck' "$work/data.out" && [ "$st" -eq 1 ] &&
		ok "ext4-data against stock: on the second kernel's disk only, fsck of each machine's disk" ||
		{ fail "ext4-data against stock (exit $st):"; head -n 8 "$work/data.out"; }
else
	fail "$data missing (make guest builds the planted-bug kernels)"
fi

# 2. Stock against stock: nothing, and the very states of ext4 against
#    ext4 on one kernel (the peer machine forked, restored and compared in
#    lockstep; a peer left unrestored would differ at once). Two workers
#    reach the same unique states.
"$themis" explore ext4 --kernel "$stock" --kernel "$stock" --depth 2 --jobs 1 --quiet \
	--out "$work/same" >"$work/same.out" 2>&1
st=$?
"$themis" explore ext4 ext4 --depth 2 --jobs 1 --quiet --out "$work/one" >"$work/one.out" 2>&1
u_pair=$(grep -o '[0-9]* states, [0-9]* unique' "$work/same.out")
u_one=$(grep -o '[0-9]* states, [0-9]* unique' "$work/one.out")
if [ "$st" -eq 0 ] && grep -q '^0 discrepancies' "$work/same.out" &&
	grep -q '^explored ext4@Image vs ext4@Image#2 ' "$work/same.out" &&
	[ -n "$u_pair" ] && [ "$u_pair" = "$u_one" ]; then
	ok "stock against stock: 0 discrepancies, $u_pair as ext4 vs ext4 on one kernel"
else
	fail "stock against stock (exit $st; '$u_pair' vs one kernel's '$u_one'):"
	tail -n 6 "$work/same.out"
fi
"$themis" explore ext4 --kernel "$stock" --kernel "$stock" --depth 2 --jobs 2 --quiet \
	>"$work/same2.out" 2>&1
u2=$(grep -o '[0-9]* unique' "$work/same2.out")
[ $? -eq 0 ] && [ -n "$u2" ] && [ "$u2" = "${u_pair#* states, }" ] &&
	grep -q '^0 discrepancies' "$work/same2.out" &&
	ok "two workers, two kernels: the same $u2 states" ||
	{ fail "--jobs 2 with two kernels: '$u2'"; tail -n 6 "$work/same2.out"; }

# 3. 6.1 against 6.12 on ext4, every operation to depth 2: the two
#    versions agree (a difference would be reported as a discrepancy
#    naming both; docs: README "Two kernels").
if [ -f "$new" ]; then
	"$themis" explore ext4 --kernel "$stock" --kernel "$new" --depth 2 --quiet \
		--out "$work/new" >"$work/new.out" 2>&1
	st=$?
	[ "$st" -eq 0 ] && grep -q '^0 discrepancies' "$work/new.out" &&
		ok "6.1 against 6.12: $(head -n 1 "$work/new.out" | cut -c1-150)" ||
		{ fail "6.1 against 6.12 (exit $st):"; tail -n 8 "$work/new.out"; }
else
	fail "$new missing (make guest builds the 6.12 kernel)"
fi

# 4. Bad input.
expect 2 "one filesystem, not several" -- "$themis" explore ext4 xfs --kernel "$stock" --kernel "$stock"
expect 2 "name it" -- "$themis" explore --kernel "$stock" --kernel "$stock"
expect 2 "Image-nope is not built; build it with" -- "$themis" explore ext4 --kernel "$stock" --kernel "$b/guest/Image-nope"
expect 2 "at most twice" -- "$themis" explore ext4 --kernel "$stock" --kernel "$stock" --kernel "$stock"
expect 2 "do not go with --crash" -- "$themis" explore ext4 --kernel "$stock" --kernel "$stock" --crash
expect 2 "do not go with --fsck" -- "$themis" explore ext4 --kernel "$stock" --kernel "$stock" --fsck
expect 2 "do not go with --time" -- "$themis" explore ext4 --kernel "$stock" --kernel "$stock" --time
expect 2 "do not go with --lens io" -- "$themis" explore ext4 --kernel "$stock" --kernel "$stock" --lens io
# One --kernel is as it was: one kernel, at least two filesystems.
expect 2 "at least two" -- "$themis" explore ext4 --kernel "$stock"

finish test_kpair
