/* bugtest: a tiny PID 1 that runs one exact sequence of filesystem
 * operations on every disk and prints a fingerprint of the tree, e.g.
 * before and after a remount or a drop of the page cache. It exists to
 * show the planted kernel bugs under guest/bugs/ with operation sequences
 * chosen by hand (the agent's fixed script and its `work` command choose
 * their own).
 *
 * The sequence comes from the kernel command line:
 *   bugtest.ops=OP,OP,...     each OP is NAME[:ARG[:ARG...]]
 *     mkdir:P  create:P  unlink:P  rmdir:P  fsync:P  sync
 *     write:P:OFF:LEN:SEED  truncate:P:SIZE  link:SRC:DST  rename:SRC:DST
 *     fp:LABEL   the fingerprint of t/, its lines "fp<N> LABEL ..."
 *     remount    unmount and mount again
 *     dropcaches sync, then drop the clean page cache, dentries and inodes
 *                (echo 3 > /proc/sys/vm/drop_caches): the next reads come
 *                from the disk, as after a remount, but nothing is unmounted
 * Paths are relative to the disk's mount point. Disks are /dev/vda,
 * /dev/vdb, ... with the types in themis.fs= (added by `themis boot`).
 * A fingerprint line is
 *   fp<N> LABEL PATH KIND mode=OOOO uid=U gid=G nlink=N size=S data=H xattr=X
 * with size "-" for directories (their size is the filesystem's own
 * business), H the FNV-1a of a file's bytes, a symlink's target or a
 * directory's sorted names, X that of the sorted "name=value" xattrs.
 *
 * It speaks the Themis doorbell (src/proto/doorbell.h): output lines go
 * out with DB_LOG, it reports ready, runs the sequence when the host
 * answers DB_NEXT_SCRIPT (`themis boot --script`) and powers off. Without
 * a doorbell (QEMU) it prints to the console and runs the sequence anyway.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../src/proto/doorbell.h"

#define MAX_DISKS   8
#define MAX_ENTRIES 256
#define PATH_LEN    256

struct disk {
	char dev[32], mnt[32], type[32];
	bool mounted;
};

static struct disk disks[MAX_DISKS];
static int ndisks;
static bool have_doorbell;
static char cmdline[4096];

/* ---- doorbell and output ---- */

__attribute__((noinline)) static uint64_t db_call(uint64_t cmd, const void *buf, uint64_t len)
{
	register uint64_t a0 __asm__("a0") = cmd;
	register uint64_t a1 __asm__("a1") = (uint64_t)(uintptr_t)buf;
	register uint64_t a2 __asm__("a2") = len;
	__asm__ volatile(".insn r 0x0b, 0, 0, a0, a0, a1" : "+r"(a0) : "r"(a1), "r"(a2) : "memory");
	return a0;
}

static sigjmp_buf probe_env;

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

static bool doorbell_probe(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigill;
	sigaction(SIGILL, &sa, NULL);
	volatile bool yes = false;
	if (sigsetjmp(probe_env, 1) == 0)
		yes = db_call(DB_PING, NULL, 0) == DB_MAGIC;
	sa.sa_handler = SIG_DFL;
	sigaction(SIGILL, &sa, NULL);
	return yes;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char line[DB_MAX_LEN];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (have_doorbell)
		db_call(DB_LOG, line, (uint64_t)n);
	else if (write(1, line, (size_t)n) < 0)
		return;
}

static _Noreturn void poweroff(void)
{
	for (int i = 0; i < ndisks; i++)
		if (disks[i].mounted)
			umount(disks[i].mnt);
	out("poweroff");
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* ---- the fingerprint ---- */

#define FNV_INIT 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names of directory `path` (without . and ..), malloc'd. */
static int read_names(const char *path, char **names, int max)
{
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && n < max)
			names[n++] = strdup(de->d_name);
	closedir(dir);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	return n;
}

static uint64_t xattr_hash(const char *path)
{
	char list[4096];
	ssize_t n = llistxattr(path, list, sizeof(list));
	if (n <= 0)
		return FNV_INIT;
	char *names[128];
	int k = 0;
	for (char *p = list; p < list + n && k < 128; p += strlen(p) + 1)
		names[k++] = p;
	qsort(names, (size_t)k, sizeof(names[0]), cmp_str);
	uint64_t h = FNV_INIT;
	for (int i = 0; i < k; i++) {
		char val[4096];
		ssize_t v = lgetxattr(path, names[i], val, sizeof(val));
		h = fnv1a(h, names[i], strlen(names[i]));
		h = fnv1a(h, "=", 1);
		if (v > 0)
			h = fnv1a(h, val, (size_t)v);
		h = fnv1a(h, "\n", 1);
	}
	return h;
}

