#!/bin/sh
# Build a Themis kernel from Debian's linux-source-VERSION (6.1, the
# default, or 6.12, the current LTS), configured as `tinyconfig` +
# guest/kernel/common.config + guest/kernel/ARCH.config (+
# guest/kernel/ARCH-VERSION.config when it exists: what a version needs
# beyond the shared fragment): riscv64 (the Themis guest, the default) or
# x86_64 (the kernel the reproducers are proven on under qemu-system-x86_64).
#
#   scripts/build-kernel.sh [--arch ARCH] [--version V] [BUILD_DIR]
#       riscv64 -> BUILD_DIR/guest/Image          (tree: BUILD_DIR/linux-6.1)
#       x86_64  -> BUILD_DIR/guest-x86/bzImage    (tree: BUILD_DIR/linux-6.1-x86)
#       --version 6.12: BUILD_DIR/guest/Image-6.12 (tree: BUILD_DIR/linux-6.12),
#                  BUILD_DIR/guest-x86/bzImage-6.12 (tree: BUILD_DIR/linux-6.12-x86)
#   scripts/build-kernel.sh [--arch ARCH] [--version V] --patch DIR [BUILD_DIR]
#       riscv64 -> BUILD_DIR/guest/Image-NAME
#       x86_64  -> BUILD_DIR/guest-x86/bzImage-NAME
#       (with --version 6.12: Image-6.12-NAME)
#   scripts/build-kernel.sh --debug [--version V] [--patch DIR] [BUILD_DIR]
#       the same kernel with guest/kernel/debug.config on top (KFENCE,
#       lockdep, UBSAN, BUG and WARN reports; + debug-VERSION.config when
#       it exists: KASAN on 6.12), in a tree of its own
#       (BUILD_DIR/linux-6.1-debug): Image-debug, Image-debug-NAME,
#       Image-6.12-debug, Image-6.12-debug-NAME
#   scripts/build-kernel.sh --debug=lockdep --version 6.12 [--patch DIR] [BUILD_DIR]
#       guest/kernel/debug.config alone, without what debug-VERSION.config
#       adds (KASAN on 6.12, 17x the guest's work a state): lockdep,
#       KFENCE, UBSAN and the rest at a tenth of the debug kernel's cost,
#       for explorations wide enough to hunt with (tree:
#       BUILD_DIR/linux-6.12-lockdep): Image-6.12-lockdep, -lockdep-NAME.
#       6.1 has no such file, so there it is --debug's kernel: refused.
#
# BUILD_DIR defaults to build/ under the repository. NAME is the last
# component of DIR; DIR/*.patch are applied in name order with `patch -p1`
# (paths relative to the top of the kernel tree), or, for a version other
# than 6.1 when DIR has a folder of that name, DIR/VERSION/*.patch (the
# patches ported to that version's source). A patched kernel is built in
# the plain tree, patched for the build and put back after it: it costs
# what its patches touch and one link (12-15 s riscv64, 30-40 s x86_64
# on 2 cores), not a copy of the 1.5 GB tree. A patch may not change a Kconfig file: every
# variant shares its base's configuration.
#
# The last line printed is the image's path: what --kernel takes. Beside
# each image, IMAGE.map is its System.map (the guest profiler's symbols),
# and beside a debug kernel IMAGE.debug its vmlinux's debug sections (the
# file and line of each frame of a report).
#
# Cached: the output carries a stamp made of the fragments, the kernel
# source version, the compiler version and (for --patch) the patches.
# A rerun with nothing changed prints "kernel up to date" and does nothing;
# any change reconfigures and rebuilds. After configuring, every line of the
# fragments is checked against .config and the build fails listing the
# options that did not stick. Build logs: the output folder's
# kernel-build*.log.
#
# Installs the Debian packages it needs when missing (as root, or via sudo).
set -eu

usage() {
	echo "usage: $0 [--arch riscv64|x86_64] [--version 6.1|6.12] [--debug[=lockdep]] [--patch DIR] [BUILD_DIR]" >&2
	exit 2
}

REPO=$(cd "$(dirname "$0")/.." && pwd)

