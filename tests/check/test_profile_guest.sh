#!/bin/sh
# tier: fast
# 6.12: full
# Where guest instructions go: the guest lens (always on: instructions per
# state by phase, in the summary and report.json) and the guest profiler
# (explore --profile-guest N: the pc every N instructions, named by the
# kernel's System.map and the agent's symbols).
#   - two measures, one truth: the samples x N add up to the lens's total
#     (within one interval), and each phase's share of the samples is the
#     lens's share within 2 points;
#   - sampling changes nothing: with and without the profiler, the same
#     states, unique states and instructions per phase, exactly, and the
#     same TLB misses, decoded pages and page copies (the hart lens);
#     only the runs, the returns to the dispatcher and the blocks compiled grow
#     with the slices;
#   - the names are real: the kernel functions named are in the Image's
#     map, the agent's carry "agent:", almost nothing goes unnamed, and
#     the ext4+ext2 disk view spends its top share in crc32 (the
#     filesystems' metadata checksums);
#   - a held clock (each operation's) does not cut the hart's runs at the
#     timer's distance: ext4 against xfs at depth 2 in at most 40 runs a
#     state (the hart lens; 222 when it did);
#   - the picture: an SVG of 3 rows of boxes, the phases spanning it;
#   - the CRCs the machine computes (virt_hostfn.h): the same states,
#     5% fewer instructions or more, crc32_body gone from the profile;
#   - the stacks (read from each function's prologue, no frame pointers):
#     the folded file counts every sample once; crc32_body is called by
#     chksum_update at every sample; ext4's and ext2's create are under
#     the open path ((__riscv_)sys_openat ... path_openat ... ext4_create) with
#     stacks deeper than the call chain's 5 levels for most operation
#     samples; the flame graph's rows nest, the phases spanning it;
#   - bad input: a kernel without its map, a bad interval, --jobs 2: exit
#     2 naming what; a damaged map: no crash (the sanitizer build).
# Takes about 30 s.
#   tests/check/test_profile_guest.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
cd "$work" || exit 1
kernel=${THEMIS_KERNEL:-$b/guest/Image}
case $kernel in
*6.12*) need_kernel --version 6.12 base ;; # its map too
*) need_kernel base ;;
esac

scope="ext4 ext2 --depth 2 --ops create,write,mkdir,rename --kernel $kernel --quiet"
# The guest computes its CRCs here (THEMIS_GUEST_CODE=1), so that
# crc32_body is a leaf the stacks must find under chksum_update; the
# third run lets the machine compute them (the default).
# shellcheck disable=SC2086
THEMIS_GUEST_CODE=1 "$themis" explore $scope --profile-guest 10000 --out "$work/p" >"$work/p.out" 2>&1 ||
	{ fail "explore --profile-guest: exit $?"; tail -n 5 "$work/p.out"; }
# shellcheck disable=SC2086
THEMIS_GUEST_CODE=1 "$themis" explore $scope --jobs 1 --out "$work/plain" >"$work/plain.out" 2>&1 ||
	fail "explore without the profiler: exit $?"
# shellcheck disable=SC2086
"$themis" explore $scope --profile-guest 10000 --out "$work/host" >"$work/host.out" 2>&1 ||
	fail "explore with the CRCs on the host: exit $?"
# Time is held through each operation (virt_hold_time): no instruction
# moves the clock then, so the timer cannot bound the hart's runs. With
# this agent and kernel the operations of ext4 against xfs begin about
# 10,000 ticks before the guest's next timer; runs cut at that distance
# (which a held clock never shrinks) made 222 runs a state, 18 now.
"$themis" explore ext4 xfs --depth 2 --jobs 1 --kernel "$kernel" --quiet --out "$work/held" >"$work/held.out" 2>&1 ||
	fail "explore ext4 xfs: exit $?"
runs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["lenses"]["hart"]["per_state"]["runs"])' \
	"$work/held/report.json" 2>/dev/null)
[ -n "$runs" ] && [ "$runs" -le 40 ] && ok "a held clock does not cut the hart's runs: $runs runs a state" ||
	fail "ext4 against xfs: ${runs:-no} runs a state (a held clock's timer cut them?)"
grep -q '^the machine, a state: [0-9]* runs, [0-9]* read TLB misses' "$work/held.out" ||
	fail "no hart line: $(grep machine "$work/held.out")"

grep -q '^guest instructions: [0-9]* per state over [0-9]* checks (operation [0-9]*, fingerprint [0-9]*, disk_view [0-9]*)' \
	"$work/plain.out" && ok "the summary says the guest instructions per state by phase" ||
	fail "no guest instructions line: $(grep guest "$work/plain.out")"

python3 - "$work/p/report.json" "$work/plain/report.json" "$work/p/guest-profile.txt" \
	"$work/p/guest-profile.svg" "$kernel.map" "$work/p/guest-stacks.folded" \
	"$work/p/guest-flame.svg" "$work/host/report.json" "$work/host/guest-profile.txt" >"$work/checks" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
