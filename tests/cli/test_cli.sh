#!/bin/sh
# tier: fast
# Command-line behaviour of `themis bare`: every kind of bad input gets a
# one-line error naming the file and the problem with exit status 2, and the
# stop conditions have their own statuses; every verb `themis help` lists
# answers --help (and `themis help VERB`) with its usage and exit 0, and
# names an unknown option as such, wherever it stands, in one form.
#   test_cli.sh THEMIS        that binary
#   test_cli.sh [BUILD_DIR]   BUILD_DIR/themis, then BUILD_DIR/asan/themis
set -u
if [ -d "${1:-build}" ]; then
	"$0" "${1:-build}/themis" || exit 1
	exec "$0" "${1:-build}/asan/themis"
fi
themis=$1
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../lib.sh"
rvcc="riscv64-linux-gnu-gcc -march=rv64gc -mabi=lp64d -mcmodel=medany -nostdlib -nostartfiles -static -fno-pie -no-pie -Wl,--build-id=none -I $here/../isa"


build() { # build NAME SRC [extra flags]
	name=$1 src=$2
	shift 2
	$rvcc "$@" "$src" -o "$work/$name" || { echo "FAIL: cannot build $name"; exit 1; }
}

build loop.elf "$here/loop.S" -T "$here/../isa/link.ld"
build sleep.elf "$here/sleep.S" -T "$here/../isa/link.ld"
build fail7.elf "$here/fail7.S" -T "$here/../isa/link.ld"
build hello.elf "$here/hello.S" -T "$here/../isa/link.ld"
build low.elf "$here/loop.S" -Wl,-Ttext=0x1000
build high.elf "$here/loop.S" -Wl,-Ttext=0x90000000
riscv64-linux-gnu-gcc -march=rv32i -mabi=ilp32 -nostdlib -nostartfiles -static \
	-Wl,--build-id=none -Wl,-Ttext=0x80000000 "$here/loop.S" -o "$work/rv32.elf" 2>/dev/null ||
	printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000' >"$work/rv32.elf"
: >"$work/empty"
echo "not an elf at all" >"$work/text"
head -c 40 "$work/loop.elf" >"$work/truncated.elf"

expect 2 "text: not an ELF file" -- "$themis" bare "$work/text"
expect 2 "empty file" -- "$themis" bare "$work/empty"
expect 2 "cannot open" -- "$themis" bare "$work/missing.elf"
expect 2 "expected RISC-V" -- "$themis" bare /bin/sh
expect 2 "expected 64-bit" -- "$themis" bare "$work/rv32.elf"
expect 2 "truncated ELF header" -- "$themis" bare "$work/truncated.elf"
expect 2 "outside RAM" -- "$themis" bare "$work/low.elf"
expect 2 "outside RAM" -- "$themis" bare --mem 64M "$work/high.elf"
expect 2 "unknown option" -- "$themis" bare --bogus "$work/loop.elf"
expect 2 "positive count" -- "$themis" bare --max-insns abc "$work/loop.elf"
expect 2 "needs a size" -- "$themis" bare --mem 12345 "$work/loop.elf"
expect 2 "needs an ELF" -- "$themis" bare
expect 2 "unknown command" -- "$themis" frobnicate
expect 0 "^themis [0-9A-Za-z]" -- "$themis" --version
# Every verb, as `themis help` lists them (THEMIS_VERBS): --help, also
# after other arguments, is its usage on stdout and exit 0.
verbs=$("$themis" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' |
	grep -v -e '^help$' -e '^--version$')
[ "$(echo "$verbs" | wc -w)" -ge 8 ] || fail "themis help lists too few verbs: $verbs"
for v in $verbs; do
	expect 0 "usage\|Usage" -- "$themis" "$v" --help
	expect 0 "usage\|Usage" -- "$themis" "$v" --bogus-first --help
	# `themis help VERB` is the verb's help, word for word.
	"$themis" "$v" --help >"$work/h1" 2>&1
	"$themis" help "$v" >"$work/h2" 2>&1
	cmp -s "$work/h1" "$work/h2" && ok "themis help $v is themis $v --help" ||
		fail "themis help $v differs from themis $v --help"
	# An unknown option is named as unknown, also as the last argument
	# (it was once said to need a value), in one form, pointing at the
	# verb's help.
	"$themis" "$v" --bogus >"$work/o" 2>&1
	st=$?
	if [ $st -eq 2 ] && [ "$(head -n 1 "$work/o")" = "themis: unknown option '--bogus' for '$v'" ] &&
		[ "$(sed -n 2p "$work/o")" = "Try 'themis help $v'." ] && [ "$(wc -l <"$work/o")" -eq 2 ]; then
		ok "themis $v --bogus -> 2, unknown option, the verb's help named"
	else
		fail "themis $v --bogus -> $st:"
		sed 's/^/    /' "$work/o"
	fi
done
expect 2 "unknown option '--bogus' for 'explore'" -- "$themis" explore ext4 xfs --depth 1 --bogus
expect 2 "unknown option '--bogus' for 'replay'" -- "$themis" replay some.trace --bogus
expect 2 "option '--out' needs a value" -- "$themis" explore ext4 xfs --out
# `themis help` lists every verb and how to get each one's options.
expect 0 "themis help VERB" -- "$themis" --help
expect 2 "unknown command 'frobnicate'" -- "$themis" help frobnicate
expect 124 "stopped after 1000 instructions" -- "$themis" bare --max-insns 1000 "$work/loop.elf"
expect 125 "no interrupt enabled" -- "$themis" bare "$work/sleep.elf"
expect 7 "test 7 failed" -- "$themis" bare "$work/fail7.elf"
expect 0 "^hello from the bare board$" -- "$themis" bare "$work/hello.elf"
expect 0 "mips" -- "$themis" bare --stats "$work/hello.elf"
if grep -q "$(printf '\001')" "$work/out"; then
	fail "the divisor latch byte reached the console"
fi

finish cli
