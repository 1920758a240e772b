#!/bin/sh
# tier: fast
# The fuzzers (tests/fuzz/fuzz_*.c, each host-side parser of guest or disk
# data under ASan+UBSan), each over its slice of seeds: a crash, a
# sanitizer report or a round past its time limit fails, naming the seed
# (BUILD_DIR/asan/fuzz_NAME 1 SEED replays it). FUZZ_SCALE multiplies
# every slice (tests/fuzz/test_fuzz_long.sh: 10, on the seeds after these).
#   tests/fuzz/test_fuzz.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
scale=${FUZZ_SCALE:-1}

# NAME ROUNDS: the fast slice of each fuzzer, seeds 1..ROUNDS (a round of
# cpu, layout or snapshot costs 6 to 10 ms under the sanitizers).
slices="cpu 3000
virtio 20000
layout 1500
trace 5000
snapshot 1000
agent 20000
rules 20000"

echo "$slices" | {
	while read -r name rounds; do
		# scale 1: seeds 1..ROUNDS; scale k > 1: the k*ROUNDS after them.
		n=$((rounds * scale)) first=1
		[ "$scale" -eq 1 ] || first=$((rounds + 1))
		t0=$(date +%s)
		if "$b/asan/fuzz_$name" "$n" "$first" >"$work/$name.out" 2>&1; then
			ok "fuzz_$name: $n rounds from seed $first in $(($(date +%s) - t0)) s"
		else
			fail "fuzz_$name: $n rounds from seed $first"
			tail -n 8 "$work/$name.out" | sed 's/^/    /'
		fi
	done
	finish test_fuzz
}