ARCH=riscv64
VERSION=6.1
PATCHDIR=""
DEBUG=""
BUILD_DIR=""
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || usage; ARCH=$2; shift 2 ;;
	--arch=*) ARCH=${1#--arch=}; shift ;;
	--version) [ $# -ge 2 ] || usage; VERSION=$2; shift 2 ;;
	--version=*) VERSION=${1#--version=}; shift ;;
	--patch) [ $# -ge 2 ] || usage; PATCHDIR=$2; shift 2 ;;
	--patch=*) PATCHDIR=${1#--patch=}; shift ;;
	--debug) DEBUG=-debug; shift ;;
	--debug=lockdep) DEBUG=-lockdep; shift ;;
	--debug=*) echo "build-kernel: $1: unknown debug set (known: --debug, --debug=lockdep)" >&2; exit 2 ;;
	-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) usage ;;
	*) [ -z "$BUILD_DIR" ] || usage; BUILD_DIR=$1; shift ;;
	esac
done
[ -n "$BUILD_DIR" ] || BUILD_DIR=$REPO/build

# The kernel source: a Debian linux-source-VERSION package. 6.1 keeps the
# plain names (Image, linux-6.1); any other version is named in its output.
case $VERSION in
6.1 | 6.12) ;;
*)
	echo "build-kernel: --version $VERSION: unknown version (known: 6.1 6.12)" >&2
	exit 2 ;;
esac
SRCPKG=linux-source-$VERSION
TARBALL=/usr/src/$SRCPKG.tar.xz

# Per architecture: make's ARCH, the compiler prefix and its packages, the
# output folder, tree suffix, image made and its name when copied out.
case $ARCH in
riscv64)
	KARCH=riscv CROSS=riscv64-linux-gnu- CCPKG=gcc-riscv64-linux-gnu
	OUTDIR=guest TSUFFIX="" TARGET=Image BOOTIMG=arch/riscv/boot/Image OUTNAME=Image
	MAPS=yes ;; # IMAGE.map, the guest profiler's symbols, is part of the output
x86_64) # objtool, which x86 builds always run, needs libelf
	KARCH=x86_64 CROSS="" CCPKG="gcc libelf-dev"
	OUTDIR=guest-x86 TSUFFIX=-x86 TARGET=bzImage BOOTIMG=arch/x86/boot/bzImage OUTNAME=bzImage
	MAPS=no ;;
*)
	echo "build-kernel: --arch $ARCH: unknown architecture (known: riscv64 x86_64)" >&2
	exit 2 ;;
esac
VTAG="" # "-6.12" in the names of what a version other than 6.1 makes
[ "$VERSION" = 6.1 ] || VTAG=-$VERSION
OUTNAME=$OUTNAME$VTAG$DEBUG
TSUFFIX=$TSUFFIX$DEBUG
[ -z "$DEBUG" ] || [ "$ARCH" = riscv64 ] || {
	echo "build-kernel: --debug: only for riscv64 (the Themis guest)" >&2
	exit 2
}
mkdir -p "$BUILD_DIR/$OUTDIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
GUEST=$BUILD_DIR/$OUTDIR

die() {
	echo "build-kernel: $*" >&2
	exit 1
}
say() { echo "build-kernel: $*"; }

# The fragment applied: the shared part, then the architecture's, then
# (if any) what this version needs beyond them. The version's file is
# checked like the others; it may also waive a line of the shared ones
# that names an option this version no longer has, with a line
# "#waive CONFIG_X reason" (the option must really be absent from the
# version's Kconfig, which is checked too).
FRAGS="common $ARCH"
[ ! -f "$REPO/guest/kernel/$ARCH-$VERSION.config" ] || FRAGS="$FRAGS $ARCH-$VERSION"
[ -z "$DEBUG" ] || FRAGS="$FRAGS debug"
[ "$DEBUG" != -debug ] || [ ! -f "$REPO/guest/kernel/debug-$VERSION.config" ] || FRAGS="$FRAGS debug-$VERSION"
[ "$DEBUG" != -lockdep ] || [ -f "$REPO/guest/kernel/debug-$VERSION.config" ] || {
	echo "build-kernel: --debug=lockdep: $VERSION's debug kernel adds nothing to guest/kernel/debug.config (no debug-$VERSION.config), so it is --debug's: use --debug" >&2
	exit 2
}
for f in $FRAGS; do
	[ -f "$REPO/guest/kernel/$f.config" ] || die "missing config fragment $REPO/guest/kernel/$f.config"
done
FRAGMENT=$GUEST/.fragment-$ARCH$VTAG$DEBUG.config
for f in $FRAGS; do cat "$REPO/guest/kernel/$f.config"; done >"$FRAGMENT"