static void fp_one(const struct disk *d, int idx, const char *label, const char *rel)
{
	char path[PATH_LEN];
	snprintf(path, sizeof(path), "%s/%s", d->mnt, rel);
	struct stat st;
	if (lstat(path, &st) < 0) {
		out("fp%d %s %s error %s", idx, label, rel, strerror(errno));
		return;
	}
	uint64_t h = FNV_INIT;
	const char *kind = "other";
	char size[32];
	snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
	if (S_ISREG(st.st_mode)) {
		kind = "file";
		int fd = open(path, O_RDONLY);
		uint8_t buf[4096];
		ssize_t r = 0;
		while (fd >= 0 && (r = read(fd, buf, sizeof(buf))) > 0)
			h = fnv1a(h, buf, (size_t)r);
		if (fd < 0 || r < 0)
			kind = "file-unreadable";
		if (fd >= 0)
			close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		kind = "dir";
		strcpy(size, "-");
		char *names[MAX_ENTRIES];
		int n = read_names(path, names, MAX_ENTRIES);
		for (int i = 0; i < n; i++) {
			h = fnv1a(h, names[i], strlen(names[i]));
			h = fnv1a(h, "\n", 1);
			free(names[i]);
		}
	} else if (S_ISLNK(st.st_mode)) {
		kind = "symlink";
		char target[PATH_LEN];
		ssize_t n = readlink(path, target, sizeof(target));
		if (n > 0)
			h = fnv1a(h, target, (size_t)n);
	}
	out("fp%d %s %s %s mode=%04o uid=%u gid=%u nlink=%lu size=%s data=%016llx xattr=%016llx",
	    idx, label, rel, kind, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
	    (unsigned)st.st_gid, (unsigned long)st.st_nlink, size, (unsigned long long)h,
	    (unsigned long long)xattr_hash(path));
}

/* `rel` and everything below it, in sorted order. */
static void fp_tree(const struct disk *d, int idx, const char *label, const char *rel)
{
	fp_one(d, idx, label, rel);
	char path[PATH_LEN];
	snprintf(path, sizeof(path), "%s/%s", d->mnt, rel);
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	char *names[MAX_ENTRIES];
	int n = read_names(path, names, MAX_ENTRIES);
	for (int i = 0; i < n; i++) {
		char child[PATH_LEN];
		snprintf(child, sizeof(child), "%s/%s", rel, names[i]);
		fp_tree(d, idx, label, child);
		free(names[i]);
	}
}

/* ---- the operations ---- */

static uint8_t pattern(unsigned seed, uint64_t off)
{
	uint64_t x = (off + 1) * 0x9e3779b97f4a7c15ull + seed * 0xbf58476d1ce4e5b9ull;
	x ^= x >> 31;
	return (uint8_t)(x ^ (x >> 17));
}

static const char *at(const struct disk *d, int which, const char *rel)
{
	static char buf[2][PATH_LEN];
	snprintf(buf[which], PATH_LEN, "%s/%s", d->mnt, rel);
	return buf[which];
}

static long op_write(const struct disk *d, const char *rel, long long off, long long len,
		     unsigned seed)
{
	static uint8_t buf[65536];
	if (len < 0 || (size_t)len > sizeof(buf)) {
		errno = EINVAL;
		return -1;
	}
	for (long long i = 0; i < len; i++)
		buf[i] = pattern(seed, (uint64_t)(off + i));
	int fd = open(at(d, 0, rel), O_WRONLY);
	if (fd < 0)
		return -1;
	long w = (long)pwrite(fd, buf, (size_t)len, (off_t)off);
	int e = errno;
	close(fd);
	errno = e;
	return w;
}

