# tests/lens/layout_lib.sh - what the layout tests (test_layout*.sh)
# share: mapping an image and checking a map against the ranges a
# filesystem's own tool reports, and writing and replaying a trace of
# their own to populate an image. Source it after tests/lib.sh, with
# $themis and $work set ($build too for trace_header).

# map IMG OUT: the text map of IMG into OUT (fails the test if it does not parse).
map() {
	if ! "$themis" layout "$1" >"$2" 2>"$work/map.err"; then
		fail "layout $(basename "$1"): $(cat "$work/map.err")"
		return 1
	fi
}

# check_map MAP QUERIES WHAT: each query line "FIRST LAST STRUCTURE [OWNER]"
# (LBAs) must be covered wholly by ranges of STRUCTURE (and that owner).
check_map() {
	bad=$(awk -v what="$3" '
		FNR == NR { if ($1 !~ /^#/) { n++; a[n] = $1; z[n] = $2; s[n] = $4; o[n] = 0
			for (i = 5; i <= NF; i++) if ($i ~ /^owner=/) o[n] = substr($i, 7) }
			next }
		{ q++; want = $3; cov = 0
		  for (i = 1; i <= n; i++) {
			if (z[i] < $1 || a[i] > $2) continue
			lo = a[i] < $1 ? $1 : a[i]; hi = z[i] > $2 ? $2 : z[i]
			if (s[i] != want || ($4 != "" && o[i] != $4)) {
				printf "%s: sectors %d-%d are %s owner %d, want %s owner %s\n", what, lo, hi, s[i], o[i], want, $4
				bad++; next }
			cov += hi - lo + 1 }
		  if (cov != $2 - $1 + 1) { printf "%s: %d-%d %s only %d sectors named\n", what, $1, $2, want, cov; bad++ } }
		END { if (!q) print what ": no queries (the reference tool printed nothing?)" }' "$1" "$2" | head -n 5)
	if [ -n "$bad" ]; then
		fail "$bad"
	else
		ok "$3: $(wc -l <"$2") structures where the tool puts them"
	fi
}

# sane IMG FS SB_LBA: parses as FS, names the superblock at SB_LBA, ranges
# sorted, disjoint and inside the image; the JSON form parses.
sane() {
	img=$1 fs=$2 sb=$3
	map "$img" "$work/$fs.map" || return
	sectors=$(($(stat -c %s "$img") / 512))
	head -n 1 "$work/$fs.map" | grep -q "^# $fs:" || fail "$fs: map header $(head -n 1 "$work/$fs.map")"
	msg=$(awk -v sectors="$sectors" -v sb="$sb" '
		/^#/ { next }
		{ if ($2 - $1 + 1 != $3 || $3 < 1) { print "bad range " $0; exit }
		  if (n && $1 <= last) { print "unsorted or overlapping at " $0; exit }
		  if ($2 >= sectors) { print "past the image (" sectors " sectors): " $0; exit }
		  last = $2; n++
		  if ($1 <= sb && sb <= $2 && $4 == "superblock") found = 1 }
		END { if (!n) print "empty map"; else if (!found) print "no superblock at LBA " sb }' "$work/$fs.map")
	[ -z "$msg" ] && ok "$fs: $(grep -vc '^#' "$work/$fs.map") ranges, superblock at $sb, sorted, inside" ||
		fail "$fs: $msg"
	if command -v python3 >/dev/null 2>&1; then
		"$themis" layout "$img" --json "$work/$fs.json" >/dev/null &&
			python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); assert l and all("lba" in r and "count" in r and "structure" in r for r in l)' "$work/$fs.json" ||
			fail "$fs: --json does not write a list of {lba, count, structure}"
	fi
}

# hash_helper: builds $work/xxh FILE..., which prints each FILE's XXH3-128
# hash in hex, a line each: a trace names its kernel, initrd and image by
# it (as identity.c takes it), and no themis command prints one, so a few
# lines of C do. Once per test (nothing to do when it is built); fails the
# test and returns 1 when it cannot be built.
hash_helper() {
	[ -x "$work/xxh" ] && return 0
	cat >"$work/xxh.c" <<'EOF'
#define XXH_STATIC_LINKING_ONLY
#include <stdio.h>
#include <xxhash.h>
int main(int argc, char **argv)
{
	static char buf[1 << 16];
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f)
			return 1;
		XXH3_state_t st;
		XXH3_INITSTATE(&st);
		XXH3_128bits_reset(&st);
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			XXH3_128bits_update(&st, buf, n);
		fclose(f);
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&st));
		for (int k = 0; k < 16; k++)
			printf("%02x", c.digest[k]);
		printf("\n");
	}
	return 0;
}
EOF
	if ! cc -O2 -o "$work/xxh" "$work/xxh.c" -lxxhash; then
		fail "cannot build the hash helper (cc, libxxhash-dev)"
		return 1
	fi
}

# trace_header FS IMG [KERNEL]: the lines a trace opens with, before its
# op lines: version 2, filesystem FS, then the kernel (KERNEL, default
# $build/guest/Image), $build's initrd and the image IMG, each by its path
# (links resolved) and its hash (hash_helper builds the hasher), and the
# machine: 256 MiB, the clock at 2026-01-01, seed 0, time 0, durability off.
trace_header() {
	trace_kernel=$(readlink -f "${3:-$build/guest/Image}")
	trace_initrd=$(readlink -f "$build/guest/initramfs.cpio.gz")
	trace_img=$(readlink -f "$2")
	echo "themis-trace 2"
	echo "fs $1"
	echo "kernel $trace_kernel $("$work/xxh" "$trace_kernel")"
	echo "initrd $trace_initrd $("$work/xxh" "$trace_initrd")"
	echo "image $1 $trace_img $("$work/xxh" "$trace_img")"
	printf 'mem 268435456\nclock 1767225600000000000\nmachine-seed 0\ntime 0\ndurability off\n'
}

# replay_last TRACE OUT [OPTION...]: replays TRACE (themis replay, with
# OPTIONs such as --rules DIR), saving every step's disk, and moves the
# disk after the last step into OUT; the log is $work/replay.log. The
# saved disks are NN-FS.img by step: sorted by number, as a replay may
# have more than 99 steps. Fails the test and returns 1 when no disk was
# saved or the replay did not get through all its operations.
replay_last() {
	trace=$1 out=$2
	shift 2
	rm -rf "$work/r"
	"$themis" replay "$trace" "$@" --save-disks "$work/r" >"$work/replay.log" 2>&1
	# shellcheck disable=SC2012 # the names are NN-FS.img
	last=$(ls "$work/r" 2>/dev/null | sort -n | tail -n 1)
	if [ -z "$last" ] || ! grep -q "after all [0-9]* operations" "$work/replay.log"; then
		fail "replay: $(tail -n 2 "$work/replay.log")"
		return 1
	fi
	mv "$work/r/$last" "$out"
	rm -rf "$work/r"
}
