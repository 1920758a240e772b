#!/bin/sh
# What a kernel variant costs, side by side on one host: A, the way
# scripts/build-kernel.sh builds one now (the patch applied in the plain
# tree, its files rebuilt and the kernel relinked, the tree put back), and
# B, the way it did before (a copy of the whole built tree, the patch
# applied in the copy, an incremental build there, the copy removed).
# Rounds alternate A B A B...; each forces a rebuild of the same variant.
#
#   bench/kernel/variant.sh [--rounds N] [--patch DIR] [BUILD_DIR]
#   (defaults: 2 rounds, guest/bugs/ext4-link3, build/; the plain 6.1
#   kernel must be built: scripts/build-kernel.sh)
#
# Prints each round's seconds, the medians and B/A.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=2 patch=$top/guest/bugs/ext4-link3 b=$top/build
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--patch) patch=$(cd "$2" && pwd); shift 2 ;;
	*) b=$1; shift ;;
	esac
done
b=$(cd "$b" && pwd)
tree=$b/linux-6.1 name=$(basename "$patch")
[ -f "$tree/.themis-stamp" ] || { echo "variant: build the plain kernel first (scripts/build-kernel.sh)" >&2; exit 2; }
lock=$b/guest/.build-kernel.lock
now() { date +%s.%N; }

a_round() { # the variant as build-kernel.sh builds it
	rm -f "$b/guest/Image-$name.stamp"
	t0=$(now)
	"$top/scripts/build-kernel.sh" --patch "$patch" "$b" >/dev/null
	echo "$(now) - $t0" | bc
}
b_round() { # the variant as it was built before: in a copy of the tree
	copy=$b/linux-6.1-bench-copy
	t0=$(now)
	flock "$lock" sh -c '
		set -e
		rm -rf "$2"
		cp -a "$1" "$2"
		grep -rlF "$1/" "$2" --include=".*.cmd" | while read -r f; do sed -i "s|$1/|$2/|g" "$f"; done
		for p in "$3"/*.patch; do patch -p1 -N -s -d "$2" <"$p"; done
		KBUILD_BUILD_USER=themis KBUILD_BUILD_HOST=themis KBUILD_BUILD_VERSION=1 \
		KBUILD_BUILD_TIMESTAMP="1970-01-01 00:00:00 UTC" \
			make -C "$2" ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- -j"$(nproc)" Image >/dev/null
		cp "$2/arch/riscv/boot/Image" "$4"
		rm -rf "$2"
	' sh "$tree" "$copy" "$patch" "$b/guest/Image-$name.copy"
	echo "$(now) - $t0" | bc
}

echo "variant $name, $rounds rounds, $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
: >"$b/variant-a" && : >"$b/variant-b"
for i in $(seq "$rounds"); do
	a=$(a_round) && echo "$a" >>"$b/variant-a"
	c=$(b_round) && echo "$c" >>"$b/variant-b"
	printf 'round %d: A (in the tree) %.1f s, B (a copy of the tree) %.1f s\n' "$i" "$a" "$c"
done
cmp -s "$b/guest/Image-$name" "$b/guest/Image-$name.copy" && echo "the two ways give the same image, byte for byte" ||
	echo "the two ways give different images"
rm -f "$b/guest/Image-$name.copy"
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ma=$(med "$b/variant-a") mb=$(med "$b/variant-b")
printf 'median: A %.1f s, B %.1f s, B/A %.1fx\n' "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
rm -f "$b/variant-a" "$b/variant-b"
