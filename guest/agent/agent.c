/* The Themis guest agent: PID 1 of the guest.
 *
 * It mounts proc, sysfs and devtmpfs, mounts each disk /dev/vda,
 * /dev/vdb, ... at /mnt/0, /mnt/1, ... with the types listed by the kernel
 * parameter themis.fs=TYPE,TYPE,..., then asks the host what to do through
 * the doorbell (see doorbell.h): power off, run the fixed script of
 * filesystem operations (fsops.c) or list t/ and power off, or enter the
 * command loop, where the host hands it one command at a time (DB_WAIT):
 * the script, a listing, pseudo-random work (work.c), sync, power off.
 * Without a doorbell (under QEMU, where the instruction raises SIGILL) it
 * runs the script directly and powers off.
 *
 * PID 1 must never exit (the kernel panics): every fatal path, a fatal
 * signal included, prints what happened and powers off.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <linux/random.h>
#include <unistd.h>

#include "agent.h"
#include "../../src/proto/doorbell.h"

static bool have_doorbell;
static struct disk disks[AGENT_MAX_DISKS];
static int ndisks;

/* ---- the doorbell ---- */

/* Not inlined: sigsetjmp in doorbell_probe() and register variables do not mix. */
__attribute__((noinline)) static uint64_t db_call(uint64_t cmd, const void *buf, uint64_t len)
{
	register uint64_t a0 __asm__("a0") = cmd;
	register uint64_t a1 __asm__("a1") = (uint64_t)(uintptr_t)buf;
	register uint64_t a2 __asm__("a2") = len;
	__asm__ volatile(".insn r 0x0b, 0, 0, a0, a0, a1" : "+r"(a0) : "r"(a1), "r"(a2) : "memory");
	return a0;
}

static sigjmp_buf probe_env;
static volatile sig_atomic_t probing;

/* ---- output ---- */

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* A line's text, at most OUT_MAX bytes of it (with its '\n', at most
 * DB_MAX_LEN for DB_LOG). */
#define OUT_MAX (DB_MAX_LEN - 1)

static void send_line(char *line, size_t n)
{
	line[n++] = '\n';
	if (have_doorbell)
		db_call(DB_LOG, line, (uint64_t)n);
	else
		write_all(1, line, n);
}

void out(const char *fmt, ...)
{
	char line[OUT_MAX + 2];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, OUT_MAX + 1, fmt, ap);
	va_end(ap);
	if (n >= 0)
		send_line(line, (size_t)n > OUT_MAX ? OUT_MAX : (size_t)n);
}

void out_item(char kind, int idx, const char *text, size_t len)
{
	char line[OUT_MAX + 2], num[12];
	size_t n = 0, d = sizeof(num);
	line[n++] = kind;
	line[n++] = ' ';
	if (idx >= 0) {
		unsigned v = (unsigned)idx;
		do
			num[--d] = (char)('0' + v % 10);
		while (v /= 10);
		memcpy(line + n, num + d, sizeof(num) - d);
		n += sizeof(num) - d;
		line[n++] = ' ';
	}
	if (len > OUT_MAX - n)
		len = OUT_MAX - n;
	memcpy(line + n, text, len);
	send_line(line, n + len);
}

void mark(unsigned phase)
{
	if (have_doorbell)
		db_call(DB_MARK, (const void *)(uintptr_t)phase, 0);
}

