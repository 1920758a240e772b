# tests/lib.sh - what the shell test drivers share: counting failures and
# checking a command's exit status and output. Source it after setting
# $work (a scratch directory).
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

ok() { echo "ok: $*"; }

# expect STATUS PATTERN -- CMD...: CMD must exit with STATUS and print
# something matching PATTERN (grep, stdout and stderr together).
expect() {
	want=$1 pat=$2
	shift 3
	"$@" >"$work/out" 2>&1
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -q -- "$pat" "$work/out"; then
		fail "$* -> status $got (want $want, pattern '$pat'); output tail:"
		tail -n 8 "$work/out" | sed 's/^/    /'
	else
		ok "$(basename "$1") $(echo "$*" | cut -d' ' -f2-3 | tr -d '\n' | cut -c1-60) ... -> $got, '$pat'"
	fi
}

# finish NAME: the summary line and the exit status.
finish() {
	[ "$fails" -eq 0 ] && echo "$1: all passed" || echo "$1: $fails failed"
	[ "$fails" -eq 0 ]
}
