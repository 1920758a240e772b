#!/bin/sh
# tier: fast
# tests/run, the one test runner, on a folder of made-up tests. Properties
# guarded:
#   - it finds the tests by glob and runs a tier: the fast tier leaves a
#     full-tier test out, the full tier runs it; a '6.12: fast' test runs
#     twice, the second time with THEMIS_KERNEL naming Image-6.12;
#   - each run prints its name, verdict and seconds, and the closing line
#     is "N passed, N failed, N skipped" with exit status 1 on a failure;
#   - a test past its 'timeout:' is stopped, its whole process group (a
#     child it left sleeping too), and counted failed, naming it;
#   - every test gets a TMPDIR of its own, removed after it;
#   - a test without a tier line is refused (exit 2), naming it;
#   - an interrupted run (TERM) stops its tests and their children,
#     removes their TMPDIRs and exits 130;
#   - tests/README.md lists every test of the repository with its tier.
#   tests/cli/test_runner.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
run=$top/tests/run
t=$work/tests
mkdir -p "$t/a" "$work/b"
mark=$((700000 + $$ % 100000)) # a sleep no other process runs
export MARK=$mark STATE=$work

mk() { # mk NAME HEADER BODY: tests/a/test_NAME.sh
	printf '#!/bin/sh\n%s\n%s\n' "$2" "$3" >"$t/a/test_$1.sh"
	chmod +x "$t/a/test_$1.sh"
}
mk pass "# tier: fast" 'echo "$TMPDIR" >"$STATE/tmpdir"; [ -d "$TMPDIR" ] && touch "$TMPDIR/x"'
mk fail "# tier: fast" 'echo FAIL: on purpose; exit 1'
mk skip "# tier: fast" 'exit 77'
mk hang "# tier: fast
# timeout: 3" 'sleep "$MARK" & sleep "$MARK"'
mk slow "# tier: full" 'exit 0'
mk both "# tier: fast
# 6.12: fast" 'echo "${THEMIS_KERNEL:-none}" >>"$STATE/kernels"'

"$run" --dir "$t" --build "$work/b" --jobs 2 >"$work/fast.out" 2>&1
st=$?
last=$(tail -n 1 "$work/fast.out")
[ "$st" -eq 1 ] && [ "$last" = "3 passed, 2 failed, 1 skipped" ] &&
	ok "fast tier: '$last', status 1" ||
	{ fail "fast tier: status $st, last line '$last'"; sed 's/^/    /' "$work/fast.out"; }
grep -q "^FAIL tests/a/test_hang.sh .* [0-9]*s$" "$work/fast.out" && grep -q "stopped at its limit of 3 s" "$work/fast.out" &&
	ok "the hanging test is stopped at its limit and named" ||
	fail "no timeout verdict for a/test_hang.sh"
grep -q "test_slow" "$work/fast.out" && fail "the fast tier ran a full-tier test" || ok "the fast tier leaves a full-tier test out"
sleep 1
pgrep -f "sleep $mark" >/dev/null && fail "the stopped test's child still runs" || ok "no process of the stopped test is left"
[ -n "$(cat "$work/tmpdir")" ] && [ ! -e "$(cat "$work/tmpdir")" ] &&
	ok "a test's TMPDIR is removed after it" || fail "TMPDIR $(cat "$work/tmpdir") left behind"
[ "$(sort "$work/kernels" | tr '\n' ' ')" = "$work/b/guest/Image-6.12 none " ] &&
	ok "a '6.12: fast' test runs on 6.1 and on 6.12" || fail "kernels of the 6.12 test: $(cat "$work/kernels")"
grep -q "^PASS tests/a/test_both.sh \[6.12\]" "$work/fast.out" || fail "no 'tests/a/test_both.sh [6.12]' line"

"$run" --dir "$t" --build "$work/b" --tier full slow >"$work/full.out" 2>&1 &&
	[ "$(tail -n 1 "$work/full.out")" = "1 passed, 0 failed" ] &&
	ok "the full tier runs the full-tier test" || { fail "full tier"; cat "$work/full.out"; }

mk notier "# no tier here" 'exit 0'
expect 2 "tests/a/test_notier.sh has no 'tier: fast|full' line in its opening comment" -- "$run" --dir "$t" --build "$work/b"
rm "$t/a/test_notier.sh"

# An interrupt: TERM (a background job of a script ignores INT).
mk wait "# tier: fast" 'echo "$TMPDIR" >"$STATE/tmpdir2"; sleep "$MARK" & sleep "$MARK"'
"$run" --dir "$t" --build "$work/b" wait >"$work/int.out" 2>&1 &
runner=$!
for _ in $(seq 50); do [ -s "$work/tmpdir2" ] && break; sleep 0.2; done
sleep 0.5
kill -TERM "$runner"
# It must end by itself (stopping the test takes a second): wait up to 30 s.
for _ in $(seq 60); do kill -0 "$runner" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$runner" 2>/dev/null; then
	fail "the interrupted runner has not exited after 30 s"
	kill -KILL "$runner"
fi
wait "$runner"
st=$?
sleep 1
[ "$st" -eq 130 ] && ! pgrep -f "sleep $mark" >/dev/null && [ ! -e "$(cat "$work/tmpdir2")" ] &&
	ok "an interrupted run stops its tests (children too), removes their TMPDIRs, exits 130" ||
	{ fail "interrupt: status $st, processes '$(pgrep -f "sleep $mark" | tr '\n' ' ')', tmpdir $(cat "$work/tmpdir2")"; cat "$work/int.out"; }
pkill -f "sleep $mark" 2>/dev/null

# tests/README.md lists every test of the repository with its tier, and
# its 6.12 tier where it has one.
"$run" --list --tier full >"$work/plan" || fail "tests/run --list"
missing=$(while read -r file kernel _ tier; do
	if [ "$kernel" = 6.1 ]; then
		grep -qF "| \`$file\` | $tier |" "$top/tests/README.md" || echo "$file ($tier)"
	else
		grep -qF "| \`$file\` |" "$top/tests/README.md" &&
			grep -F "| \`$file\` |" "$top/tests/README.md" | grep -qF "| $tier |" || echo "$file (6.12: $tier)"
	fi
done <"$work/plan")
[ -z "$missing" ] && ok "tests/README.md lists every test with its tier ($(wc -l <"$work/plan") runs)" ||
	fail "tests/README.md does not list: $missing"
finish test_runner