#define E(x) [x] = #x
static const char *const errnames[] = {
    E(EPERM),	   E(ENOENT), E(ESRCH),	    E(EINTR),  E(EIO),	     E(ENXIO),	   E(E2BIG),
    E(ENOEXEC),	   E(EBADF),  E(ECHILD),    E(EAGAIN), E(ENOMEM),    E(EACCES),	   E(EFAULT),
    E(ENOTBLK),	   E(EBUSY),  E(EEXIST),    E(EXDEV),  E(ENODEV),    E(ENOTDIR),   E(EISDIR),
    E(EINVAL),	   E(ENFILE), E(EMFILE),    E(ENOTTY), E(ETXTBSY),   E(EFBIG),	   E(ENOSPC),
    E(ESPIPE),	   E(EROFS),  E(EMLINK),    E(EPIPE),  E(EDOM),	     E(ERANGE),	   E(ENAMETOOLONG),
    E(ENOLCK),	   E(ENOSYS), E(ENOTEMPTY), E(ELOOP),  E(ENODATA),   E(EOVERFLOW), E(EBADMSG),
    E(EOPNOTSUPP), E(ESTALE), E(EUCLEAN),   E(EDQUOT), E(ECANCELED), E(ENOKEY),	   E(EKEYREJECTED),
};
#undef E

const char *errname(int err)
{
	static char num[16];
	if (err == 0)
		return "0";
	if (err > 0 && (size_t)err < sizeof(errnames) / sizeof(errnames[0]) && errnames[err])
		return errnames[err];
	snprintf(num, sizeof(num), "E%d", err);
	return num;
}

/* ---- power off, fatal paths ---- */

static void unmount_disks(void)
{
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		if (!d->mounted)
			continue;
		int r = umount(d->mnt);
		int e = r < 0 ? errno : 0;
		out("umount %s -> %d %s", d->mnt, r, errname(e));
		if (r == 0)
			d->mounted = false;
	}
}

static void report_instret(const char *when);

static _Noreturn void poweroff(void)
{
	unmount_disks();
	sync();
	report_instret("poweroff");
	out("poweroff");
	reboot(RB_POWER_OFF);
	out("reboot RB_POWER_OFF -> -1 %s", errname(errno));
	for (;;)
		pause();
}

static _Noreturn void fatal(const char *what)
{
	out("fatal: %s", what);
	poweroff();
}

/* A fatal signal: only system calls here (no stdio), then power off. */
static void on_fatal_signal(int sig)
{
	char msg[] = "fatal: signal NN\n";
	msg[14] = (char)('0' + sig / 10 % 10);
	msg[15] = (char)('0' + sig % 10);
	if (have_doorbell)
		db_call(DB_LOG, msg, sizeof(msg) - 1);
	else
		write_all(1, msg, sizeof(msg) - 1);
	for (int i = 0; i < ndisks; i++)
		if (disks[i].mounted)
			umount(disks[i].mnt);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void on_sigill(int sig)
{
	if (probing)
		siglongjmp(probe_env, 1);
	on_fatal_signal(sig);
}

static void install_signals(void)
{
	static const int fatal_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal_signal;
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
	sa.sa_handler = on_sigill;
	sigaction(SIGILL, &sa, NULL);
}

/* Write `val` to a /proc/sys file; with `old`, first read what it held.
 * (Two opens: the kernel ignores a sysctl write past offset 0.) */
static void sysctl_swap(const char *path, const char *val, char *old, size_t oldsize)
{
	int fd;
	if (old && (fd = open(path, O_RDONLY)) >= 0) {
		ssize_t n = read(fd, old, oldsize - 1);
		old[n > 0 ? n : 0] = 0;
		close(fd);
	}
	if ((fd = open(path, O_WRONLY)) >= 0) {
		write_all(fd, val, strlen(val));
		close(fd);
	}
}

/* Does the host answer the doorbell? Under QEMU the instruction is illegal
 * and the SIGILL handler jumps back here. The kernel logs every signal
 * that reaches init with a register dump, handled or not: exception-trace
 * is off for the probe. */
static bool doorbell_probe(void)
{
	static const char trace[] = "/proc/sys/debug/exception-trace";
	static char old_trace[16];
	sysctl_swap(trace, "0", old_trace, sizeof(old_trace));
	volatile bool yes = false;
	if (sigsetjmp(probe_env, 1) == 0) {
		probing = 1;
		yes = db_call(DB_PING, NULL, 0) == DB_MAGIC;
	}
	probing = 0;
	if (old_trace[0])
		sysctl_swap(trace, old_trace, NULL, 0);
	return yes;
}

/* ---- early setup ---- */

struct early_mount {
	const char *src, *dir, *type;
	int ret, err;
};

static struct early_mount early[] = {
    {"proc", "/proc", "proc", 0, 0},
    {"sysfs", "/sys", "sysfs", 0, 0},
    {"devtmpfs", "/dev", "devtmpfs", 0, 0},
};

static void mount_early(void)
{
	for (size_t i = 0; i < sizeof(early) / sizeof(early[0]); i++) {
		struct early_mount *m = &early[i];
		mkdir(m->dir, 0755);
		m->ret = mount(m->src, m->dir, m->type, MS_NOSUID | MS_NOEXEC, NULL);
		m->err = m->ret < 0 ? errno : 0;
	}
}

/* The kernel gives init /dev/console as fds 0-2 when the initramfs has the
 * node; ours does not (no mknod at build time), so open it from devtmpfs. */
static void console_fds(void)
{
	int fd = -1;
	for (int i = 0; i <= 2; i++) {
		if (fcntl(i, F_GETFD) >= 0)
			continue;
		if (fd < 0)
			fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd < 0)
			return;
		if (fd != i)
			dup2(fd, i);
	}
	if (fd > 2)
		close(fd);
}