NAME=""
if [ -n "$PATCHDIR" ]; then
	[ -d "$PATCHDIR" ] || die "--patch $PATCHDIR: not a directory"
	PATCHDIR=$(cd "$PATCHDIR" && pwd)
	NAME=$(basename "$PATCHDIR")
	[ "$VERSION" = 6.1 ] || [ ! -d "$PATCHDIR/$VERSION" ] || PATCHDIR=$PATCHDIR/$VERSION
	case $NAME in
	"" | *[!A-Za-z0-9._-]*) die "--patch: directory name '$NAME' must be [A-Za-z0-9._-]+" ;;
	esac
	ls "$PATCHDIR"/*.patch >/dev/null 2>&1 || die "--patch $PATCHDIR: no *.patch files"
fi

# --- (a) Debian packages -------------------------------------------------
ensure_packages() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing$missing"
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to install$missing"
		SUDO=sudo
	fi
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}
PKGS="$SRCPKG $CCPKG gcc libc6-dev bc flex bison make xz-utils"
[ -z "$NAME" ] || PKGS="$PKGS patch"
# shellcheck disable=SC2086
ensure_packages $PKGS
[ -f "$TARBALL" ] || die "$TARBALL missing although $SRCPKG is installed"

# Serialize concurrent runs on the same BUILD_DIR.
exec 9>"$GUEST/.build-kernel.lock"
flock 9

SRCVER=$(dpkg-query -W -f='${Version}' "$SRCPKG")
GCCVER=$("${CROSS}gcc" --version | head -n 1)
FRAGSUM=$(sha256sum <"$FRAGMENT" | cut -d' ' -f1)
BASE_STAMP="source $SRCPKG $SRCVER
compiler $GCCVER
fragment $FRAGSUM"

# Deterministic version strings: the image must not depend on who built
# it, where or when.
export KBUILD_BUILD_USER=themis KBUILD_BUILD_HOST=themis
export KBUILD_BUILD_TIMESTAMP="1970-01-01 00:00:00 UTC" KBUILD_BUILD_VERSION=1

kmake() { # kmake TREE ARGS...
	t=$1
	shift
	make -C "$t" ARCH="$KARCH" CROSS_COMPILE="$CROSS" "$@"
}

# --- (b) pristine source tree, extracted once per source version --------
extract() { # extract DEST
	if [ -f "$1/.themis-source" ] && [ "$(cat "$1/.themis-source")" = "$SRCVER" ]; then
		return 0
	fi
	say "extracting $TARBALL into $1"
	rm -rf "$1" "$1.tmp"
	mkdir -p "$1.tmp"
	tar -xJf "$TARBALL" -C "$1.tmp" --strip-components=1
	echo "$SRCVER" >"$1.tmp/.themis-source"
	mv "$1.tmp" "$1"
}

# --- (c) configure and check the fragment stuck -------------------------
verify_config() { # verify_config TREE: print "CONFIG_X: wanted V, got W" lines
	awk '
	FNR == NR {
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
			have[substr($0, 1, RLENGTH - 1)] = substr($0, RLENGTH + 1)
		}
		next
	}
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
		if ($2 in have) printf "%s: wanted not set, got %s\n", $2, have[$2]
		next
	}
	/^[ \t]*(#.*)?$/ { next }
	match($0, /^CONFIG_[A-Za-z0-9_]+=/) {
		sym = substr($0, 1, RLENGTH - 1)
		want = substr($0, RLENGTH + 1)
		got = (sym in have) ? have[sym] : "not set"
		if (got != want) printf "%s: wanted %s, got %s\n", sym, want, got
		next
	}
	{ printf "fragment line %d not understood: %s\n", FNR, $0 }
	' "$1/.config" "$FRAGMENT"
}

waived() { # waived: the CONFIG_X names the fragment's "#waive CONFIG_X why" lines excuse
	sed -n 's/^#waive[[:space:]]\{1,\}\(CONFIG_[A-Za-z0-9_]\{1,\}\)[[:space:]].*/\1/p' "$FRAGMENT"
}

