#!/bin/sh
# tier: fast
# 6.12: full
# `themis report DIR` end to end: a real exploration on a planted-bug
# kernel (ext4's link count stuck at 2), its folder written as one HTML
# page, the page opened in Debian's chromium, headless, and the RENDERED
# DOM checked (after the page's load event), in a 1280x1200 window: the bug
# first (the summary with the command line, kernel, build and scope, then
# the first group within the first 1,200 pixels, coverage and charts
# after); every result's group section with its signature, operations,
# the views' difference and the disks' byte diff (ext2 wrote the link
# count, ext4 did not), and its reproducer as links to its files with repro.sh's first
# lines; the heat map drawn with one
# cell per operation and argument of report.json's coverage; the growth
# chart drawn with a bar per depth; the io lens's chart; an SVG file of the
# folder (corrupt --svg's) shown; groups, reproducers and trace paths as report.json's
# "groups" gives them; hostile text in a trace shown, never run; and the
# page naming no URL; the sanitizer build writing the same page. Also
# report.json's by_depth: its counts add up to the run's totals with one
# worker, two, and through Redis; a run cut short says why; and bad input
# (exit 2). Takes about 15 s.
#   tests/check/test_report.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/../lib.sh"
test_setup "$@"
need_kernel ext4-link3
trap 'stop_redis; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1

if ! command -v chromium >/dev/null 2>&1; then
	echo "FAIL: chromium is missing (Debian package chromium; scripts/deps.sh installs it)"
	exit 1
fi

# dom HTML OUT: the page as chromium renders it, after its load event.
dom() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium" \
		--window-size=1280,1200 --dump-dom "file://$1" >"$2" 2>"$work/chromium.log"
}

scope="ext4 ext2 --kernel $b/guest/Image-ext4-link3 --depth 3 --ops create,link,unlink --paths f0,f1,f2"

# 1. The run: six link-count discrepancies, with the io lens.
# shellcheck disable=SC2086
"$themis" explore $scope --jobs 1 --lens io --quiet --out "$work/run" >"$work/run.out" 2>&1
st=$?
[ "$st" -eq 1 ] && [ -s "$work/run/report.json" ] && ok "explore found the planted bug (exit 1)" ||
	{ fail "explore: exit $st"; tail -n 20 "$work/run.out"; exit 1; }

# 2. by_depth adds up to the run's totals (depth 0 is the root, which
#    `states` does not count), with one worker, two, and Redis; and the
#    first depth, the root's candidates, is the same in all three.
by_depth() { # REPORT: "ok DEPTH1STATES" or what is wrong
	python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r.get("by_depth", [])
errs = []
if [x["depth"] for x in d] != list(range(r["depth"] + 1)): errs.append("depths %s" % [x["depth"] for x in d])
elif d[0] != {"depth": 0, "states": 1, "unique": 1}: errs.append("root %s" % d[0])
if sum(x["states"] for x in d[1:]) != r["states"]: errs.append("states %d != %d" % (sum(x["states"] for x in d[1:]), r["states"]))
if sum(x["unique"] for x in d) != r["unique_states"]: errs.append("unique %d != %d" % (sum(x["unique"] for x in d), r["unique_states"]))
print(" ".join(errs) if errs else "ok %d" % d[1]["states"])
PY
}
# shellcheck disable=SC2086
"$themis" explore $scope --jobs 2 --quiet --out "$work/jobs2" >/dev/null 2>&1
one=$(by_depth "$work/run/report.json") two=$(by_depth "$work/jobs2/report.json")
three="no Redis"
if start_redis; then
	# shellcheck disable=SC2086
	"$themis" explore $scope --jobs 2 --redis "$redis_url" --quiet --out "$work/redis" \
		>/dev/null 2>&1
	three=$(by_depth "$work/redis/report.json")
fi
case "$one" in ok*) ;; *) one="bad: $one" ;; esac
[ "$one" = "$two" ] && [ "$one" = "$three" ] && [ "${one#ok }" -gt 0 ] &&
	ok "by_depth adds up to the totals with 1 job, 2 jobs and Redis ($one)" ||
	fail "by_depth: 1 job '$one', 2 jobs '$two', Redis '$three'"

# 3. The page, rendered, with another verb's picture in the folder (the
#    bit-flip spectrum of one flip: about a second).
"$themis" corrupt ext2 --at 2:56:2 --quiet --svg "$work/run" >"$work/corrupt.out" 2>&1 ||
	fail "corrupt --svg: exit $?"