/* The kernel's random number generator made ready at once. The machine
 * has no entropy source the kernel trusts: it mixes the device tree's
 * rng-seed (derived from the run's seed) but credits nothing for it, so
 * its generator is never ready and every get_random_u32() (an inode's
 * generation, xfs's log tickets) extracts from the whole input pool:
 * 12% of an operation's guest instructions, in BLAKE2s. Crediting the
 * pool here (root may, RNDADDENTROPY) changes no value's determinism: the
 * pool holds the seed, the credit a fixed block. Said in one line. */
static void credit_random(void)
{
	struct {
		struct rand_pool_info info;
		uint32_t buf[16];
	} seed = {.info = {.entropy_count = 512, .buf_size = sizeof(seed.buf)}};
	for (unsigned i = 0; i < 16; i++)
		seed.buf[i] = 0x9e3779b9u * (i + 1);
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	int r = fd < 0 ? -1 : ioctl(fd, RNDADDENTROPY, &seed);
	int err = r < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	out("random credit -> %d %s", r < 0 ? -1 : 0, errname(err));
}

/* ---- disks ---- */

/* themis.work=SEED,N: the script is N pseudo-random operations (work.c)
 * on every disk instead of the fixed one; "" if not asked. */
static char work_args[64];

/* The value of `key` (with its '=') in the kernel command line buf, or
 * NULL; the last one wins, as for the kernel's own parameters. */
static char *cmdline_value(char *buf, const char *key)
{
	char *p = buf, *val = NULL;
	while (*p) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!strncmp(p, key, strlen(key)))
			val = p + strlen(key);
		while (*p && *p != ' ' && *p != '\n' && *p != '\t')
			p++;
	}
	return val;
}

/* themis.fs=TYPE,TYPE,... from /proc/cmdline into disks[], and
 * themis.work= into work_args. */