# A waived option must really be gone from this version, else the waiver
# would hide a line that did not stick.
check_waivers() { # check_waivers TREE
	for sym in $(waived); do
		if grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+${sym#CONFIG_}[[:space:]]*\$" "$1"; then
			die "$FRAGMENT waives $sym, but $SRCPKG still defines it: remove the waiver"
		fi
	done
}

explain() { # explain TREE SYMBOL: the Kconfig dependencies of SYMBOL
	grep -rlE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$2[[:space:]]*\$" "$1" |
		while read -r f; do
			rel=${f#"$1"/}
			# The definition's depends/select lines, and the if blocks
			# around it in its own file...
			awk -v s="$2" -v f="$rel" '
			/^if[ \t]/ { st[++n] = $2; next }
			/^endif/ { if (n) n--; next }
			$0 ~ "^[ \t]*(menu)?config[ \t]+" s "[ \t]*$" {
				on = 1; print "    " f ":"
				for (i = 1; i <= n; i++) print "      inside: if " st[i]
				next
			}
			on && /^[ \t]*((menu)?config|menu|endmenu|choice|endchoice|if|endif|source|comment)([ \t]|$)/ { on = 0 }
			on && /^[ \t]*(depends on|select|imply)[ \t]/ { sub(/^[ \t]*/, ""); print "      " $0 }
			' "$f"
			# ...and around the line that sources its file.
			grep -rlF --include='Kconfig*' "source \"$rel\"" "$1" | while read -r pf; do
				awk -v t="source \"$rel\"" -v pf="${pf#"$1"/}" '
				/^if[ \t]/ { st[++n] = $2; next }
				/^endif/ { if (n) n--; next }
				index($0, t) { for (i = 1; i <= n; i++) print "      inside: if " st[i] " (" pf ")"; exit }
				' "$pf"
			done
		done
	echo "      (menu and choice conditions are not shown)"
}

configure() { # configure TREE LOG
	say "configuring $1"
	{
		kmake "$1" tinyconfig
		(cd "$1" && scripts/kconfig/merge_config.sh -m .config "$FRAGMENT")
		kmake "$1" olddefconfig
	} >>"$2" 2>&1 || {
		tail -n 30 "$2" >&2
		die "configuring $1 failed (log: $2)"
	}
	check_waivers "$1"
	bad=$(verify_config "$1")
	for sym in $(waived); do
		bad=$(printf '%s\n' "$bad" | grep -v "^$sym: " || true)
	done
	if [ -n "$bad" ]; then
		echo "build-kernel: these options of $FRAGMENT did not stick:" >&2
		echo "$bad" | while read -r line; do
			echo "  $line" >&2
			sym=${line%%:*}
			case $sym in CONFIG_*) explain "$1" "${sym#CONFIG_}" >&2 ;; esac
		done
		die "fix the fragment (their dependencies must be enabled too)"
	fi
}

# --- (d) build, (e) copy out, (f) stamp ---------------------------------
build() { # build TREE OUT STAMP LOG
	start=$(date +%s)
	say "building $1/$BOOTIMG (log: $4)"
	kmake "$1" -j"$(nproc)" "$TARGET" >>"$4" 2>&1 || {
		tail -n 40 "$4" >&2
		die "kernel build failed (log: $4)"
	}
	cp "$1/$BOOTIMG" "$2.tmp"
	mv "$2.tmp" "$2"
	# Its symbols, for the guest profiler (explore --profile-guest): the
	# tree's System.map is the last link's, which a variant overwrites.
	cp "$1/System.map" "$2.map.tmp"
	mv "$2.map.tmp" "$2.map"
	# A debug kernel's line tables, for the file and line of each frame of
	# its reports (src/machine/kline.c): vmlinux's debug sections alone.
	if [ -n "$DEBUG" ]; then
		"${CROSS}objcopy" --only-keep-debug "$1/vmlinux" "$2.debug.tmp"
		mv "$2.debug.tmp" "$2.debug"
	fi
	printf '%s\n' "$3" >"$1/.themis-stamp"
	printf '%s\n' "$3" >"$2.stamp"
	say "$2: $(wc -c <"$2") bytes, built in $(($(date +%s) - start))s"
}

# done_with IMAGE: its path as the last line (what --kernel takes,
# relative to the current folder when inside it), and exit.
done_with() {
	case $1 in
	"$PWD"/*) echo "${1#"$PWD"/}" ;;
	*) echo "$1" ;;
	esac
	exit 0
}

stamp_ok() { # stamp_ok FILE STAMP
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

has_map() { # has_map IMAGE: its symbol map (and a debug kernel's line tables) are there, or not needed
	[ "$MAPS" = no ] || { [ -f "$1.map" ] && { [ -z "$DEBUG" ] || [ -f "$1.debug" ]; }; }
}

# The plain kernel. With --patch it is the base of the patched tree, so the
# tree itself must be built too, not only the copied-out Image.
TREE=$BUILD_DIR/linux-$VERSION$TSUFFIX
SAVED=$TREE/.themis-patched
# put_back: the saved files where they were (and files the patches
# created removed), each touched so make rebuilds it.
put_back() {
	rm -rf "$SAVED.tmp"
	[ -d "$SAVED" ] || return 0
	while read -r f; do
		if [ -f "$SAVED/files/$f" ]; then
			cp "$SAVED/files/$f" "$TREE/$f"
			touch "$TREE/$f"
		else
			rm -f "$TREE/$f"
		fi
	done <"$SAVED/list"
	rm -rf "$SAVED"
}
put_back

OUT=$GUEST/$OUTNAME
if stamp_ok "$OUT.stamp" "$BASE_STAMP" && [ -f "$OUT" ] && has_map "$OUT" &&
	{ [ -z "$NAME" ] || stamp_ok "$TREE/.themis-stamp" "$BASE_STAMP"; }; then
	[ -n "$NAME" ] || { say "kernel up to date"; done_with "$OUT"; }
else
	LOG=$GUEST/kernel-build$VTAG$DEBUG.log
	: >"$LOG"
	extract "$TREE"
	rm -f "$TREE/.themis-stamp"
	configure "$TREE" "$LOG"
	build "$TREE" "$OUT" "$BASE_STAMP" "$LOG"
fi
[ -n "$NAME" ] || done_with "$OUT"

# A patched kernel is built in the plain tree itself: the files the
# patches touch are saved, the patches applied, make rebuilds what they
# touch and relinks, the image is copied out, and the saved files are put
# back (touched, so the next build recompiles them). A variant costs its
# patch's compile units and one link, never a copy of the 1.5 GB tree.
# While a patch set is in, TREE/.themis-patched holds the saved files; a
# run cut short is undone by the next one, before anything else.
POUT=$GUEST/$OUTNAME-$NAME
PSUM=$(cd "$PATCHDIR" && for p in *.patch; do echo "$p"; cat "$p"; done | sha256sum | cut -d' ' -f1)
PSTAMP="$BASE_STAMP
patches $PSUM"
if stamp_ok "$POUT.stamp" "$PSTAMP" && [ -f "$POUT" ] && has_map "$POUT"; then
	say "kernel $NAME up to date"
	done_with "$POUT"
fi

# patched_files PATCH...: the tree paths the patches change, create or
# delete (their ---/+++ lines, without the a/ b/ prefix).
patched_files() {
	awk '/^(---|\+\+\+) / {
		p = $2; sub(/\t.*/, "", p)
		if (p == "/dev/null") next
		sub(/^[^\/]*\//, "", p); print p
	}' "$@" | sort -u
}