p, plain = (json.load(open(f)) for f in sys.argv[1:3])
text = open(sys.argv[3]).read()
def say(good, what): print(("ok: " if good else "FAIL: ") + what)
g, h = p["lenses"]["guest"], plain["lenses"]["guest"]
say(g == h and p["states"] == plain["states"] and p["unique_states"] == plain["unique_states"],
    "the profiler changes nothing: %d states, %d unique, %d instructions alike" % (p["states"], p["unique_states"], g["total"]))
# The hart lens: the machine's own events, counted where they happen.
# Slicing the run for samples makes more runs and more returns to the
# dispatcher, and enters blocks at the pcs where samples stopped it (more
# blocks compiled); it never changes what the hart misses, decodes or
# copies.
hp, hh = p["lenses"]["hart"], plain["lenses"]["hart"]
sliced = ("runs", "dispatches", "blocks_compiled")
same = [k for k in hh["total"] if k not in sliced]
say(all(hp["total"][k] == hh["total"][k] for k in same) and hp["states"] == hh["states"] == h["states"] and
    all(hp["total"][k] > hh["total"][k] > 0 for k in sliced),
    "the hart's events are the run's, not the profiler's: %s" % ", ".join("%s %d/%d" % (k, hh["total"][k], hp["total"][k]) for k in same))