static void parse_cmdline(void)
{
	char buf[4096];
	int fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0) {
		out("open /proc/cmdline -> -1 %s", errname(errno));
		return;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		out("read /proc/cmdline -> -1 %s", errname(errno));
		return;
	}
	buf[n] = 0;
	const char *work = cmdline_value(buf, "themis.work=");
	if (work)
		snprintf(work_args, sizeof(work_args), "%.*s", (int)strcspn(work, " \n\t"), work);
	char *val = cmdline_value(buf, "themis.fs=");
	if (!val) {
		out("cmdline: no themis.fs=");
		return;
	}
	size_t len = strcspn(val, " \n\t");
	val[len] = 0;
	if (!*val)
		return; /* themis.fs= with no type: no disk */
	for (char *t = val;; ndisks++) {
		size_t tl = strcspn(t, ",");
		if (ndisks == AGENT_MAX_DISKS) {
			out("cmdline: more than %d disks, the rest ignored", AGENT_MAX_DISKS);
			break;
		}
		struct disk *d = &disks[ndisks];
		d->idx = ndisks;
		snprintf(d->name, sizeof(d->name), "vd%c", 'a' + ndisks);
		snprintf(d->dev, sizeof(d->dev), "/dev/vd%c", 'a' + ndisks);
		snprintf(d->mnt, sizeof(d->mnt), "/mnt/%d", ndisks);
		if (tl >= sizeof(d->type))
			tl = sizeof(d->type) - 1;
		memcpy(d->type, t, tl);
		d->type[tl] = 0;
		d->flags = 0;
		d->data = NULL;
		t += strcspn(t, ",");
		if (!*t) {
			ndisks++;
			break;
		}
		t++;
	}
}

static void mount_disks(void)
{
	mkdir("/mnt", 0755);
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		if (!d->type[0]) {
			out("mount %s skipped (no type)", d->dev);
			continue;
		}
		mkdir(d->mnt, 0755);
		int r = mount(d->dev, d->mnt, d->type, d->flags, d->data);
		d->err = r < 0 ? errno : 0;
		d->mounted = r == 0;
		out("mount %s %s %s -> %d %s", d->dev, d->mnt, d->type, r, errname(d->err));
	}
}

/* The one-line report sent with DB_READY (and printed). */
static int make_report(char *buf, size_t size)
{
	struct utsname u;
	const char *rel = uname(&u) == 0 ? u.release : "?";
	int n = snprintf(buf, size, "themis-agent kernel=%s disks=", rel);
	if (n < 0 || (size_t)n >= size)
		return n < 0 ? 0 : (int)size - 1;
	if (ndisks == 0)
		n += snprintf(buf + n, size - (size_t)n, "none");
	for (int i = 0; i < ndisks && (size_t)n < size; i++) {
		const struct disk *d = &disks[i];
		n += snprintf(buf + n, size - (size_t)n, "%s%s:%s:%s", i ? "," : "", d->name,
			      d->type[0] ? d->type : "-", d->type[0] ? errname(d->err) : "skipped");
	}
	if ((size_t)n >= size)
		n = (int)size - 1;
	return n;
}

static void run_listing(const char *top)
{
	for (int i = 0; i < ndisks; i++) {
		char tag[16];
		snprintf(tag, sizeof(tag), "list%d", i);
		if (disks[i].mounted)
			fsops_list(&disks[i], top, tag);
		else
			out("%s %s not mounted", tag, disks[i].name);
	}
	out("listing done");
}

/* With themis.instret=1 on the command line (benchmarks only: under QEMU
 * without -icount the counter is a host clock), the retired-instruction
 * count at `when` (the agent's ready, its power-off), or nothing if user
 * mode may not read it. */
static void report_instret(const char *when)
{
	char buf[4096];
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return;
	buf[n] = 0;
	if (!strstr(buf, "themis.instret=1"))
		return;
	volatile unsigned long v = 0;
	volatile bool ok = false;
	if (sigsetjmp(probe_env, 1) == 0) {
		probing = 1;
		__asm__ volatile("rdinstret %0" : "=r"(v));
		ok = true;
	}
	probing = 0;
	if (ok)
		out("instret %s %lu", when, (unsigned long)v);
	else
		out("instret %s unreadable", when);
}

static void cmd_work(char **w, int nw);

/* The fixed script, or themis.work's operations (a workload that runs the
 * same under QEMU, where there is no command loop: bench/boot). */