LOG=$GUEST/kernel-build$VTAG$DEBUG-$NAME.log
: >"$LOG"
mkdir -p "$SAVED.tmp/files"
patched_files "$PATCHDIR"/*.patch >"$SAVED.tmp/list"
if grep -q -E '(^|/)Kconfig' "$SAVED.tmp/list"; then
	rm -rf "$SAVED.tmp"
	die "$PATCHDIR changes a Kconfig file; a variant shares the base kernel's configuration"
fi
while read -r f; do
	[ ! -f "$TREE/$f" ] || { mkdir -p "$SAVED.tmp/files/$(dirname "$f")" && cp "$TREE/$f" "$SAVED.tmp/files/$f"; }
done <"$SAVED.tmp/list"
mv "$SAVED.tmp" "$SAVED"
trap 'put_back' EXIT
trap 'exit 130' INT TERM HUP
say "building $NAME: the plain tree + $PATCHDIR/*.patch ($(wc -l <"$SAVED/list") files)"
for p in "$PATCHDIR"/*.patch; do
	patch -p1 -N -s --no-backup-if-mismatch -d "$TREE" <"$p" >>"$LOG" 2>&1 || {
		tail -n 20 "$LOG" >&2
		die "$p does not apply to $SRCPKG $SRCVER"
	}
done
build "$TREE" "$POUT" "$PSTAMP" "$LOG"
# The tree's stamp names the plain kernel: the variant's objects are
# rebuilt from the put-back sources by the next make.
printf '%s\n' "$BASE_STAMP" >"$TREE/.themis-stamp"
put_back
trap - EXIT
done_with "$POUT"