static long op_fsync(const struct disk *d, const char *rel)
{
	int fd = open(at(d, 0, rel), O_RDONLY);
	if (fd < 0)
		return -1;
	long r = fsync(fd);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

static long op_create(const struct disk *d, const char *rel)
{
	int fd = open(at(d, 0, rel), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	return close(fd);
}

static long op_dropcaches(void)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		return -1;
	long r = write(fd, "3\n", 2) == 2 ? 0 : -1;
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

static long op_remount(struct disk *d)
{
	if (umount(d->mnt) < 0)
		return -1;
	d->mounted = false;
	if (mount(d->dev, d->mnt, d->type, 0, NULL) < 0)
		return -1;
	d->mounted = true;
	return 0;
}

/* Run one OP (its words in w[0..n-1]) on disk `idx`; prints its line. */
static void run_op(int idx, char **w, int n)
{
	struct disk *d = &disks[idx];
	const char *c = w[0];
	long r;
	errno = 0;
	if (!strcmp(c, "fp") && n == 2) {
		fp_tree(d, idx, w[1], "t");
		return;
	} else if (!strcmp(c, "mkdir") && n == 2) {
		r = mkdir(at(d, 0, w[1]), 0755);
	} else if (!strcmp(c, "create") && n == 2) {
		r = op_create(d, w[1]);
	} else if (!strcmp(c, "unlink") && n == 2) {
		r = unlink(at(d, 0, w[1]));
	} else if (!strcmp(c, "rmdir") && n == 2) {
		r = rmdir(at(d, 0, w[1]));
	} else if (!strcmp(c, "fsync") && n == 2) {
		r = op_fsync(d, w[1]);
	} else if (!strcmp(c, "sync") && n == 1) {
		sync();
		r = 0;
	} else if (!strcmp(c, "write") && n == 5) {
		r = op_write(d, w[1], atoll(w[2]), atoll(w[3]), (unsigned)atoi(w[4]));
	} else if (!strcmp(c, "truncate") && n == 3) {
		r = truncate(at(d, 0, w[1]), (off_t)atoll(w[2]));
	} else if (!strcmp(c, "link") && n == 3) {
		r = link(at(d, 0, w[1]), at(d, 1, w[2]));
	} else if (!strcmp(c, "rename") && n == 3) {
		r = rename(at(d, 0, w[1]), at(d, 1, w[2]));
	} else if (!strcmp(c, "dropcaches") && n == 1) {
		r = op_dropcaches();
	} else if (!strcmp(c, "remount") && n == 1) {
		r = op_remount(d);
	} else {
		out("op%d %s: unknown or wrong number of arguments", idx, c);
		return;
	}
	int e = errno;
	char line[512] = "";
	for (int i = 0; i < n; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", i ? " " : "",
			 w[i]);
	out("op%d %s -> %ld %s", idx, line, r, r < 0 ? strerror(e) : "0");
}

/* The value of `key` (e.g. "bugtest.ops=") on the command line, up to
 * the first blank, copied into out[size]; false when it is not there. */
static bool cmdline_value(const char *key, char *out_buf, size_t size)
{
	const char *p = cmdline, *val = NULL;
	while ((p = strstr(p, key)) != NULL) {
		if (p == cmdline || p[-1] == ' ')
			val = p + strlen(key); /* the last one wins */
		p += strlen(key);
	}
	if (!val)
		return false;
	snprintf(out_buf, size, "%.*s", (int)strcspn(val, " \n\t"), val);
	return true;
}

static void run_ops(const char *ops)
{
	for (int i = 0; i < ndisks; i++) {
		if (!disks[i].mounted) {
			out("disk%d %s not mounted", i, disks[i].dev);
			continue;
		}
		out("disk%d %s %s", i, disks[i].dev, disks[i].type);
		char copy[4096];
		snprintf(copy, sizeof(copy), "%s", ops);
		char *save = NULL;
		for (char *op = strtok_r(copy, ",", &save); op; op = strtok_r(NULL, ",", &save)) {
			char *w[8];
			int n = 0;
			char *s2 = NULL;
			for (char *t = strtok_r(op, ":", &s2); t && n < 8;
			     t = strtok_r(NULL, ":", &s2))
				w[n++] = t;
			if (n)
				run_op(i, w, n);
			if (!disks[i].mounted)
				break;
		}
	}
	out("bugtest done");
}

int main(void)
{
	if (getpid() != 1)
		return 2;
	mkdir("/proc", 0755);
	mkdir("/dev", 0755);
	mkdir("/mnt", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mlockall(MCL_CURRENT | MCL_FUTURE);
	have_doorbell = doorbell_probe();
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);
	cmdline[len > 0 ? len : 0] = 0;
	if (fd >= 0)
		close(fd);
	static char ops[4096], fs[256];
	cmdline_value("bugtest.ops=", ops, sizeof(ops));
	cmdline_value("themis.fs=", fs, sizeof(fs));
	for (char *t = fs; *t && ndisks < MAX_DISKS; ndisks++) {
		struct disk *d = &disks[ndisks];
		size_t tl = strcspn(t, ",");
		snprintf(d->type, sizeof(d->type), "%.*s", (int)tl, t);
		snprintf(d->dev, sizeof(d->dev), "/dev/vd%c", 'a' + ndisks);
		snprintf(d->mnt, sizeof(d->mnt), "/mnt/%d", ndisks);
		mkdir(d->mnt, 0755);
		d->mounted = mount(d->dev, d->mnt, d->type, 0, NULL) == 0;
		out("mount %s %s %s -> %s", d->dev, d->mnt, d->type,
		    d->mounted ? "0" : strerror(errno));
		t += tl;
		if (*t == ',')
			t++;
	}
	char report[256];
	int rn = snprintf(report, sizeof(report), "bugtest disks=%d", ndisks);
	out("ready %s", report);
	if (have_doorbell) {
		uint64_t next = db_call(DB_READY, report, (uint64_t)rn);
		if (next != DB_NEXT_SCRIPT)
			poweroff();
	}
	run_ops(ops);
	poweroff();
}