static void run_script(void)
{
	if (work_args[0]) {
		char seed[32], n[32];
		char *w[] = {"work", seed, n};
		if (sscanf(work_args, "%31[0-9],%31[0-9]", seed, n) != 2)
			out("error usage: themis.work=SEED,N");
		else
			cmd_work(w, 3);
		out("script done");
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		if (!d->mounted) {
			out("script %s %s skipped: not mounted", d->name,
			    d->type[0] ? d->type : "-");
			continue;
		}
		out("script %s %s", d->name, d->type);
		fsops_run(d);
	}
	out("script done");
}

/* ---- the command loop (DB_NEXT_WAIT, see doorbell.h) ---- */

#define WORK_MAX_N 1000000ul
#define MAX_WORDS  8 /* "op write PATH OFF SIZE SEED FLAGS" has 7 */

/* Where the host writes the command: exactly one page, resident
 * (mlockall), present and dirty (the memset before each call). */
static char cmd_buf[DB_MAX_LEN] __attribute__((aligned(4096)));
static char cmd_line[DB_MAX_LEN + 1];

/* The host's `n` bytes as a NUL-terminated line in cmd_line: up to the
 * first '\n', '\r' or NUL, tabs as spaces, other control bytes as '?',
 * blanks trimmed at both ends. */
static char *clean_line(size_t n)
{
	size_t len = 0;
	for (; len < n; len++) {
		unsigned char c = (unsigned char)cmd_buf[len];
		if (c == '\n' || c == '\r' || c == 0)
			break;
		cmd_line[len] = c == '\t' ? ' ' : c < ' ' || c == 0x7f ? '?' : (char)c;
	}
	while (len > 0 && cmd_line[len - 1] == ' ')
		len--;
	cmd_line[len] = 0;
	char *p = cmd_line;
	while (*p == ' ')
		p++;
	return p;
}

/* Split `s` (modified) at spaces into w[]: the number of words, or
 * MAX_WORDS + 1 when there are more than MAX_WORDS. */
static int split_words(char *s, char **w)
{
	int n = 0;
	for (;;) {
		while (*s == ' ')
			*s++ = 0;
		if (!*s)
			return n;
		if (n == MAX_WORDS)
			return MAX_WORDS + 1;
		w[n++] = s;
		while (*s && *s != ' ')
			s++;
	}
}

