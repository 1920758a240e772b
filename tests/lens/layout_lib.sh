# tests/lens/layout_lib.sh - what the layout tests (test_layout*.sh)
# share: mapping an image and checking a map against the ranges a
# filesystem's own tool reports. Source it after tests/lib.sh, with
# $themis and $work set.

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
