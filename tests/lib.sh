# tests/lib.sh - what the shell test drivers share: their start, counting
# failures and checking a command's exit status and output. Source it
# first (. "$(dirname "$0")/../lib.sh"), then call test_setup, or set
# $work (a scratch directory) yourself.
fails=0

# test_setup [BUILD_DIR]: a test driver's start: $top the repository, $b
# the build folder (BUILD_DIR, default build/), $themis its themis, $work
# a scratch folder removed at exit, with the Redis server start_redis
# began, if any.
test_setup() {
	top=$(cd "$(dirname "$0")/../.." && pwd)
	b=$(cd "${1:-$top/build}" && pwd) || exit 2
	themis=$b/themis
	work=$(mktemp -d) || exit 2
	trap 'stop_redis; rm -rf "$work"' EXIT
}

# need_kernel [--arch A] [--version V] [--debug] NAME...: build each kernel the test
# boots, on first use (scripts/build-kernel.sh; nothing to do when it is up
# to date): NAME is "base", the plain kernel, or a folder of guest/bugs or
# guest/fixes, whose variant of a built base takes seconds. A build that
# fails fails the test, with its log's tail.
need_kernel() {
	kopts=""
	while [ $# -ge 1 ]; do
		case $1 in
		--arch | --version) [ $# -ge 2 ] || break; kopts="$kopts $1 $2"; shift 2 ;;
		--debug | --debug=*) kopts="$kopts $1"; shift ;;
		*) break ;;
		esac
	done
	for kname in "$@"; do
		kpatch=""
		[ "$kname" = base ] || kpatch="--patch $top/guest/bugs/$kname"
		[ "$kname" = base ] || [ -d "$top/guest/bugs/$kname" ] || kpatch="--patch $top/guest/fixes/$kname"
		# shellcheck disable=SC2086
		if ! "$top/scripts/build-kernel.sh" $kopts $kpatch "$b" >"$work/need_kernel.log" 2>&1; then
			fail "scripts/build-kernel.sh$kopts $kpatch failed:"
			tail -n 8 "$work/need_kernel.log" | sed 's/^/    /'
		fi
	done
}

# kernel_for FS...: set $kernel to the kernel a test boots these
# filesystems on: $THEMIS_KERNEL, else the stock 6.1, except that ntfs3
# makes no file on the stock 6.1 (F6, docs/findings.md): with ntfs3 among
# them, 6.1 is the kernel with F6's fix, built on first use. The one place
# that knows it.
kernel_for() {
	kernel=${THEMIS_KERNEL:-$b/guest/Image}
	case " $* " in
	*" ntfs3 "*)
		if [ -z "${THEMIS_KERNEL:-}" ]; then
			need_kernel ntfs3-zone-max
			kernel=$b/guest/Image-ntfs3-zone-max
		fi
		;;
	esac
}

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

# true_to_itself TRACE: the trace's discrepancy and show lines are what
# replaying it shows (the detail replay prints after "reproduced: "), so a
# simplified trace describes itself, not the trace it was made from.
true_to_itself() {
	{ sed -n 's/^discrepancy [^ ]* //p' "$1" && sed -n 's/^show //p' "$1"; } >"$work/said"
	"$themis" replay "$1" >"$work/replayed" 2>&1
	sed -n '/^ *reproduced: /,$p' "$work/replayed" | sed '1s/^ *reproduced: //' >"$work/got"
	[ -s "$work/said" ] && cmp -s "$work/said" "$work/got"
}

# finish NAME: the summary line and the exit status.
finish() {
	[ "$fails" -eq 0 ] && echo "$1: all passed" || echo "$1: $fails failed"
	[ "$fails" -eq 0 ]
}

# start_redis: a throwaway Redis server on loopback (a random free port,
# nothing saved, its files in $work) for the tests and benchmarks that
# share a run through one; sets $redis_url and $redis_pid (stop_redis ends
# it). Returns 1, saying why, when redis-server is missing or cannot listen.
start_redis() {
	redis_url="" redis_pid=""
	if ! command -v redis-server >/dev/null 2>&1; then
		echo "FAIL: redis-server is missing (Debian package redis-server; scripts/deps.sh installs it)"
		return 1
	fi
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		p=$(($(od -An -N2 -tu2 /dev/urandom) % 20000 + 30000))
		: >"$work/redis.log"
		redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
			--logfile "$work/redis.log" --daemonize no >/dev/null 2>&1 &
		redis_pid=$!
		for _ in $(seq 50); do
			if grep -q "Ready to accept connections" "$work/redis.log"; then
				redis_url=redis://127.0.0.1:$p
				return 0
			fi
			kill -0 "$redis_pid" 2>/dev/null || break
			sleep 0.1
		done
		stop_redis
	done
	echo "FAIL: could not start redis-server on loopback; its log:"
	tail -n 5 "$work/redis.log" | sed 's/^/    /'
	return 1
}

stop_redis() {
	if [ -n "${redis_pid:-}" ]; then
		kill "$redis_pid" 2>/dev/null
		wait "$redis_pid" 2>/dev/null
	fi
	redis_pid=""
}