/* A decimal number of at most 64 bits, digits only. */
static bool parse_u64(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (x > (~0ull - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* A directory for `list`: relative, without "." or ".." components beyond
 * a lone ".", short enough for the listing's paths. */
static bool listable(const char *top)
{
	if (!strcmp(top, "."))
		return true;
	if (!*top || *top == '/' || strlen(top) > 128)
		return false;
	for (const char *p = top; *p;) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += l;
		if (*p == '/' && !*++p)
			return false; /* a trailing '/' */
	}
	return true;
}

static void cmd_work(char **w, int nw)
{
	unsigned long long seed, n;
	if (nw != 3 || !parse_u64(w[1], &seed) || !parse_u64(w[2], &n) || n > WORK_MAX_N) {
		out("error usage: work SEED N (decimal, N <= %lu)", WORK_MAX_N);
		return;
	}
	if (ndisks == 0)
		out("work %llu %llu -> no disks", seed, n);
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		if (!d->mounted) {
			out("work %llu %llu -> skipped: %s not mounted", seed, n, d->name);
			continue;
		}
		unsigned long ok = work_run(d, seed, (unsigned long)n);
		out("work %llu %llu -> %lu", seed, n, ok);
	}
}

static void run_command(char *line)
{
	char copy[DB_MAX_LEN + 1];
	char *w[MAX_WORDS];
	if (!*line) {
		out("error empty command");
		return;
	}
	snprintf(copy, sizeof(copy), "%s", line);
	int nw = split_words(copy, w);
	const char *c = w[0];
	if (!strcmp(c, "echo")) {
		out("%s", line);
	} else if (!strcmp(c, "poweroff")) {
		if (nw != 1)
			out("error usage: poweroff");
		else
			poweroff();
	} else if (!strcmp(c, "script")) {
		if (nw != 1)
			out("error usage: script");
		else
			run_script();
	} else if (!strcmp(c, "list")) {
		if (nw > 2 || (nw == 2 && !listable(w[1])))
			out("error usage: list [DIR] (relative, no ..)");
		else
			run_listing(nw == 2 ? w[1] : "t");
	} else if (!strcmp(c, "work")) {
		cmd_work(w, nw);
	} else if (!strcmp(c, "sync")) {
		if (nw != 1) {
			out("error usage: sync");
		} else {
			sync();
			out("sync -> 0");
		}
	} else if (!check_command(disks, ndisks, w, nw)) {
		out("error unknown command: %s", line);
	}
}

/* One command from the host: its length in cmd_buf. The host stalls the
 * call until it has one. */
static size_t wait_command(void)
{
	for (int fails = 0;;) {
		memset(cmd_buf, 0, sizeof(cmd_buf));
		uint64_t n = db_call(DB_WAIT, cmd_buf, sizeof(cmd_buf));
		if (n <= sizeof(cmd_buf))
			return (size_t)n;
		if (n == DB_ERROR)
			out("error DB_WAIT -> DB_ERROR");
		else
			out("error DB_WAIT -> %llu", (unsigned long long)n);
		if (++fails == 3)
			fatal("DB_WAIT failed 3 times in a row");
	}
}

static _Noreturn void command_loop(void)
{
	for (;;)
		run_command(clean_line(wait_command()));
}

/* The kernel logs every drop of the caches ("init (1): drop_caches: 3",
 * formatted into its ring buffer) until one write of 4 silences it: done
 * here, before the first state, so that the on-disk view's drop at every
 * state (check.c, cmd_durable) formats nothing. */
static void quiet_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "4", 1) != 1)
		out("drop_caches 4 -> -1 %s", errname(errno));
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	/* Elsewhere (qemu-user, a shell) it must not mount or power off. */
	if (getpid() != 1) {
		static const char msg[] = "themis-agent: not PID 1, nothing done\n";
		write_all(2, msg, sizeof(msg) - 1);
		return 2;
	}
	install_signals();
	umask(022);
	mount_early();
	console_fds();
	leave_rootfs();
	/* Resident pages: the host reads doorbell buffers through the page
	 * tables and must not meet a page that is not there. */
	int ml = mlockall(MCL_CURRENT | MCL_FUTURE);
	int ml_err = ml < 0 ? errno : 0;
	have_doorbell = doorbell_probe();
	out("themis-agent: doorbell %s", have_doorbell ? "yes" : "no");
	for (size_t i = 0; i < sizeof(early) / sizeof(early[0]); i++)
		out("mount %s %s %s -> %d %s", early[i].src, early[i].dir, early[i].type,
		    early[i].ret, errname(early[i].err));
	if (ml < 0)
		out("mlockall -> -1 %s", errname(ml_err));
	credit_random();
	quiet_drop_caches();

	parse_cmdline();
	mount_disks();

	report_instret("ready");
	char report[512];
	int n = make_report(report, sizeof(report));
	out("ready %s", report);
	if (!have_doorbell) {
		out("next script"); /* as if the host had said so */
		run_script();
		poweroff();
	}
	uint64_t next = db_call(DB_READY, report, (uint64_t)n);
	switch (next) {
	case DB_NEXT_POWEROFF: out("next poweroff"); poweroff();
	case DB_NEXT_SCRIPT:
		out("next script");
		run_script();
		poweroff();
	case DB_NEXT_LIST:
		out("next list");
		run_listing("t");
		poweroff();
	case DB_NEXT_WAIT: out("next wait"); command_loop();
	default: {
		char what[64];
		snprintf(what, sizeof(what), "unknown DB_READY answer %llu",
			 (unsigned long long)next);
		fatal(what);
	}
	}
}