html=$work/run/report.html
"$themis" report "$work/run" && [ -s "$html" ] && ok "report wrote $(wc -c <"$html") bytes" ||
	fail "report: exit $?, or no $html"
dom "$html" "$work/dom.html" || { fail "chromium failed"; tail -n 5 "$work/chromium.log"; }
check_dom() { # REPORT DOM: the checks on the rendered page, one line each
	python3 - "$1" "$2" <<'PY'
import json, sys
from html.parser import HTMLParser
r = json.load(open(sys.argv[1]))

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.els = [], []
    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "text": "", "in": [e for e in self.stack]}
        self.els.append(el)
        if tag not in ("rect", "line", "meta", "img", "br", "input"):
            self.stack.append(el)
    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break
    def handle_data(self, data):
        for e in self.stack:
            e["text"] += data

d = Dom()
d.feed(open(sys.argv[2]).read())
def cls(e): return e["attrs"].get("class", "").split()
def find(pred): return [e for e in d.els if pred(e)]
def say(ok, what): print(("ok: " if ok else "FAIL: ") + what)

body = find(lambda e: e["tag"] == "body")
say(body and body[0]["attrs"].get("data-loaded") == "1", "the page loaded and its script ran")
groups = find(lambda e: e["tag"] == "section" and "group" in cls(e))
sigs = [g["attrs"].get("data-signature") for g in groups]
# One section per group when the run grouped its findings, else per result.
want = [x["signature"] for x in r.get("groups") or r["results"]]
say(sigs == want and len(groups) > 0, "a group section per group, with its signature: %s" % sigs)
g1 = groups[0] if groups else {"text": ""}
ops = find(lambda e: e["tag"] == "li" and any("ops" in cls(p) for p in e["in"]) and g1 in e["in"])
say(len(ops) == r["results"][0]["depth"], "group 1 lists its %d operations" % len(ops))
diff = find(lambda e: e["tag"] == "pre" and "diff" in cls(e) and g1 in e["in"])
say(diff and "stat of f0" in diff[0]["text"] and "nlink=2" in diff[0]["text"] and "nlink=3" in diff[0]["text"],
    "group 1 shows the diff (the stat of f0 on each filesystem)")
# The disks' byte diff of the last operation, per filesystem: ext2 wrote
# inode 12's link count, the stuck ext4 wrote none (its ctime is masked).
dd = find(lambda e: e["tag"] == "pre" and "disk-diff" in cls(e) and g1 in e["in"])
part, parts = None, {}
for line in (dd[0]["text"] if dd else "").splitlines():
    if line.split(":")[0] in r["filesystems"] and "` changed " in line:
        part = parts.setdefault(line.split(":")[0], [line])
    elif part is not None:
        part.append(line)
say(sorted(parts) == sorted(r["filesystems"]) and
    any("inode-table inode 12 i_links_count" in l for l in parts.get("ext2", [])) and
    not any("i_links_count" in l for l in parts.get("ext4", [])),
    "group 1's disk diff: ext2 wrote inode 12's i_links_count, ext4 no link count (%s)" %
    "; ".join(p[0] for p in parts.values()))
links = [e["attrs"].get("href") for e in find(lambda e: e["tag"] == "a" and g1 in e["in"])]
head = find(lambda e: e["tag"] == "pre" and "repro-head" in cls(e) and g1 in e["in"])
say(links == ["group-0001/repro.sh", "group-0001/repro.c"] and head and
    "reproducer of a Themis trace" in head[0]["text"] and len(head[0]["text"].splitlines()) <= 13,
    "group 1's reproducer: links to group-0001/repro.sh and repro.c, and repro.sh's first lines (%d)" %
    (len(head[0]["text"].splitlines()) if head else 0))
# The bug first: the first group within the first 1,200 pixels of a
# 1280-pixel-wide window, before the coverage and the charts.
top = int(g1["attrs"].get("data-top", 99999)) if groups else 99999
order = [e["attrs"].get("id") for e in find(lambda e: e["tag"] == "section" and e["attrs"].get("id") in
         ("summary", "groups", "rules", "coverage", "growth-section"))]
say(top < 1200 and order[:2] == ["summary", "groups"] and order.index("coverage") > order.index("groups"),
    "the first group starts %d px down, after the summary, before coverage and charts (%s)" % (top, order))
