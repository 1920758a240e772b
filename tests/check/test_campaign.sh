#!/bin/sh
# tier: fast
# scripts/campaign, the bug hunt over every pair of filesystems and
# kernels. Properties guarded:
#   - a planted bug is found and written up: on the fsync-async kernel
#     (Image-ext4-fsync-async) the ext4-xfs run exits 1, the summary lists
#     its crash:lost-fsync group with the run's folder, and the run's
#     folder holds its HTML report and the group's reproducer folder;
#   - the stock kernels at depth 1, 6.1 and 6.12: exit 0, "None" in the
#     summary, a row per pair and kernel and one per filesystem across
#     the two kernels;
#   - --redis: the same stock run shared through a Redis server covers
#     the same states (the row equal to the local run's), and the
#     server served it (a command or more for each state);
#   - --reference: each filesystem against the reference only, the
#     reference first (ext4-btrfs, ext4-xfs; no btrfs-xfs);
#   - bad input (a budget that is no time, one filesystem, a missing
#     kernel or image, a reference not among the filesystems): exit 2
#     naming it, nothing run.
# It runs the repository's build/ (where the campaign looks).
#   tests/check/test_campaign.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build
work=$(mktemp -d)
. "$top/tests/lib.sh"
trap 'stop_redis; rm -rf "$work"' EXIT
need_kernel ext4-fsync-async
campaign=$top/scripts/campaign

expect 2 "not a time" -- "$campaign" --time-budget soon --out "$work/bad"
expect 2 "need two filesystems" -- "$campaign" --fs ext4 --out "$work/bad"
expect 2 "no image build/images/ext9.img" -- "$campaign" --fs "ext4 ext9" --out "$work/bad"
expect 2 "not built; build it with" -- "$campaign" --kernel /nonexistent/Image --out "$work/bad"
expect 2 "--reference btrfs: not one of the filesystems" -- \
	"$campaign" --fs "ext4 xfs" --reference btrfs --out "$work/bad"
[ ! -e "$work/bad" ] && ok "bad input ran nothing" || fail "bad input made $work/bad"

"$campaign" --fs "ext4 xfs" --kernel "$b/guest/Image-ext4-fsync-async" --depth 2 \
	--time-budget 40s --out "$work/bug" >"$work/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && ok "the planted fsync bug: exit 1" || fail "planted run: exit $rc (want 1): $(tail -n 3 "$work/out")"
run=$work/bug/Image-ext4-fsync-async/ext4-xfs
if grep -q "Image-ext4-fsync-async ext4-xfs: \`crash:lost-fsync" "$work/bug/summary.md"; then
	ok "the summary lists the crash:lost-fsync group"
else
	fail "summary without the lost-fsync group: $(cat "$work/bug/summary.md")"
fi
[ -s "$run/report.html" ] && ok "the run's HTML report" || fail "no $run/report.html"
ls -d "$run"/group-0001 >/dev/null 2>&1 && ok "the group's folder" || fail "no $run/group-0001"
grep -q "1 with discrepancies" "$work/out" && ok "the campaign's last line counts it" ||
	fail "last line: $(tail -n 1 "$work/out")"

"$campaign" --fs "ext4 xfs" --kernel "$b/guest/Image" --kernel "$b/guest/Image-6.12" \
	--depth 1 --no-crash --time-budget 60s --out "$work/stock" >"$work/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "stock at depth 1: exit 0" || fail "stock run: exit $rc (want 0): $(tail -n 3 "$work/out")"
grep -q "^None" "$work/stock/summary.md" && ok "stock summary: None" ||
	fail "stock summary: $(cat "$work/stock/summary.md")"
for row in "Image | ext4-xfs" "Image-6.12 | ext4-xfs" "Image-vs-Image-6.12 | ext4" \
	"Image-vs-Image-6.12 | xfs"; do
	grep -q "| $row | 0 | [1-9][0-9]* | yes | 0 | 0 |" "$work/stock/summary.md" &&
		ok "the stock row $row: states, whole scope, nothing found" ||
		fail "no stock row '$row': $(cat "$work/stock/summary.md")"
done

local_row=$(grep "^| Image | ext4-xfs |" "$work/stock/summary.md")
if start_redis; then
	"$campaign" --fs "ext4 xfs" --kernel "$b/guest/Image" --depth 1 --no-crash --time-budget 40s \
		--redis "$redis_url" --out "$work/shared" >"$work/out" 2>&1
	rc=$?
	row=$(grep "^| Image | ext4-xfs |" "$work/shared/summary.md" 2>/dev/null)
	served=$(redis-cli -u "$redis_url" info stats | sed -n 's/^total_commands_processed:\([0-9]*\).*/\1/p')
	states=$(echo "$row" | cut -d'|' -f5 | tr -d ' ')
	if [ "$rc" -eq 0 ] && [ -n "$local_row" ] && [ "$row" = "$local_row" ] &&
		[ "${served:-0}" -ge "${states:-1}" ]; then
		ok "--redis: the stock run shared through Redis covers the same states ($row), $served commands served"
	else
		fail "--redis: exit $rc, row '$row' (the local run's: '$local_row'), ${served:-no} commands served"
	fi
	stop_redis
else
	fail "--redis: no Redis server to share through"
fi

"$campaign" --fs "xfs ext4 btrfs" --reference ext4 --kernel "$b/guest/Image" \
	--depth 1 --no-crash --no-fsck --time-budget 40s --out "$work/ref" -- --ops create,mkdir \
	>"$work/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "--reference at depth 1: exit 0" || fail "--reference run: exit $rc: $(tail -n 3 "$work/out")"
rows=$(grep -c "^| Image | " "$work/ref/summary.md")
if [ "$rows" -eq 2 ] && grep -q "^| Image | ext4-xfs | 0 |" "$work/ref/summary.md" &&
	grep -q "^| Image | ext4-btrfs | 0 |" "$work/ref/summary.md"; then
	ok "--reference ext4: the runs ext4-xfs and ext4-btrfs, not btrfs-xfs"
else
	fail "--reference rows: $(cat "$work/ref/summary.md")"
fi
# --no-fsck: the runs' commands lack --fsck (the planted run above has
# it); what follows -- reaches every run's explore.
grep -q '"command": "[^"]* --fsck --crash' "$run/report.json" &&
	! grep -q -- '--fsck' "$work/ref/Image/ext4-xfs/report.json" &&
	grep -q '"command": "[^"]* --ops create,mkdir' "$work/ref/Image/ext4-btrfs/report.json" &&
	grep -q '"scope": "create mkdir"' "$work/ref/Image/ext4-xfs/report.json" &&
	ok "--no-fsck: the runs without --fsck, the default's with it; -- ARGS reach explore" ||
	fail "--no-fsck: $(grep -o '"command": "[^"]*"' "$run/report.json" "$work/ref/Image/ext4-xfs/report.json")"

finish test_campaign
