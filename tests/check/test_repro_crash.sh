#!/bin/sh
# tier: fast
# 6.12: full
# The reproducer of a crash finding (themis repro on a crash trace; the
# proof under QEMU is tests/repro/test_repro.sh). Properties guarded:
#   - explore --crash writes one for the group of F4 (nilfs2 loses a new
#     file fsync returned on), from the trace alone: repro.sh names the
#     filesystem, the signature, the crash point in runs of writes between
#     flushes ("drop 0": the operation's end) and the promise ("file f0",
#     fsync's); repro.c compiles with -Wall -Wextra -Werror; the trace's
#     `show crash-point` line is what its replay shows (true to itself);
#   - its repro.sh makes the base images byte for byte (the constant
#     host: mkfs-fixed.c, which it builds; 15 of 16, jfs's log aside);
#   - F5's (jfs keeps no flush: a subset of the writes since the mount)
#     names its subset by run and by the sectors of the writes it keeps
#     ("subset 0 0 S+N#K,...");
#   - repro.c's dm-log-writes reader and crash image, on a log written
#     here in the kernel's format (a write, a flush, two writes the second
#     FUA, a mark, a discard, a write): each point keeps exactly the
#     writes it names (drop R; subset R C RANGES, the K-th write to a
#     range); a range its run lacks but the log holds is "no such crash
#     state" (exit 3: a kernel that flushes there cannot leave it); a range
#     no write touches, more runs than the log holds, a damaged or
#     truncated log: exit 2 naming why;
#   - the reader, fuzzed: 400 logs of random damage, read by repro.c built
#     with ASan and UBSan: exit 0, 2 or 3, never a crash;
#   - refused, exit 2 naming why: a crash trace without a crash-point
#     line, a guest failure under a crash (crash:recovery).
#   tests/check/test_repro_crash.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
cd "$work" || exit 1

# 1. F4's group, as explore writes it.
"$themis" explore ext4 nilfs2 --crash --ops create,fsync,fdatasync --paths f0 --depth 2 \
	--stop-on-first --minimize --quiet --out "$work/f4" >"$work/f4.out" 2>&1
g=$work/f4/group-0001
if [ -f "$g/repro.sh" ] && [ -f "$g/repro.c" ] &&
	grep -q '^FSLIST="nilfs2"$' "$g/repro.sh" && grep -q '^SIG=crash:lost-fsync$' "$g/repro.sh" &&
	grep -q '^POINT="drop 0"$' "$g/repro.sh" && grep -q '^PROMISE="file f0 0"$' "$g/repro.sh"; then
	ok "F4: explore --crash wrote the group's reproducer: nilfs2, crash:lost-fsync, drop 0, file f0"
else
	fail "F4: no crash reproducer in $g: $(ls "$g" 2>&1 | tr '\n' ' ') $(cat "$g/no-repro.txt" 2>/dev/null)"
fi
if cc -O2 -Wall -Wextra -Werror -o "$work/repro" "$g/repro.c" 2>"$work/cc.log"; then
	ok "F4: the crash reproducer's repro.c compiles with -Wall -Wextra -Werror"
else
	fail "F4: repro.c does not compile cleanly: $(head -n 3 "$work/cc.log")"
fi
# Its images are Themis's, byte for byte: repro.sh's setup (mkfs-fixed.c
# built by its cc, the constant host) made to make every filesystem's
# image and stop; each equals the base image (jfs: but in its log, which
# test_images.sh checks).
sed '/^# ---- the fixed part (src\/check\/repro_crash_sh.inc/,$d' "$g/repro.sh" >"$g/mkall.sh"
printf '%s\n' 'for fs in $(sed -n "s/^\t\([a-z0-9]*\)) echo [0-9]* ;;$/\1/p" "$0"); do' \
	'	make_image "$fs" "$work/$fs.img"' 'done' >>"$g/mkall.sh"