for key in ("command", "kernel_version", "build", "scope"):
    v = find(lambda e: e["attrs"].get("data-key") == key)
    say(v and v[0]["text"] == str(r[key]) and r[key], "summary %s: %s" % (key, (v[0]["text"][:60] if v else "absent")))
say(r["command"].startswith("themis explore ") and r["kernel_version"].startswith("Linux version "),
    "report.json names the command line and the kernel's banner")
cov = r["lenses"]["coverage"]
cells = sum(len(v["arguments"]) for v in cov.values())
heat = find(lambda e: e["tag"] == "svg" and e["attrs"].get("id") == "heatmap")
got = find(lambda e: e["tag"] == "g" and "heat-cell" in cls(e))
say(heat and int(heat[0]["attrs"].get("data-drawn-width", 0)) > 0 and len(got) == cells,
    "heat map drawn (%s px wide), %d cells for %d operation x argument pairs" %
    (heat[0]["attrs"].get("data-drawn-width") if heat else "no svg", len(got), cells))
tried = [(e["attrs"]["data-op"], e["attrs"]["data-arg"], int(e["attrs"]["data-tried"]), int(e["attrs"]["data-scope"])) for e in got]
say(tried == [(o, a, v[0], v[1]) for o, x in cov.items() for a, v in x["arguments"].items()],
    "each heat-map cell holds its report.json counts")
grow = find(lambda e: e["tag"] == "svg" and e["attrs"].get("id") == "growth")
bars = find(lambda e: e["tag"] == "rect" and "bar-states" in cls(e))
say(grow and int(grow[0]["attrs"].get("data-drawn-height", 0)) > 0 and len(bars) == len(r["by_depth"]),
    "growth chart drawn, %d bars for %d depths" % (len(bars), len(r["by_depth"])))
say(grow and int(grow[0]["attrs"].get("data-drawn-width", 0)) <= int(grow[0]["attrs"].get("width", 0)),
    "the growth chart's labels fit its width (drawn %s of %s px)" %
    (grow[0]["attrs"].get("data-drawn-width") if grow else "-", grow[0]["attrs"].get("width") if grow else "-"))
if "io" in r["lenses"]:
    io = find(lambda e: e["tag"] == "svg" and e["attrs"].get("id") == "io")
    say(io and int(io[0]["attrs"].get("data-drawn-width", 0)) > 0, "io lens chart drawn")
for key in ("states", "unique_states", "discrepancies", "complete"):
    v = find(lambda e: e["attrs"].get("data-key") == key)
    want = {True: "yes", False: "no"}.get(r[key], str(r[key]))
    say(v and v[0]["text"] == want, "summary %s: %s" % (key, v[0]["text"] if v else "absent"))
imgs = find(lambda e: e["tag"] == "img")
say(len(imgs) == 1, "one picture for the folder's one SVG file (%d)" % len(imgs))
for e in imgs:
    say(e["attrs"].get("src", "").startswith("data:") and int(e["attrs"].get("data-drawn-width", 0)) > 0,
        "picture inline and drawn (%s px wide)" % e["attrs"].get("data-drawn-width"))
PY
}
check_dom "$work/run/report.json" "$work/dom.html" >"$work/checks"
cat "$work/checks"
fails=$((fails + $(grep -c '^FAIL' "$work/checks")))
grep -q '^ok: heat map drawn' "$work/checks" || fail "the heat-map check did not run"

# The sanitizer build (ASan+UBSan) writes the same page, byte for byte.
if [ -x "$b/asan/themis" ]; then
	"$b/asan/themis" report "$work/run" --out "$work/asan.html" && cmp -s "$html" "$work/asan.html" &&
		ok "the sanitizer build writes the same page" ||
		fail "the sanitizer build: exit $?, or another page"
fi

# No URL anywhere: no http(s), no src= or href= but data: ones and the
# reproducers' files beside the page, no url().
if grep -qi 'https\?:\|<link\|url(' "$html" ||
	grep -o '\(src\|href\)="[^"]*"' "$html" | grep -v '="data:' |
	grep -qv '^href="group-[0-9]*/\(repro\.sh\|repro\.c\|disk-diff\.txt\)"$'; then
	fail "the page names an external resource: $(grep -oi 'https\?:[^" ]*\|\(src\|href\)="[^d][^"]*"' "$html" | head -n 3)"