ps = hh["per_state"]
say(ps["pages_copied"] > 0 and ps["tlb_miss_read"] > 0 and ps["tlb_miss_fetch"] > 0 and
    all(ps[k] == hh["total"][k] // hh["states"] for k in ps),
    "every state copies pages and misses the TLB: %s a state" % ps)
m = re.search(r"one sample every (\d+) guest instructions, (\d+) samples \((\d+) lost\)", text)
every, n, lost = (int(x) for x in m.groups()) if m else (0, 0, -1)
say(m and lost == 0 and abs(n * every - g["total"]) <= every,
    "samples x interval = the lens's total: %d x %d vs %d" % (n, every, g["total"]))
shares = {k: v / g["total"] for k, v in g["by_phase"].items() if v}
got = {k: int(c) / n for k, c in re.findall(r"^phase (\S+): (\d+) samples", text, re.M)} if n else {}
say(set(got) == set(shares) and all(abs(got[k] - shares[k]) < 0.02 for k in shares),
    "each phase's share of the samples is the lens's: %s" %
    ", ".join("%s %.1f%%/%.1f%%" % (k, 100 * got.get(k, 0), 100 * shares[k]) for k in shares))
names = set(l.split()[2] for l in open(sys.argv[5]) if len(l.split()) == 3 and l.split()[1] in "tTwW")
rows = re.findall(r"^ +[\d.]+% +(\d+)  (.+)$", text, re.M)
kern = [f for c, f in rows if not f.startswith(("agent:", "["))]
say(kern and all(f in names for f in kern) and any(f.startswith("agent:") for c, f in rows),
    "%d kernel functions named, each in the Image's map; the agent's named agent:NAME" % len(set(kern)))
unnamed = sum(int(c) for c, f in re.findall(r"^ +[\d.]+% +(\d+)  (\[.*\])$", text.split("\n\n")[1], re.M))
say(unnamed < 0.01 * n, "unnamed samples (no symbol, vDSO): %d of %d" % (unnamed, n))
# The disk view's top kernel function (the agent's own rows aside: how
# its code is inlined moves its samples between its names).
sec = re.search(r"^phase disk_view: .*\n((?: +[\d.]+% +\d+  \S+\n?)+)", text, re.M)
kfun = [f for f in re.findall(r"  (\S+)$", sec.group(1), re.M) if not f.startswith(("agent:", "["))] if sec else []
say(kfun and kfun[0].startswith("crc32"), "the disk view's top kernel function: %s" % (kfun[0] if kfun else "-"))
svg = ET.parse(sys.argv[4]).getroot()
ns = "{http://www.w3.org/2000/svg}"
width = float(svg.get("width"))
by_row = {}
for r in svg.iter(ns + "rect"):
    if r.get("y") is not None:
        by_row[r.get("y")] = by_row.get(r.get("y"), 0) + float(r.get("width"))
say(len(by_row) == 3 and all(abs(w - width) < 0.02 * width for w in list(by_row.values())[:1]) and
    all(w <= width + 1 for w in by_row.values()),
    "the picture: 3 rows of boxes (phase, function, kind), the phases spanning its %d px (%s)" %
    (width, ", ".join("%.0f" % w for w in by_row.values())))
stacks = [(l.rsplit(" ", 1)[0].split(";"), int(l.rsplit(" ", 1)[1])) for l in open(sys.argv[6])]
say(sum(c for s, c in stacks) == n and all(len(s) >= 3 for s, c in stacks),
    "the folded stacks count each of the %d samples once" % n)
crc = [(s, c) for s, c in stacks if s[-1] == "crc32_body"]
good = sum(c for s, c in crc if s[-2] == "chksum_update")
say(crc and good == sum(c for s, c in crc),
    "crc32_body's caller is chksum_update at %d of %d samples" % (good, sum(c for s, c in crc)))
def under(s, *chain):  # each a pattern of a whole name, in order, outermost first
    at = 2
    for f in chain:
        hit = [i for i in range(at, len(s)) if re.fullmatch(f, s[i])]
        if not hit:
            return False
        at = hit[0] + 1
    return True
for fs in ("ext4", "ext2"):
    c = sum(c for s, c in stacks if s[:2] == ["operation", "create"] and
            under(s, r"(__riscv_)?sys_openat", "do_sys_openat2", "path_openat", fs + "_create"))
    say(c > 0, "%s_create under sys_openat, do_sys_openat2, path_openat: %d samples" % (fs, c))
kernel_op = [(s, c) for s, c in stacks if s[0] == "operation" and not s[-1].startswith(("agent:", "["))]
deep = sum(c for s, c in kernel_op if len(s) - 3 >= 5)
say(deep > 0.7 * sum(c for s, c in kernel_op),
    "kernel samples of the operation with 5 callers or more: %d of %d" % (deep, sum(c for s, c in kernel_op)))
flame = ET.parse(sys.argv[7]).getroot()
rows = {}
for r in flame.iter(ns + "rect"):
    if r.get("y") is not None and r.get("height") not in (None, "100%"):
        rows[float(r.get("y"))] = rows.get(float(r.get("y")), 0) + float(r.get("width"))
ys = sorted(rows, reverse=True)  # the bottom row first: the phases
fw = float(flame.get("width"))
say(len(ys) > 8 and abs(rows[ys[0]] - fw) < 0.01 * fw and
    all(rows[ys[i + 1]] <= rows[ys[i]] + 0.5 for i in range(len(ys) - 1)),
    "the flame graph: %d rows, the phases spanning its %d px, each row within the one below" % (len(ys), fw))
host = json.load(open(sys.argv[8]))
hg, htext = host["lenses"]["guest"], open(sys.argv[9]).read()
say(host["states"] == p["states"] and host["unique_states"] == p["unique_states"] and
    hg["total"] < 0.95 * g["total"] and "crc32_body" not in htext and "chksum_update" not in htext and
    g["host_crc"]["calls"] == 0 and hg["host_crc"]["calls"] > host["states"] and
    g["host_memset"]["calls"] == 0 and hg["host_memset"]["calls"] > host["states"],
    "the CRCs and memsets on the host: the same %d states, %d unique; %.0f instead of %.0f instructions "
    "per state, crc32_body gone from the profile, %d CRCs of %d bytes and %d memsets of %d counted "
    "(none with THEMIS_GUEST_CODE=1)" %
    (host["states"], host["unique_states"], hg["per_state"], g["per_state"],
     hg["host_crc"]["calls"], hg["host_crc"]["bytes"], hg["host_memset"]["calls"],
     hg["host_memset"]["bytes"]))
PY
cat "$work/checks"
fails=$((fails + $(grep -c '^FAIL' "$work/checks")))
grep -q '^ok: the CRCs and memsets on the host' "$work/checks" || fail "the checks did not all run"

# Bad input.
cp "$kernel" "$work/Image-nomap"
expect 2 "Image-nomap.map: No such file.*build the kernel again" -- \
	"$themis" explore ext4 ext2 --depth 1 --kernel "$work/Image-nomap" --profile-guest 10000 --quiet --out "$work/x"
expect 2 "profile-guest needs the instructions between samples" -- \
	"$themis" explore ext4 ext2 --profile-guest 5
expect 2 "not with --jobs N > 1" -- "$themis" explore ext4 ext2 --profile-guest 10000 --jobs 2
if [ -x "$b/asan/themis" ]; then
	cp "$kernel" "$work/Image-bad"
	# The real map with every 5th address moved (the stack walk reads
	# prologues where no function starts) and garbage after it.
	awk 'NR % 5 == 0 { $1 = substr($1, 1, 15) "6" } { print }' "$kernel.map" >"$work/Image-bad.map"
	head -c 200000 /dev/urandom >>"$work/Image-bad.map"
	printf 'ffffffffffffffffffff T x\n0 T\nzz t y\n %s\n' "$(head -c 300 /dev/zero | tr '\0' a)" >>"$work/Image-bad.map"
	"$b/asan/themis" explore ext4 ext2 --depth 1 --ops create --kernel "$work/Image-bad" \
		--disk "$b/images/ext4.img" --disk "$b/images/ext2.img" --initrd "$b/guest/initramfs.cpio.gz" \
		--profile-guest 10000 --quiet --out "$work/bad" >"$work/bad.out" 2>&1
	st=$?
	[ "$st" -le 2 ] && ! grep -q 'Sanitizer' "$work/bad.out" && grep -q 'Image-bad.map\|guest profile:' "$work/bad.out" &&
		ok "a damaged map: exit $st, no sanitizer report ($(tail -n 1 "$work/bad.out" | cut -c1-70))" ||
		{ fail "a damaged map: exit $st"; tail -n 5 "$work/bad.out"; }
fi
finish test_profile_guest