if sh "$g/mkall.sh" "$work/mkall" >"$work/mkall.out" 2>&1; then
	same=0 differ=""
	for img in "$work"/mkall/*.img; do
		fs=$(basename "$img" .img)
		if cmp -s "$img" "$b/images/$fs.img"; then same=$((same + 1)); else differ="$differ $fs"; fi
	done
	if [ "$same" -eq 15 ] && [ "$differ" = " jfs" ]; then
		ok "F4's repro.sh makes 15 of the 16 base images byte for byte (jfs: its log)"
	else
		fail "repro.sh's images: $same the base images', differing:$differ"
	fi
else
	fail "repro.sh's setup could not make the images: $(tail -n 3 "$work/mkall.out")"
fi
min=$(ls "$work"/f4/discrepancy-*.min.trace 2>/dev/null | head -n 1)
if [ -n "$min" ] && grep -q '^show crash-point nilfs2 drop 0$' "$min"; then
	true_to_itself "$min"
else
	fail "F4: the .min.trace has no crash-point line"
fi

# 2. F5's subset.
"$themis" explore ext4 jfs --crash --ops create,remount --paths f0 --depth 2 --stop-on-first \
	--minimize --quiet --out "$work/f5" >"$work/f5.out" 2>&1
if grep -q '^POINT="subset 0 0 [0-9]*+8#[0-9]*\(,[0-9]*+8#[0-9]*\)*"$' "$work/f5/group-0001/repro.sh" &&
	grep -q '^REPLAY="jfs_fsck --replay_journal_only"$' "$work/f5/group-0001/repro.sh"; then
	ok "F5: its reproducer names the subset by run and sectors, and jfs's log replay"
else
	fail "F5: no subset point in $(grep '^POINT' "$work/f5/group-0001/repro.sh" 2>&1)"
fi

# 3. The log reader and the crash image, on a log in the kernel's format.
# log.py OUT [N]: the log (512-byte sectors; data sectors of one byte
# repeated): w0 sector 0 'a'; flush; w1 sector 8 'b'; w2 sector 0 'c'
# with FUA; a mark; a discard of sector 40; w3 sector 16 'd'. Runs from
# the last: w3 run 0, w1 and w2 run 1, w0 run 2.
cat >"$work/log.py" <<'PY'
import random, struct, sys
S = 512
def entry(sector, nr, flags, data=b""):
    head = struct.pack("<QQQQ", sector, nr, flags, len(data)) + data
    return head.ljust(S, b"\0")
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
body = [entry(0, 1, 0) + b"a" * S, entry(0, 0, FLUSH), entry(8, 1, 0) + b"b" * S,
        entry(0, 1, FUA) + b"c" * S, entry(0, 0, MARK, b"ops"), entry(40, 8, DISCARD),
        entry(16, 1, 0) + b"d" * S]
log = struct.pack("<QQQI", 0x6a736677736872, 1, len(body), S).ljust(S, b"\0") + b"".join(body)
open(sys.argv[1], "wb").write(log)
# With N: N damaged copies OUT.0 ... (random bytes overwritten, the
# headers most often, and a third of them cut short).
for i in range(int(sys.argv[2]) if len(sys.argv) > 2 else 0):
    r = random.Random(i)
    bad = bytearray(log)
    for _ in range(r.randint(1, 8)):
        at = r.randrange(len(bad)) if r.random() < 0.5 else r.randrange(S + 32)
        bad[at] = r.randrange(256)
    if r.random() < 0.3:
        bad = bad[: r.randrange(len(bad))]
    open("%s.%d" % (sys.argv[1], i), "wb").write(bytes(bad))
PY
python3 "$work/log.py" "$work/log.img"
truncate -s 64K "$work/base.img"
# point EXPECT-STATUS SECTORS-EXPECTED POINT...: the crash image's first
# byte of sectors 0, 8 and 16 ("." for zero) after the point.
point() {
	want=$1 bytes=$2
	shift 2
	"$work/repro" crash-image "$work/log.img" "$work/base.img" "$work/out.img" "$@" \
		>"$work/point.out" 2>&1
	st=$?
	got=$(for s in 0 8 16; do
		c=$(dd if="$work/out.img" bs=512 skip=$s count=1 2>/dev/null | head -c 1)
		printf '%s' "${c:-.}"
	done)
	if [ "$st" -ne "$want" ] || { [ "$st" -eq 0 ] && [ "$got" != "$bytes" ]; }; then
		fail "crash-image $*: status $st sectors '$got' (want $want '$bytes'): $(cat "$work/point.out")"
	else
		ok "crash-image $*: status $st${bytes:+, sectors 0, 8, 16: $got}"
	fi
}
point 0 cbd drop 0
point 0 cb. drop 1
point 0 a.. drop 2
point 0 ... drop 3
point 0 c.. subset 1 0 0+1#0
point 0 ab. subset 1 1 .
point 0 cb. subset 1 0 8+1#0,0+1#0
point 0 cbd subset 0 0 16+1#0
point 3 "" subset 0 0 8+1#0
point 2 "" subset 0 0 99+1#0
point 3 "" subset 1 0 0+1#1
point 2 "" drop 4
point 0 ... subset 2 0 .
point 2 "" subset 3 0 .
point 2 "" subset 0 0 16+1
expect 3 "no such crash state: the trace keeps write 1 to sectors 8+1 of its run, which holds 0 (the whole log 1)" -- \
	"$work/repro" crash-image "$work/log.img" "$work/base.img" "$work/out.img" subset 0 0 8+1#0
expect 2 "does not apply to this recording: it names run 4 from the end; the log holds 3" -- \
	"$work/repro" crash-image "$work/log.img" "$work/base.img" "$work/out.img" drop 4
printf 'not a log' >"$work/bad.img"
expect 2 "no dm-log-writes super block" -- \
	"$work/repro" crash-image "$work/bad.img" "$work/base.img" "$work/out.img" drop 0
head -c 5000 "$work/log.img" >"$work/cut.img"
expect 2 "ends before its last entry" -- \
	"$work/repro" crash-image "$work/cut.img" "$work/base.img" "$work/out.img" drop 0
expect 0 "w0  run 2  sector 0+1" -- "$work/repro" log "$work/log.img"

# 4. The reader, fuzzed under ASan and UBSan.
if cc -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -o "$work/repro-asan" \
	"$g/repro.c" 2>"$work/cc.log"; then
	python3 "$work/log.py" "$work/fuzz.img" 400
	bad=0
	i=0
	while [ $i -lt 400 ]; do
		for p in "drop 1" "subset 1 0 0+1#0,8+1#0"; do
			# shellcheck disable=SC2086
			ASAN_OPTIONS=detect_leaks=0 "$work/repro-asan" crash-image "$work/fuzz.img.$i" \
				"$work/base.img" "$work/out.img" $p >"$work/fuzz.out" 2>&1
			st=$?
			case $st in 0 | 2 | 3) ;; *)
				bad=$((bad + 1))
				[ $bad -gt 1 ] || { echo "    seed $i, $p: status $st"; tail -n 5 "$work/fuzz.out"; } ;;
			esac
		done
		i=$((i + 1))
	done
	if [ $bad -eq 0 ]; then
		ok "the log reader, fuzzed: 400 damaged logs, two points each, under ASan and UBSan: exit 0, 2 or 3"
	else
		fail "the log reader crashed on $bad of the 800 damaged logs"
	fi
else
	fail "repro.c does not build with ASan and UBSan: $(head -n 3 "$work/cc.log")"
fi

# 5. Refused.
if [ -n "$min" ]; then
	grep -v '^show crash-point' "$min" >"$work/old.trace"
	expect 2 "no 'show crash-point' line" -- "$themis" repro "$work/old.trace" --out "$work/old"
	sed 's/^discrepancy crash:lost-fsync /discrepancy crash:recovery /' "$min" >"$work/failed.trace"
	expect 2 "a crash finding of kind crash:recovery" -- \
		"$themis" repro "$work/failed.trace" --out "$work/failed"
fi
finish "repro_crash"