else
	ok "the page names no URL (only data: pictures)"
fi

# 4. As report.json will give them: "groups" (the simplest trace by a path
#    that moved, found by its name in DIR), a reproducer in group-0001/,
#    and an SVG file in DIR. Hostile text in a trace and in the
#    reproducer is shown as text, never run.
cp -r "$work/run" "$work/grouped" && rm "$work/grouped/report.html"
python3 - "$work/grouped/report.json" <<'PY'
import json, sys
p = sys.argv[1]
r = json.load(open(p))
r["groups"] = [{"id": 1, "signature": "state:nlink", "view": "state", "filesystems": ["ext4", "ext2"],
    "shape": "create,link,link", "count": len(r["results"]),
    "simplest": "moved/elsewhere/discrepancy-0001.trace",
    "members": [x["trace"] for x in r["results"]]},
    {"id": 2, "signature": "disk:<b>content</b>", "view": "disk", "filesystems": ["ext4"],
    "shape": "x", "count": 1, "simplest": "hostile.trace", "members": ["hostile.trace"]}]
for x in r["results"]: x["group"] = 1
json.dump(r, open(p, "w"))
PY
mkdir -p "$work/grouped/group-0001"
printf '#!/bin/sh\n# repro of group one\necho "</pre><script>document.body.setAttribute(\\"data-pwned\\",1)</script>"\n' \
	>"$work/grouped/group-0001/repro.sh"
printf 'int main(void) { return 0; } /* repro.c of group one */\n' >"$work/grouped/group-0001/repro.c"
printf 'themis-trace 3\nop create <img src=x onerror="document.body.setAttribute(\047data-pwned\047,2)"> 0644 -\ndiscrepancy disk:content hostile \377\376 bytes </pre><script>document.body.setAttribute("data-pwned",3)</script>\nshow   <b>not bold</b>\nend\n' \
	>"$work/grouped/hostile.trace"
printf '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="red"/><script>parent.document.body.setAttribute("data-pwned",4)</script></svg>\n' \
	>"$work/grouped/picture.svg"
"$themis" report "$work/grouped" --out "$work/grouped.html" && [ -s "$work/grouped.html" ] &&
	[ ! -e "$work/grouped/report.html" ] && ok "report --out FILE" || fail "report --out: exit $?"
dom "$work/grouped.html" "$work/gdom.html"
python3 - "$work/gdom.html" <<'PY' >"$work/gchecks"
import re, sys
t = open(sys.argv[1]).read()
def say(ok, what): print(("ok: " if ok else "FAIL: ") + what)
say(re.search(r'<body[^>]*data-loaded="1"', t) is not None and
    re.search(r'<body[^>]*data-pwned', t) is None, "hostile trace, reproducer and picture: nothing of theirs ran")
say(re.search(r'<section class="group" id="group-1" data-signature="state:nlink"', t) is not None,
    "group 1 from report.json's groups")
say(re.search(r'id="group-2" data-signature="disk:&lt;b&gt;content&lt;/b&gt;"', t) is not None and "<b>content" not in t,
    "a group's signature is escaped")
g1 = t[t.find('id="group-1"'):t.find('id="group-2"')]
say(g1.count("<li><code>") == 3 and "link f0 f2" in g1, "the moved simplest trace found by its name in DIR")
say("repro of group one" in g1 and 'href="group-0001/repro.c"' in g1 and "&lt;script&gt;" in g1,
    "group 1's repro.sh shown (its first lines, escaped) and repro.c linked")
say("all 6 members" in g1 or "all " in g1, "group 1's members listed")
g2 = t[t.find('id="group-2"'):]
say("&lt;img src=x" in g2 and "&lt;b&gt;not bold&lt;/b&gt;" in g2 and "\ufffd" in g2,
    "group 2's hostile trace shown as text (bad bytes as U+FFFD)")
say(re.search(r'<img class="picture" alt="" src="data:image/svg\+xml;base64,[^"]*" data-drawn-width="40"', t) is not None,
    "the folder's SVG file inline as a data: picture, drawn 40 px wide")
PY
cat "$work/gchecks"
fails=$((fails + $(grep -c '^FAIL' "$work/gchecks")))

# 5. A run cut short says why: report.json's "stopped" in the summary.
# shellcheck disable=SC2086
"$themis" explore $scope --jobs 1 --max-states 10 --quiet --out "$work/cut" >/dev/null 2>&1
"$themis" report "$work/cut" &&
	grep -q '<td class="value" data-key="complete">no</td>' "$work/cut/report.html" &&
	grep -q 'data-key="stopped">--max-states reached</td>' "$work/cut/report.html" &&
	ok "an incomplete run: complete no, stopped because --max-states reached" ||
	fail "an incomplete run's page: $(grep -o 'data-key="\(complete\|stopped\)">[^<]*' "$work/cut/report.html")"

# 5b. Every filesystem, with every judge on (--crash, --fsck, --lens io),
#     on the stock kernel where `create; fsync` is F4 on nilfs2 (so its
#     findings print every disk's fsck line), and its page made: no
#     "(null)" anywhere a run writes (its output, traces, report.json,
#     report.html). nilfs2's missing checker once printed as
#     "fsck nilfs2 ((null)): none".
nulls=0
for set in "xfs btrfs f2fs" "ext2 ext3 vfat" "exfat jfs nilfs2" "minix"; do
	name=$(echo "$set" | tr ' ' -) depth=1
	case $set in *nilfs2*) depth=2 ;; esac # F4 takes create; fsync
	# shellcheck disable=SC2086
	"$themis" explore ext4 $set --crash --fsck --lens io --ops create,fsync \
		--paths f0 --sizes 0,4096 --depth $depth \
		--out "$work/all-$name" >"$work/all-$name.out" 2>&1
	"$themis" report "$work/all-$name" >>"$work/all-$name.out" 2>&1
	grep -rl '(null)' "$work/all-$name" "$work/all-$name.out" && nulls=$((nulls + 1))
done
[ $nulls -eq 0 ] && ls "$work"/all-*/report.html >/dev/null 2>&1 &&
	{ ! ls "$work"/all-exfat-jfs-nilfs2/discrepancy-*.trace >/dev/null 2>&1 ||
		grep -q '^show fsck nilfs2 (no checker): none' "$work"/all-exfat-jfs-nilfs2/discrepancy-*.trace; } &&
	ok "every filesystem under --crash --fsck --lens io, its page made: no (null) in any output" ||
	fail "(null) in $nulls of the runs' outputs"
# A lens section only where the lens counted something (the crash and
# fsck lenses were empty sections on runs without --crash and --fsck), and
# a group counts its members, not "findings" (the summary's word for guest
# failures: a group said "findings 1" under a summary of 0).
p=$work/run/report.html q=$work/all-exfat-jfs-nilfs2/report.html
grep -q '<h2>Lens: io' "$p" && ! grep -q '<h2>Lens: \(crash\|fsck\)' "$p" &&
	grep -q '<h2>Lens: crash' "$q" && grep -q '<h2>Lens: fsck' "$q" &&
	grep -q '<th>members</th><td class="n">' "$p" && ! grep -q '<th>findings</th><td class="n">' "$p" &&
	ok "lens sections only for lenses that counted (io here; crash and fsck under --crash --fsck); groups count members" ||
	fail "lens sections: $(grep -o '<h2>Lens: [a-z]*' "$p" | paste -sd' ' -) / $(grep -o '<h2>Lens: [a-z]*' "$q" | paste -sd' ' -)"

# 6. Bad input: exit 2, one line naming what and where.
mkdir -p "$work/empty" "$work/bad" "$work/notreport"
printf '{"results": [\n  {"kind": }\n' >"$work/bad/report.json"
printf '[1, 2]\n' >"$work/notreport/report.json"
expect 2 "needs the folder" -- "$themis" report
expect 2 "$work/missing: No such file or directory" -- "$themis" report "$work/missing"
expect 2 "not a directory" -- "$themis" report "$work/run/report.json"
expect 2 "empty/report.json: cannot read" -- "$themis" report "$work/empty"
expect 2 "bad/report.json:2:.*malformed JSON" -- "$themis" report "$work/bad"
expect 2 "notreport/report.json: not an explore report" -- "$themis" report "$work/notreport"
expect 2 "unknown option '--bogus'" -- "$themis" report "$work/run" --bogus
expect 2 "extra argument" -- "$themis" report "$work/run" "$work/run"
expect 2 "no/such/report.html: cannot write" -- "$themis" report "$work/run" --out "$work/no/such/report.html"
expect 0 "usage: themis report" -- "$themis" report --help

finish test_report
