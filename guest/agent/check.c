/* The model checker's commands in the command loop (see doorbell.h):
 *
 *   op NAME ARGS...  one operation on every disk; per disk "r I RET ERRNO",
 *                    then per disk "f I HEX32" (the fingerprint after it)
 *   run NAME ARGS... the same operation with only the "r" lines: no walk
 *                    after it, so the disks see the operation's own I/O
 *                    (the io profile's probe)
 *   fp [time]        per disk "f I HEX32", then a "v" line as for op
 *   dump [time]      per disk and entry, sorted by path, "e I RECORD"
 *   reset            empty every test root; per disk "r I RET ERRNO"
 *   durable MODE [dump]
 *                    the on-disk view: sync, then drop every cache
 *                    (MODE drop-caches) or unmount and mount every disk
 *                    (MODE remount), then per disk "f I HEX32" (or, with
 *                    dump, its "e I RECORD" lines). The host runs it inside
 *                    a fork and throws the machine away afterwards.
 *   times PATH...    up to TIMES_MAX_PATHS paths; per disk and path
 *                    "t I PATH atime=SEC.NSEC mtime=SEC.NSEC ctime=SEC.NSEC ino=N"
 *                    (or "t I PATH !ERRNO"; "t I unmounted"): lstat's
 *                    times and nothing else. Unlike dump, it reads no
 *                    symlink (readlink moves a symlink's atime), so it
 *                    moves no time itself: the semantics lens
 *                    (src/tools/semantics.c) takes a dump first and this
 *                    last before an operation, this first after it.
 *   mountopt NAME    remount every mounted disk (MS_REMOUNT) with the
 *                    atime option NAME (strictatime, relatime or noatime:
 *                    ATIME_TABLE in op_table.h) in place of the one it had,
 *                    kept for every later mount of the disk (op remount,
 *                    durable remount, mount); per disk "r I RET ERRNO"
 *   timegran NS ATIME_NS
 *                    mtime and ctime in fp and dump rounded down to a
 *                    multiple of NS, atime of ATIME_NS (the coarsest
 *                    granularities of the filesystems under test)
 *   umount, mount, readonly [I...]
 *                    unmount, mount, or remount read-only (the fsck lens's
 *                    clean disk) every disk or those named; per disk
 *                    "r I RET ERRNO"
 *   rtc              the RTC as the kernel reads it: "rtc SECONDS"
 *   diff PATH        where PATH's bytes first differ between the disks, read
 *                    through each one's mount: "d OFFSET", or "d none
 *                    BYTES" when the first DIFF_SCAN_MAX bytes (BYTES read)
 *                    are alike; then per disk "b I START HEX", its bytes
 *                    [START, START + DIFF_WINDOW) around OFFSET (fewer at
 *                    the end of the file), or "b I !ERRNO", "b I unmounted"
 *   range PATH OFF LEN...
 *                    the bytes [OFF, OFF + LEN) of PATH, opened as an
 *                    operation opens it (following symlinks), up to its
 *                    end: per disk "h I N HASH FILE", N the bytes read,
 *                    HASH their XXH3-128 and FILE the path of the file
 *                    read (PATH with its symlinks resolved) (or "h I
 *                    !ERRNO", "h I unmounted");
 *                    one LEN for every disk, or one per disk. The crash
 *                    lens holds an O_SYNC write's range to it.
 *   sleep SECONDS[.FRACTION]
 *                    nanosleep up to 3600 s, then "slept SECONDS": lets
 *                    the guest's clock move on (it is virtual, so a sleep
 *                    costs the host next to nothing) so that an operation
 *                    after it stamps times a 1-second granularity shows
 *
 * After op's fingerprints, one line "v ENTRY..." lists what exists on the
 * first disk, as PATH:K (K: d directory, f file, l symlink, o other) for
 * the host's generator, so it needs no second walk.
 *
 * I is the disk's index; a disk that is not mounted answers "r I unmounted",
 * "f I unmounted", "e I unmounted". A malformed command touches no disk and
 * gets one line "error usage: ...". The grammar of op is src/proto/op_table.h;
 * RECORD and the fingerprint are defined above the walk.
 *
 * Each disk's test root is its mount point; lost+found (and nilfs2's .nilfs) at the root is never
 * listed nor touched. Operations run chrooted into the disk (so "..", and
 * symlinks, absolute ones included, never leave it) with umask 0 (MODE is
 * the mode asked for). RET is the call's return (bytes written, 0, or -1)
 * and ERRNO the errno's name, or 0; a write that stops early (ENOSPC)
 * gives the bytes it wrote with the errno that stopped it. Written data is
 * a pattern: byte i of a write is byte p % 8 of mix(SEED, p / 8) below with
 * p = OFF + i (with append too, though the bytes land at the end of the
 * file); byte i of an xattr value, likewise with p = i.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/rtc.h>
#include <sys/ioctl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../../src/proto/op_grammar.h"
#include "../../src/proto/op_table.h"
#include "../../src/proto/op_run.h"
#include "../../src/proto/rule_fields.h"
#include "agent.h"
#include "../../src/proto/agent_cmds.h"
#include "../../src/proto/doorbell.h"

#define SEEK_MIN  (64 * 1024) /* larger files: holes skipped, not read */
#define ROOT_MODE 0755	      /* what reset leaves the root with */

#define DIFF_SCAN_MAX (64ull << 20) /* bytes diff compares at most */
#define DIFF_WINDOW   128	    /* bytes diff shows, half before the offset */
#define DIFF_DISKS    8		    /* disks diff compares at most */

#define TIMES_MAX_PATHS 4    /* paths a times command takes */
#define SLEEP_MAX	3600 /* seconds: well below relatime's one-day rule */

static int real_root = -1; /* the agent's own "/", to leave a chroot */

static __attribute__((noreturn)) void oom(void)
{
	out("fatal: out of memory");
	abort(); /* SIGABRT: agent.c powers off */
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

/* ---- chroot into a disk ---- */

static int enter_disk(const struct disk *d)
{
	if (real_root < 0)
		real_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (real_root < 0 || chdir(d->mnt) < 0)
		return -1;
	return chroot(".");
}

static void leave_disk(void)
{
	if (fchdir(real_root) == 0 && chroot(".") == 0)
		return;
	out("fatal: cannot leave a disk's chroot: %s", errname(errno));
	abort();
}

/* Not chrooted, and with the agent's umask (vfat takes its default
 * permissions from it): unmount and mount again as at boot. */
static struct op_res remount(struct disk *d)
{
	if (umount(d->mnt) < 0)
		return op_res_of(-1);
	int r = mount(d->dev, d->mnt, d->type, d->flags, d->data);
	d->err = r < 0 ? errno : 0;
	d->mounted = r == 0;
	return (struct op_res){r < 0 ? -1 : 0, d->err};
}

/* Tell the board's RTC too, as hwclock --systohc would: the clock a
 * reboot or a suspend reads back agrees with the one just set. */
static int set_rtc(time_t secs)
{
	struct tm tm;
	struct rtc_time rt;
	if (!gmtime_r(&secs, &tm))
		return -1;
	rt = (struct rtc_time){tm.tm_sec,  tm.tm_min,  tm.tm_hour, tm.tm_mday, tm.tm_mon,
			       tm.tm_year, tm.tm_wday, tm.tm_yday, 0};
	/* Operations run chrooted into a disk: the device is under the agent's root. */
	int fd = openat(real_root, "dev/rtc0", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = ioctl(fd, RTC_SET_TIME, &rt);
	int err = errno;
	close(fd);
	errno = err;
	return r;
}

/* The wall clock to the instant (the kernel refuses one before 1970 or
 * past 2262, KTIME_SEC_MAX, with EINVAL), and the RTC with it. Not a
 * filesystem call: every disk answers alike, and the clock it leaves is
 * what the next operation stamps. */
static struct op_res op_settime(const struct op_args *a)
{
	struct timespec t = op_instant(a);
	if (clock_settime(CLOCK_REALTIME, &t) < 0)
		return op_res_of(-1);
	return op_res_of(set_rtc(t.tv_sec));
}

/* The operations, generated from the one table the host shares
 * (src/proto/op_table.h: names, argument letters and names). Each runs
 * chrooted into a disk; remount (run NULL) is done outside, by step_disk. */
#define op_remount NULL
static const struct opdef {
	const char *name, *letters, *args;
	struct op_res (*run)(const struct op_args *a); /* NULL: remount */
} ops[] = {
#define AGENT_OP(e, name, letters, args, flags, example) {#name, letters, args, op_##name},
    OP_TABLE(AGENT_OP)
#undef AGENT_OP
};
#undef op_remount
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ---- parsing (op_grammar.h's op_parse_args) ---- */

/* The operation w[1] with its arguments w[2..], or NULL (usage printed). */
static const struct opdef *parse_op(char **w, int nw, struct op_args *a)
{
	const struct opdef *op = NULL;
	for (size_t i = 0; nw >= 2 && i < NOPS && !op; i++)
		if (!strcmp(w[1], ops[i].name))
			op = &ops[i];
	if (!op) {
#define AGENT_NAME(e, name, letters, args, flags, example) " " #name
		out("error usage: op NAME ARGS... (NAME:" OP_TABLE(AGENT_NAME) ")");
#undef AGENT_NAME
		return NULL;
	}
	bool ok = op_parse_args(op->letters, w + 2, nw - 2, a);
	if (!ok)
		out("error usage: op %s %s (letters %s: see op_table.h)", op->name, op->args,
		    op->letters);
	return ok ? op : NULL;
}

/* ---- the tree walk, shared by fp and dump ----
 *
 * The walk records one line of text per entry (the dump prints it after
 * "e I "):
 *   PATH kind=K mode=M uid=U gid=G nlink=N size=S content=H target=T xattrs=H
 *   [atime=SEC.NSEC mtime=SEC.NSEC ctime=SEC.NSEC]        (with "time" only)
 * PATH is relative to the test root ("." for the root), K is file, dir,
 * symlink or other, M is mode & 07777 in 4 octal digits, H an XXH3-128 in
 * 32 hex digits (canonical: big-endian). Canonicalizations, so that
 * filesystems that agree on POSIX state give equal lines:
 *  - lost+found and .nilfs at the root are left out (mkfs makes them);
 *  - nlink is "-" for the root (lost+found counts in it); for other
 *    directories, where the filesystem does not count subdirectories
 *    (st_nlink 1: btrfs), it is the conventional 2 + subdirectories;
 *  - size is for regular files only, "-" otherwise (directory sizes are
 *    each filesystem's own);
 *  - content, for a regular file, is the XXH3-128 of, for each 4096-byte
 *    block of the file (the last one up to the size) that is not all
 *    zeros, in order: its index (u64 little-endian) then its bytes; so a
 *    hole and written zeros hash alike, and a sparse file is not read
 *    through its holes; "-" for other kinds;
 *  - target is a symlink's target, "-" otherwise;
 *  - xattrs: user.* only (security.*, system.*, trusted.* differ by
 *    filesystem), sorted by name, hashed as name '\0' u32-le(len) value for
 *    each; "-" when there is none or the filesystem has no xattrs; only
 *    files and directories are asked (Linux allows user.* on nothing else);
 *  - no inode numbers, no block counts, no times without "time"; a
 *    symlink's atime is "-" (reading its target moves it); the walk opens
 *    files and directories with O_NOATIME, so it moves no other.
 * Bytes of PATH and target outside '!'..'~', and '\', are written \xHH.
 * Lines longer than a DB_LOG line are cut in the dump (never in the hash).
 * A failing call gives "!ERRNO" for its field ("kind=!ENOENT" with every
 * other field "-" when even lstat failed).
 *
 * The fingerprint: the lines sorted by (escaped) PATH in byte order (= the
 * order of the lines), leaf = XXH3-128 of the line, fingerprint = XXH3-128 of the
 * concatenation of PATH '\0' leaf(16 bytes, canonical) over the lines. */

struct sb {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sb *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = 0;
}

/* The appenders below, not printf: the walk formats every entry of every
 * disk after every operation, and vsnprintf costs thousands of
 * instructions a call. */
static void sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* A string literal: its length known at compile time. */
#define SB_LIT(b, lit) sb_add(b, lit, sizeof(lit) - 1)

static void sb_dec(struct sb *b, unsigned long long v, int width)
{
	char t[24];
	int i = sizeof(t);
	do
		t[--i] = (char)('0' + v % 10);
	while ((v /= 10) || (int)sizeof(t) - i < width);
	sb_add(b, t + i, sizeof(t) - (size_t)i);
}

/* " key=" and a time as SEC.NSEC (NSEC in 9 digits). */
static void sb_time(struct sb *b, const char *key, const struct timespec *t)
{
	sb_str(b, key);
	if (t->tv_sec < 0)
		sb_add(b, "-", 1);
	sb_dec(b,
	       t->tv_sec < 0 ? 0ull - (unsigned long long)t->tv_sec : (unsigned long long)t->tv_sec,
	       1);
	sb_add(b, ".", 1);
	sb_dec(b, (unsigned long long)t->tv_nsec, 9);
}

static const char hexdig[] = "0123456789abcdef";

static bool plain(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '\\';
}

/* p's bytes, the plain ones as they are (a run at a time), the rest as \xHH. */
static void sb_esc(struct sb *b, const char *p, size_t n)
{
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 0; i + run < n && plain((unsigned char)p[i + run]); run++)
			;
		if (run) {
			sb_add(b, p + i, run);
			continue;
		}
		unsigned char c = (unsigned char)p[i];
		sb_add(b, (const char[]){'\\', 'x', hexdig[c >> 4], hexdig[c & 15]}, 4);
		run = 1;
	}
}

static void hex128(XXH128_hash_t h, char out[33])
{
	for (int i = 0; i < 16; i++) {
		out[i] = hexdig[h.high64 >> (60 - 4 * i) & 15];
		out[16 + i] = hexdig[h.low64 >> (60 - 4 * i) & 15];
	}
	out[32] = 0;
}

/* A field's value: a hash, "-", or "!ERRNO". */
struct field {
	char v[40];
};

static void field_err(struct field *f, int err)
{
	snprintf(f->v, sizeof(f->v), "!%s", errname(err));
}

static bool all_zero(const uint8_t *p, size_t n)
{
	uint64_t acc = 0, v;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&v, p + i, 8);
		acc |= v;
	}
	for (; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/* Up to `want` bytes at `off` into op_chunk, fewer only at the end of the
 * file: 0 with *got, or -1 with errno. */
static int read_at(int fd, size_t want, off_t off, size_t *got)
{
	ssize_t n = 1;
	for (*got = 0; *got < want && n > 0; *got += (size_t)n)
		if ((n = pread(fd, op_chunk + *got, want - *got, off + (off_t)*got)) < 0)
			return -1;
	return 0;
}

/* Hash what of blocks [b, e) is not all zeros (and not past `size`, lstat's
 * size: no read to find the end): 0, or the errno. */
static int hash_blocks(int fd, off_t size, uint64_t b, uint64_t e, XXH3_state_t *st)
{
	for (; b < e; b += OP_CHUNK / OP_BLOCK) {
		off_t off = (off_t)(b * OP_BLOCK);
		size_t want = size - off < OP_CHUNK ? (size_t)(size - off) : OP_CHUNK, got;
		if ((e - b) * OP_BLOCK < want)
			want = (e - b) * OP_BLOCK;
		if (read_at(fd, want, off, &got) < 0)
			return errno;
		for (size_t i = 0; i < got; i += OP_BLOCK) {
			size_t len = got - i < OP_BLOCK ? got - i : OP_BLOCK;
			uint64_t idx = b + i / OP_BLOCK;
			uint8_t le[8] = {(uint8_t)idx,	       (uint8_t)(idx >> 8),
					 (uint8_t)(idx >> 16), (uint8_t)(idx >> 24),
					 (uint8_t)(idx >> 32), (uint8_t)(idx >> 40),
					 (uint8_t)(idx >> 48), (uint8_t)(idx >> 56)};
			if (all_zero(op_chunk + i, len))
				continue;
			XXH3_128bits_update(st, le, 8);
			XXH3_128bits_update(st, op_chunk + i, len);
		}
		if (got < want)
			return 0; /* shorter than lstat said: what is there */
	}
	return 0;
}

/* The next blocks from `next` that may hold data, as [*b, *e): past holes
 * (SEEK_DATA, SEEK_HOLE), or all the rest where the filesystem cannot say. */
static void data_run(int fd, off_t size, uint64_t next, uint64_t *b, uint64_t *e)
{
	uint64_t nblocks = ((uint64_t)size + OP_BLOCK - 1) / OP_BLOCK;
	off_t data = lseek(fd, (off_t)(next * OP_BLOCK), SEEK_DATA);
	*b = next;
	*e = nblocks;
	if (data < 0) {
		if (errno == ENXIO)
			*b = nblocks; /* only a hole from there */
		return;
	}
	off_t hole = lseek(fd, data, SEEK_HOLE);
	*b = (uint64_t)data / OP_BLOCK;
	if (hole > data && (uint64_t)hole < (uint64_t)size)
		*e = ((uint64_t)hole + OP_BLOCK - 1) / OP_BLOCK;
}

/* The content hash (see the walk's comment). Files up to SEEK_MIN are
 * read whole; past it, holes are skipped with SEEK_DATA: the same hash. */
static struct field content_hash(int fd, off_t size)
{
	struct field f;
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	uint64_t nblocks = ((uint64_t)size + OP_BLOCK - 1) / OP_BLOCK, next = 0, b, e;
	int err = 0;
	while (next < nblocks && !err) {
		b = next;
		e = nblocks;
		if (size > SEEK_MIN)
			data_run(fd, size, next, &b, &e);
		err = b < e ? hash_blocks(fd, size, b, e, &st) : 0;
		next = e;
	}
	if (err)
		field_err(&f, err);
	else
		hex128(XXH3_128bits_digest(&st), f.v);
	return f;
}

/* The user.* xattr names of fd, sorted (pointers into x->list): how many,
 * or -errno. None when the filesystem has no xattrs. */
struct xnames {
	char *list; /* first_list, or malloc'd */
	char **names;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The list, into x->list: its length, or -errno. A first call into a
 * small buffer serves most entries (the walk lists every entry's xattrs
 * after every operation), with no call to size it; not XATTR_LIST_MAX,
 * since the kernel allocates what the caller offers. */
static char first_list[512];

static ssize_t xattr_list(int fd, struct xnames *x)
{
	x->list = first_list;
	ssize_t len = flistxattr(fd, first_list, sizeof(first_list));
	if (len >= 0 || errno != ERANGE)
		return len < 0 ? -errno : len;
	if ((len = flistxattr(fd, NULL, 0)) < 0)
		return -errno;
	x->list = xrealloc(NULL, (size_t)len + 1);
	len = flistxattr(fd, x->list, (size_t)len + 1);
	return len < 0 ? -errno : len;
}

static int user_xattr_names(int fd, struct xnames *x)
{
	x->names = NULL;
	ssize_t len = xattr_list(fd, x);
	if (len <= 0)
		return len == 0 || len == -EOPNOTSUPP ? 0 : (int)len;
	int n = 0, cap = 0;
	for (ssize_t i = 0; i < len; i += (ssize_t)strnlen(x->list + i, (size_t)(len - i)) + 1)
		if (!strncmp(x->list + i, "user.", 5)) {
			if (n == cap)
				x->names = xrealloc(x->names,
						    sizeof(char *) * (size_t)(cap = 2 * cap + 4));
			x->names[n++] = x->list + i;
		}
	qsort(x->names, (size_t)n, sizeof(char *), cmp_str);
	return n;
}

/* Hash the sorted user.* xattrs: 0, or the errno. */
static int hash_xattrs(int fd, char **names, int n, XXH3_state_t *st)
{
	for (int i = 0; i < n; i++) {
		ssize_t len = fgetxattr(fd, names[i], op_chunk, OP_CHUNK);
		if (len < 0)
			return errno;
		uint8_t le[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
				 (uint8_t)(len >> 24)};
		XXH3_128bits_update(st, names[i], strlen(names[i]) + 1);
		XXH3_128bits_update(st, le, 4);
		XXH3_128bits_update(st, op_chunk, (size_t)len);
	}
	return 0;
}

static struct field xattrs_hash(int fd)
{
	struct field f = {"-"};
	struct xnames x;
	int n = user_xattr_names(fd, &x);
	if (n < 0) {
		field_err(&f, -n);
	} else if (n > 0) {
		XXH3_state_t st;
		XXH3_128bits_reset(&st);
		int err = hash_xattrs(fd, x.names, n, &st);
		if (err)
			field_err(&f, err);
		else
			hex128(XXH3_128bits_digest(&st), f.v);
	}
	if (x.list != first_list)
		free(x.list);
	free(x.names);
	return f;
}

struct walk {
	char **lines;
	size_t n, cap;
	bool time;
};

/* What one entry adds to its line besides what lstat says. */
struct extra {
	const char *kind;
	struct field content, xattrs;
	struct sb target;    /* escaped, or empty for "-" */
	unsigned long nlink; /* a directory's (see dir_nlink), else 0: lstat's */
};

static void add_line(struct walk *w, struct sb *line)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->lines = xrealloc(w->lines, w->cap * sizeof(char *));
	}
	w->lines[w->n++] = line->s;
}

/* Fields a filesystem under test cannot represent (FAT has no modes,
 * link counts or xattrs; the host's ignore rules, rules/FS.rules): set by
 * the host with `ignore`, printed as "*" and so left out of every
 * fingerprint. Agent-wide, like the disks. Bit i: the i-th of RULE_FIELDS. */
enum {
#define IGN_BIT(name) IGN_BIT_##name,
	RULE_FIELDS(IGN_BIT)
#undef IGN_BIT
	    IGN_NFIELDS
};
enum { IGN_ROOTTIME = 1 << IGN_BIT_roottime };
static unsigned ignored;

/* What the ignored fields held in the last walk, a hash per field (of
 * each entry's path and value, in walk order), so the host can count the
 * differences an ignore rule masked (the "m" line) without the values
 * entering any fingerprint. Agent-wide, like ignored; reset by walk_here. */
static XXH3_state_t masked_st[IGN_NFIELDS];
static uint64_t masked_last[IGN_NFIELDS];

/* value, or "*" for an ignored field (bit: its IGN_BIT_), whose value is
 * then hashed into its masked_st. */
static void sb_field(struct sb *b, const char *path, int bit, const char *value, size_t n)
{
	if (!(ignored >> bit & 1)) {
		sb_add(b, value, n);
		return;
	}
	SB_LIT(b, "*");
	XXH3_64bits_update(&masked_st[bit], path, strlen(path) + 1);
	XXH3_64bits_update(&masked_st[bit], value, n);
	XXH3_64bits_update(&masked_st[bit], "", 1);
}

/* An ignored directory size: "-" (not "*": what every fingerprint held
 * before directory sizes could be compared), its value hashed. */
static void dirsize_ignored(struct sb *b, const char *path, unsigned long long size)
{
	struct sb t = {0};
	sb_dec(&t, size, 1);
	XXH3_64bits_update(&masked_st[IGN_BIT_dirsize], path, strlen(path) + 1);
	XXH3_64bits_update(&masked_st[IGN_BIT_dirsize], t.s, t.len + 1);
	free(t.s);
	SB_LIT(b, "-");
}

/* A number as sb_field's value. */
static void sb_field_dec(struct sb *b, const char *path, int bit, unsigned long long v)
{
	if (!(ignored >> bit & 1)) { /* the common case: no copy */
		sb_dec(b, v, 1);
		return;
	}
	struct sb t = {0};
	sb_dec(&t, v, 1);
	sb_field(b, path, bit, t.s, t.len);
	free(t.s);
}

/* The granularities the walk records times in, ns: mtime and ctime, and
 * atime (FAT keeps a day of it). Set by the host with `timegran`: the
 * coarsest the filesystems under test declare, so a time every one of them
 * can store compares equal. Agent-wide, like ignored. */
static uint64_t time_gran = 1, atime_gran = 1;

/* t rounded down to a multiple of gran (towards the past, negative times
 * included, as the filesystems truncate). */
static const struct timespec *coarse(const struct timespec *t, uint64_t gran)
{
	static struct timespec c;
	__int128 ns = (__int128)t->tv_sec * 1000000000 + t->tv_nsec, g = (__int128)gran;
	ns -= ((ns % g) + g) % g;
	c.tv_sec = (time_t)(ns / 1000000000);
	c.tv_nsec = (long)(ns % 1000000000);
	if (c.tv_nsec < 0) {
		c.tv_sec--;
		c.tv_nsec += 1000000000;
	}
	return &c;
}

static void record(struct walk *w, const char *path, const struct stat *st, struct extra *x)
{
	struct sb b = {xrealloc(NULL, 256), 0, 256};
	unsigned m = st->st_mode & 07777;
	sb_str(&b, path);
	SB_LIT(&b, " kind=");
	sb_str(&b, x->kind);
	SB_LIT(&b, " mode=");
	bool root_mode = (ignored >> IGN_BIT_rootmode & 1) && !strcmp(path, ".");
	sb_field(&b, path, root_mode ? IGN_BIT_rootmode : IGN_BIT_mode,
		 (const char[]){(char)('0' + (m >> 9)), (char)('0' + (m >> 6 & 7)),
				(char)('0' + (m >> 3 & 7)), (char)('0' + (m & 7))},
		 4);
	SB_LIT(&b, " uid=");
	sb_field_dec(&b, path, IGN_BIT_uid, st->st_uid);
	SB_LIT(&b, " gid=");
	sb_field_dec(&b, path, IGN_BIT_gid, st->st_gid);
	SB_LIT(&b, " nlink=");
	if (!strcmp(path, "."))
		SB_LIT(&b, "-");
	else
		sb_field_dec(&b, path, IGN_BIT_nlink, x->nlink ? x->nlink : st->st_nlink);
	SB_LIT(&b, " size=");
	if (S_ISREG(st->st_mode))
		sb_dec(&b, (unsigned long long)st->st_size, 1);
	else if (S_ISDIR(st->st_mode) && !(ignored >> IGN_BIT_dirsize & 1))
		sb_dec(&b, (unsigned long long)st->st_size, 1);
	else if (S_ISDIR(st->st_mode))
		dirsize_ignored(&b, path, (unsigned long long)st->st_size);
	else
		SB_LIT(&b, "-");
	SB_LIT(&b, " content=");
	sb_str(&b, x->content.v);
	SB_LIT(&b, " target=");
	sb_str(&b, x->target.len ? x->target.s : "-");
	SB_LIT(&b, " xattrs=");
	sb_field(&b, path, IGN_BIT_xattrs, x->xattrs.v, strlen(x->xattrs.v));
	if (w->time && !strcmp(path, ".") && (ignored & IGN_ROOTTIME)) {
		/* FAT's root has no entry to hold them: what it shows is hashed */
		struct sb t = {0};
		sb_time(&t, " atime=", coarse(&st->st_atim, atime_gran));
		sb_time(&t, " mtime=", coarse(&st->st_mtim, time_gran));
		sb_time(&t, " ctime=", coarse(&st->st_ctim, time_gran));
		XXH3_64bits_update(&masked_st[IGN_BIT_roottime], t.s, t.len);
		free(t.s);
		SB_LIT(&b, " atime=* mtime=* ctime=*");
	} else if (w->time) {
		if (S_ISLNK(st->st_mode))
			SB_LIT(&b, " atime=-");
		else
			sb_time(&b, " atime=", coarse(&st->st_atim, atime_gran));
		sb_time(&b, " mtime=", coarse(&st->st_mtim, time_gran));
		sb_time(&b, " ctime=", coarse(&st->st_ctim, time_gran));
	}
	free(x->target.s);
	add_line(w, &b);
}

static void record_failed(struct walk *w, const char *path, int err)
{
	struct sb b = {0};
	sb_str(&b, path);
	SB_LIT(&b, " kind=!");
	sb_str(&b, errname(err));
	SB_LIT(&b, " mode=- uid=- gid=- nlink=- size=- content=- target=- xattrs=-");
	if (w->time)
		SB_LIT(&b, " mtime=- ctime=-");
	add_line(w, &b);
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool listed(const char *s, bool root)
{
	/* What mkfs leaves at the root: ext*'s lost+found, nilfs2's .nilfs. */
	return strcmp(s, ".") && strcmp(s, "..") &&
	       !(root && (!strcmp(s, "lost+found") || !strcmp(s, ".nilfs")));
}

/* The sorted names in directory fd (without . and ..; without what mkfs
 * leaves when `root`): how many (*names malloc'd), or -errno. */
static int list_names(int fd, bool root, char ***names)
{
	*names = NULL;
	int n = 0, cap = 0;
	ssize_t len;
	while ((len = getdents64(fd, op_chunk, OP_CHUNK)) > 0)
		for (ssize_t off = 0; off < len;) {
			struct dirent64 *de = (struct dirent64 *)(op_chunk + off);
			off += de->d_reclen;
			if (!listed(de->d_name, root))
				continue;
			if (n == cap)
				*names =
				    xrealloc(*names, sizeof(char *) * (size_t)(cap = 2 * cap + 8));
			if (!((*names)[n++] = strdup(de->d_name)))
				oom();
		}
	if (len < 0) {
		int e = errno;
		free_names(*names, n);
		*names = NULL;
		return -e;
	}
	qsort(*names, (size_t)n, sizeof(char *), cmp_str);
	return n;
}

static bool visit(struct walk *w, int pfd, const char *name, const char *path);

/* Visit the entries of a directory; how many are directories. */
static unsigned long visit_children(struct walk *w, int fd, char **names, int n, const char *path)
{
	bool root = !strcmp(path, ".");
	unsigned long dirs = 0;
	for (int i = 0; i < n; i++) {
		struct sb child = {0};
		if (!root) {
			sb_add(&child, path, strlen(path));
			sb_add(&child, "/", 1);
		}
		sb_esc(&child, names[i], strlen(names[i]));
		dirs += visit(w, fd, names[i], child.s);
		free(child.s);
	}
	return dirs;
}

/* A directory's nlink: st_nlink, but 2 + its subdirectories where the
 * filesystem does not count them (st_nlink 1: btrfs), so that only a
 * count that is wrong shows. */
static unsigned long dir_nlink(const struct stat *st, unsigned long subdirs)
{
	return st->st_nlink == 1 ? 2 + subdirs : (unsigned long)st->st_nlink;
}

static void visit_dir(struct walk *w, int pfd, const char *name, const char *path,
		      const struct stat *st)
{
	struct extra x = {"dir", {"-"}, {"-"}, {0}, 0};
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC);
	if (fd < 0) {
		field_err(&x.content, errno);
		record(w, path, st, &x);
		return;
	}
	x.xattrs = xattrs_hash(fd);
	char **names;
	int n = list_names(fd, !strcmp(path, "."), &names);
	if (n < 0)
		field_err(&x.content, -n);
	else
		x.nlink = dir_nlink(st, visit_children(w, fd, names, n, path));
	record(w, path, st, &x);
	free_names(names, n > 0 ? n : 0);
	close(fd);
}

static void visit_file(struct walk *w, int pfd, const char *name, const char *path,
		       const struct stat *st)
{
	struct extra x = {"file", {"-"}, {"-"}, {0}, 0};
	int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC);
	if (fd < 0) {
		field_err(&x.content, errno);
	} else {
		x.content = content_hash(fd, st->st_size);
		x.xattrs = xattrs_hash(fd);
		close(fd);
	}
	record(w, path, st, &x);
}

static void visit_link(struct walk *w, int pfd, const char *name, const char *path,
		       const struct stat *st)
{
	struct extra x = {"symlink", {"-"}, {"-"}, {0}, 0};
	ssize_t n = readlinkat(pfd, name, (char *)op_chunk, OP_CHUNK);
	if (n < 0) {
		SB_LIT(&x.target, "!");
		sb_str(&x.target, errname(errno));
	} else {
		sb_esc(&x.target, (const char *)op_chunk, (size_t)n);
		if (n == 0)
			sb_add(&x.target, "\\x", 2); /* empty: not "-" (Linux refuses it anyway) */
	}
	record(w, path, st, &x);
}

/* Record `name` in directory pfd (and all below it): whether it is a
 * directory. */
static bool visit(struct walk *w, int pfd, const char *name, const char *path)
{
	struct stat st;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		record_failed(w, path, errno);
		return false;
	}
	struct extra other = {"other", {"-"}, {"-"}, {0}, 0};
	if (S_ISDIR(st.st_mode))
		visit_dir(w, pfd, name, path, &st);
	else if (S_ISREG(st.st_mode))
		visit_file(w, pfd, name, path, &st);
	else if (S_ISLNK(st.st_mode))
		visit_link(w, pfd, name, path, &st);
	else
		record(w, path, &st, &other);
	return S_ISDIR(st.st_mode);
}

/* The tree of the disk we are chrooted into, as sorted lines in w. */
static void walk_here(bool time, struct walk *w)
{
	memset(w, 0, sizeof(*w));
	w->time = time;
	for (int i = 0; i < IGN_NFIELDS; i++)
		if (ignored >> i & 1)
			XXH3_64bits_reset(&masked_st[i]);
	visit(w, AT_FDCWD, ".", ".");
	qsort(w->lines, w->n, sizeof(char *), cmp_str);
	for (int i = 0; i < IGN_NFIELDS; i++)
		masked_last[i] = ignored >> i & 1 ? XXH3_64bits_digest(&masked_st[i]) : 0;
}

/* "m DISK H..." (a hash per RULE_FIELDS field, 0 for one not ignored): what
 * the ignored fields held in the walk of h, when any field is ignored. */
static void print_masked(int idx, const uint64_t *h)
{
	char hex[17 * IGN_NFIELDS];
	if (!ignored)
		return;
	for (int i = 0; i < IGN_NFIELDS; i++) {
		hex[17 * i] = ' ';
		for (int d = 0; d < 16; d++)
			hex[17 * i + 1 + d] = hexdig[h[i] >> (60 - 4 * d) & 15];
	}
	out_item('m', idx, hex + 1, sizeof(hex) - 1); /* without the space before the first H */
}

static void free_walk(struct walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->lines[i]);
	free(w->lines);
}

#define FP_LEN 40 /* a fingerprint's text: 32 hex digits, "unmounted", "!ERRNO" */

/* "PATH:K " for a walk line "PATH kind=KIND ...". */
static void view_add(struct sb *view, const char *line)
{
	size_t n = strcspn(line, " ");
	if (n == 1 && line[0] == '.')
		return;
	sb_add(view, line, n);
	const char *kind = strstr(line + n, " kind=");
	char k = kind ? kind[6] : 'o';
	sb_add(
	    view,
	    (const char[]){':', k == 'd' || k == 'f' || k == 's' ? (k == 's' ? 'l' : k) : 'o', ' '},
	    3);
}

/* The fingerprint of the tree we are chrooted into; with view, also what
 * exists (see the "v" line above). */
static void fp_here(bool time, char out[FP_LEN], struct sb *view)
{
	struct walk w;
	/* hashed at once: what a stream of the parts would hash */
	struct sb all = {xrealloc(NULL, 1024), 0, 1024};
	walk_here(time, &w);
	for (size_t i = 0; view && i < w.n; i++)
		view_add(view, w.lines[i]);
	for (size_t i = 0; i < w.n; i++) {
		const char *l = w.lines[i];
		XXH128_canonical_t leaf;
		XXH128_canonicalFromHash(&leaf, XXH3_128bits(l, strlen(l)));
		sb_add(&all, l, strcspn(l, " "));
		sb_add(&all, "", 1);
		sb_add(&all, (const char *)leaf.digest, sizeof(leaf.digest));
	}
	hex128(XXH3_128bits(all.s, all.len), out);
	free(all.s);
	free_walk(&w);
}

/* Enter a mounted disk, or say why not in out ("unmounted", "!ERRNO"). */
static bool enter_or_say(const struct disk *d, char out[FP_LEN])
{
	if (!d->mounted)
		snprintf(out, FP_LEN, "unmounted");
	else if (enter_disk(d) < 0)
		snprintf(out, FP_LEN, "!%s", errname(errno));
	else
		return true;
	return false;
}

static void disk_fp(const struct disk *d, bool time, char out[FP_LEN], struct sb *view)
{
	if (!enter_or_say(d, out))
		return;
	fp_here(time, out, view);
	leave_disk();
}

static void print_dump(const struct disk *d, bool time)
{
	struct walk w;
	char why[FP_LEN];
	if (!enter_or_say(d, why)) {
		out("e %d %s", d->idx, why);
		return;
	}
	walk_here(time, &w);
	leave_disk();
	for (size_t i = 0; i < w.n; i++)
		out_item('e', d->idx, w.lines[i], strlen(w.lines[i]));
	free_walk(&w);
}

/* ---- reset ---- */

static int empty_dir(int fd, bool root);

/* rm -rf of one entry of directory pfd: 0, or the first errno. */
static int remove_entry(int pfd, const char *name)
{
	if (unlinkat(pfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return errno;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int err = empty_dir(fd, false);
	close(fd);
	if (unlinkat(pfd, name, AT_REMOVEDIR) < 0 && !err)
		err = errno;
	return err;
}

static int empty_dir(int fd, bool root)
{
	char **names;
	int n = list_names(fd, root, &names);
	if (n < 0)
		return -n;
	int err = 0;
	for (int i = 0; i < n; i++) {
		int e = remove_entry(fd, names[i]);
		err = err ? err : e;
	}
	free_names(names, n);
	return err;
}

/* The root as a fresh mkfs leaves it: mode 0755, owner 0:0, no user.*
 * xattrs (each changed only when it differs). 0, or the errno. */
static int reset_root(int fd)
{
	struct stat st;
	struct xnames x;
	if (fstat(fd, &st) < 0)
		return errno;
	if ((st.st_mode & 07777) != ROOT_MODE && fchmod(fd, ROOT_MODE) < 0)
		return errno;
	if ((st.st_uid || st.st_gid) && fchown(fd, 0, 0) < 0)
		return errno;
	int n = user_xattr_names(fd, &x), err = n < 0 ? -n : 0;
	for (int i = 0; i < n && !err; i++)
		err = fremovexattr(fd, x.names[i]) < 0 ? errno : 0;
	free(x.list);
	free(x.names);
	return err;
}

static struct op_res reset_disk(const struct disk *d)
{
	if (enter_disk(d) < 0)
		return op_res_of(-1);
	int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = fd < 0 ? errno : 0;
	if (fd >= 0) {
		err = empty_dir(fd, true);
		int e = reset_root(fd);
		err = err ? err : e;
		close(fd);
	}
	leave_disk();
	return (struct op_res){err ? -1 : 0, err};
}

/* ---- the commands ---- */

/* What an op did on one disk: its result, and the fingerprint after it. */
struct step {
	struct op_res r;
	bool ran; /* false: the disk was not mounted */
	char fp[FP_LEN];
	bool walked; /* fp is a walk's, and masked its ignored fields' */
	uint64_t masked[IGN_NFIELDS];
};

/* ---- one instant for every disk ----
 *
 * Each disk's turn of a command starts with the wall clock set back to the
 * instant the command began, so an operation stamps the same times on
 * every filesystem, value for value, however long the disks before it
 * took: times are comparable across filesystems, not merely ordered. The
 * instant is the coarse clock's (the last tick's), which is what the
 * filesystems stamp (current_time), so the first disk sees the time it
 * would have seen anyway, and a burst of operations within one tick shares
 * one time, as on any Linux. (The host holds the guest's time still
 * through the command, so no tick lands inside one disk's turn.) */
static struct timespec clock_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return t;
}

static void pin_clock(const struct timespec *at)
{
	if (clock_settime(CLOCK_REALTIME, at) < 0) {
		out("fatal: cannot set the clock: %s", errname(errno));
		abort();
	}
}

/* The op on a mounted disk and the fingerprint after it, in one visit. */
static void step_disk(struct disk *d, const struct opdef *op, const struct op_args *a,
		      struct step *s, struct sb *view, bool fp)
{
	s->walked = false;
	mark(DB_PHASE_OP);
	if (!op->run) {
		s->r = remount(d);
		mark(DB_PHASE_FP);
		if (fp && enter_or_say(d, s->fp)) {
			fp_here(false, s->fp, view);
			leave_disk();
			s->walked = true;
			memcpy(s->masked, masked_last, sizeof(s->masked));
		}
		return;
	}
	if (enter_disk(d) < 0) {
		s->r = op_res_of(-1);
		snprintf(s->fp, FP_LEN, "!%s", errname(s->r.err));
		return;
	}
	mode_t old = umask(0);
	s->r = op->run(a);
	mark(DB_PHASE_FP);
	umask(old);
	if (fp) {
		fp_here(false, s->fp, view);
		s->walked = true;
		memcpy(s->masked, masked_last, sizeof(s->masked));
	}
	leave_disk();
}

static void print_res(const struct disk *d, bool ran, struct op_res r)
{
	struct sb b = {xrealloc(NULL, 64), 0, 64};
	if (ran) { /* "RET ERR" */
		if (r.ret < 0)
			sb_add(&b, "-", 1);
		sb_dec(&b, r.ret < 0 ? 0ull - (unsigned long long)r.ret : (unsigned long long)r.ret,
		       1);
		sb_add(&b, " ", 1);
		sb_str(&b, errname(r.err));
	} else {
		SB_LIT(&b, "unmounted");
	}
	out_item('r', d->idx, b.s, b.len);
	free(b.s);
}

/* op: the results, the fingerprints and the view; run (fp false): the
 * results only, so that the disks see the operation's own I/O alone. */
static void op_command(struct disk *disks, int ndisks, char **w, int nw, bool fp)
{
	struct op_args a;
	struct step s[AGENT_MAX_DISKS];
	struct sb view = {xrealloc(NULL, 64), 0, 64};
	const struct opdef *op = parse_op(w, nw, &a);
	view.s[0] = 0;
	if (!op) {
		free(view.s);
		return;
	}
	struct timespec at = clock_now();
	for (int i = 0; i < ndisks; i++) {
		s[i].ran = disks[i].mounted;
		pin_clock(&at);
		if (s[i].ran)
			step_disk(&disks[i], op, &a, &s[i], i == 0 ? &view : NULL, fp);
		else
			snprintf(s[i].fp, FP_LEN, "unmounted");
	}
	for (int i = 0; i < ndisks; i++)
		print_res(&disks[i], s[i].ran, s[i].r);
	for (int i = 0; i < ndisks && fp; i++) {
		out_item('f', disks[i].idx, s[i].fp, strlen(s[i].fp));
		if (s[i].ran && s[i].walked)
			print_masked(disks[i].idx, s[i].masked);
	}
	if (fp)
		out_item('v', -1, view.s, view.len < DB_MAX_LEN - 8 ? view.len : DB_MAX_LEN - 8);
	free(view.s);
}

static void cmd_reset(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)w;
	struct op_res r[AGENT_MAX_DISKS];
	if (nw != 1) {
		out("error usage: reset");
		return;
	}
	struct timespec at = clock_now();
	for (int i = 0; i < ndisks; i++) {
		pin_clock(&at);
		if (disks[i].mounted)
			r[i] = reset_disk(&disks[i]);
	}
	sync();
	for (int i = 0; i < ndisks; i++)
		print_res(&disks[i], disks[i].mounted, r[i]);
}

static void tree_command(struct disk *disks, int ndisks, char **w, int nw)
{
	bool dump = !strcmp(w[0], "dump"), time = nw == 2;
	if (nw > 2 || (nw == 2 && strcmp(w[1], "time"))) {
		out("error usage: %s [time]", w[0]);
		return;
	}
	struct sb view = {xrealloc(NULL, 64), 0, 64};
	view.s[0] = 0;
	for (int i = 0; i < ndisks; i++) {
		char fp[FP_LEN];
		if (dump) {
			print_dump(&disks[i], time);
		} else {
			disk_fp(&disks[i], time, fp, i == 0 ? &view : NULL);
			out_item('f', disks[i].idx, fp, strlen(fp));
			if (disks[i].mounted && fp[0] != '!')
				print_masked(disks[i].idx, masked_last);
		}
	}
	if (!dump)
		out_item('v', -1, view.s, view.len < DB_MAX_LEN - 8 ? view.len : DB_MAX_LEN - 8);
	free(view.s);
}

/* durable MODE [dump]: see the top of this file. What sync put on the
 * disk is read back either from the disk itself, every clean cache
 * dropped (dirty pages cannot be dropped, but sync left none), or through
 * a fresh mount, which also replays the journal. */
static void cmd_durable(struct disk *disks, int ndisks, char **w, int nw)
{
	bool remounting = nw >= 2 && !strcmp(w[1], "remount");
	bool dump = nw == 3 && !strcmp(w[2], "dump");
	if (nw < 2 || nw > 3 || (nw == 3 && !dump) ||
	    (!remounting && strcmp(w[1], "drop-caches"))) {
		out("error usage: durable drop-caches|remount [dump]");
		return;
	}
	sync();
	for (int i = 0; i < ndisks && remounting; i++)
		if (disks[i].mounted)
			remount(&disks[i]);
	if (!remounting) {
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "3", 1) != 1) {
			out("error drop_caches: %s", errname(errno));
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
	}
	for (int i = 0; i < ndisks; i++) {
		char fp[FP_LEN];
		if (dump) {
			print_dump(&disks[i], false);
		} else {
			disk_fp(&disks[i], false, fp, NULL);
			out_item('f', disks[i].idx, fp, strlen(fp));
		}
	}
}

/* umount / mount / readonly [I...]: the benchmark baseline's backtrack
 * (the host rewrites the images between the two), the crash lens's power
 * cut, and the fsck lens's clean disk, on every disk or on the disks
 * named. Mounting first drops the block device's cache, since the host
 * wrote the disk behind the kernel's back. readonly remounts read-only:
 * every filesystem then leaves its disk as an unmount would (ext4 empties
 * its journal, xfs writes its unmount record, FAT clears its dirty bit)
 * without the unmount's teardown. Every disk answers; one not named
 * answers "r I 0 0" untouched. */
static int mount_step(struct disk *d, char how)
{
	if (how == 'u' && d->mounted) {
		int r = umount(d->mnt);
		d->mounted = r != 0;
		return r;
	}
	if (how == 'r' && d->mounted)
		return mount(d->dev, d->mnt, d->type, d->flags | MS_REMOUNT | MS_RDONLY, d->data);
	if (how == 'm' && !d->mounted && d->type[0]) {
		int fd = open(d->dev, O_RDONLY);
		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
		int r = mount(d->dev, d->mnt, d->type, d->flags, d->data);
		d->mounted = r == 0;
		return r;
	}
	return 0;
}

static void mounts_command(struct disk *disks, int ndisks, char how, char **w, int nw)
{
	unsigned named = nw == 1 ? ~0u : 0;
	for (int k = 1; k < nw; k++) {
		uint64_t i;
		if (!op_parse_dec(w[k], (uint64_t)ndisks - 1, &i)) {
			out("error usage: %s [DISK...]", w[0]);
			return;
		}
		named |= 1u << i;
	}
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		int r = named >> i & 1 ? mount_step(d, how) : 0;
		d->err = r < 0 ? errno : 0;
		out("r %d %d %s", d->idx, r < 0 ? -1 : 0, errname(d->err));
	}
}

/* ignore FIELD,FIELD... (RULE_FIELDS) or "-": see `ignored`. */
/* RULE_FIELD_WORDS without its first space */
#define IGNORE_WORDS (RULE_FIELD_WORDS + 1)
static void cmd_ignore(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks; /* no disk: a setting */
	static const char *const names[] = {
#define IGN_NAME(name) #name,
	    RULE_FIELDS(IGN_NAME)
#undef IGN_NAME
	};
	unsigned mask = 0;
	char *list = nw == 2 ? w[1] : NULL;
	for (char *tok = list && strcmp(list, "-") ? strtok(list, ",") : NULL; tok;
	     tok = strtok(NULL, ",")) {
		unsigned bit = 0;
		for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i]))
				bit = 1u << i;
		if (!bit) {
			out("error usage: ignore FIELD,... (%s) or -", IGNORE_WORDS);
			return;
		}
		mask |= bit;
	}
	if (!list) {
		out("error usage: ignore FIELD,... (%s) or -", IGNORE_WORDS);
		return;
	}
	ignored = mask;
	out("ignore %u", ignored);
}

/* timegran NS ATIME_NS: see `time_gran`; answers "timegran NS ATIME_NS". */
static void cmd_timegran(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks; /* no disk: a setting */
	uint64_t g, ag;
	const uint64_t day = 86400ull * 1000000000;
	if (nw != 3 || !op_parse_dec(w[1], day, &g) || !g || !op_parse_dec(w[2], day, &ag) || !ag) {
		out("error usage: timegran NS ATIME_NS (1 to 86400e9)");
		return;
	}
	time_gran = g;
	atime_gran = ag;
	out("timegran %llu %llu", (unsigned long long)g, (unsigned long long)ag);
}

/* times PATH...: see the top of this file. lstat only: nothing here may
 * move a time it reports. */
static void cmd_times(struct disk *disks, int ndisks, char **w, int nw)
{
	bool ok = nw >= 2 && nw <= 1 + TIMES_MAX_PATHS;
	for (int k = 1; ok && k < nw; k++)
		ok = op_path_ok(w[k]);
	if (!ok) {
		out("error usage: times PATH... (1 to %d paths)", TIMES_MAX_PATHS);
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		char why[FP_LEN];
		if (!enter_or_say(&disks[i], why)) {
			out("t %d %s", disks[i].idx, why);
			continue;
		}
		for (int k = 1; k < nw; k++) {
			struct stat st;
			struct sb b = {0};
			sb_str(&b, w[k]);
			if (lstat(w[k], &st) < 0) {
				SB_LIT(&b, " !");
				sb_str(&b, errname(errno));
			} else {
				sb_time(&b, " atime=", &st.st_atim);
				sb_time(&b, " mtime=", &st.st_mtim);
				sb_time(&b, " ctime=", &st.st_ctim);
				SB_LIT(&b, " ino=");
				sb_dec(&b, (unsigned long long)st.st_ino, 1);
			}
			out("t %d %s", disks[i].idx, b.s);
			free(b.s);
		}
		leave_disk();
	}
}

/* ---- diff ---- */

/* Up to OP_BLOCK bytes of fd at off into buf: how many, or -1. */
static ssize_t block_at(int fd, uint8_t *buf, off_t off)
{
	ssize_t got = 0, n = 1;
	while (got < OP_BLOCK && n > 0) {
		n = pread(fd, buf + got, (size_t)(OP_BLOCK - got), off + got);
		if (n < 0)
			return -1;
		got += n;
	}
	return got;
}

/* The first offset below DIFF_SCAN_MAX where the open files fds[0..n)
 * (-1: left out) differ, a read error or the end of one file counting as
 * a difference; -1 when none, *scanned the bytes compared. */
static long long first_diff(const int *fds, int n, uint8_t (*buf)[OP_BLOCK], uint64_t *scanned)
{
	for (*scanned = 0; *scanned < DIFF_SCAN_MAX; *scanned += OP_BLOCK) {
		ssize_t len[DIFF_DISKS] = {0}, first = -2, any = 0;
		int k0 = -1;
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			len[i] = block_at(fds[i], buf[i], (off_t)*scanned);
			any |= len[i];
			if (k0 < 0)
				k0 = i, first = len[i];
		}
		if (k0 < 0 || any <= 0)
			return -1;
		for (int i = k0 + 1; i < n; i++) {
			if (fds[i] < 0)
				continue;
			ssize_t common = len[i] < first ? len[i] : first;
			for (ssize_t j = 0; j < common; j++)
				if (buf[i][j] != buf[k0][j])
					return (long long)*scanned + j;
			if (len[i] != first)
				return (long long)*scanned + (common < 0 ? 0 : common);
		}
		if (first < OP_BLOCK)
			return -1;
	}
	return -1;
}

/* diff PATH: see the top of this file. The files are opened inside each
 * disk's chroot and read after leaving it: one pass over all of them. */
static void cmd_diff(struct disk *disks, int ndisks, char **w, int nw)
{
	if (nw != 2 || !op_path_ok(w[1]) || ndisks > DIFF_DISKS) {
		out("error usage: diff PATH (at most %d disks)", DIFF_DISKS);
		return;
	}
	int fds[DIFF_DISKS], errs[DIFF_DISKS];
	for (int i = 0; i < ndisks; i++) {
		fds[i] = -1, errs[i] = ENODEV;
		if (!disks[i].mounted || enter_disk(&disks[i]) < 0)
			continue;
		fds[i] = open(w[1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		errs[i] = errno;
		leave_disk();
	}
	uint8_t(*buf)[OP_BLOCK] = xrealloc(NULL, (size_t)ndisks * OP_BLOCK);
	uint64_t scanned;
	long long off = first_diff(fds, ndisks, buf, &scanned);
	if (off < 0)
		out("d none %llu", (unsigned long long)scanned);
	else
		out("d %lld", off);
	off_t start = off > DIFF_WINDOW / 2 ? (off_t)off - DIFF_WINDOW / 2 : 0;
	for (int i = 0; i < ndisks; i++) {
		char hex[2 * DIFF_WINDOW + 1] = "";
		ssize_t n = fds[i] < 0 ? -1 : pread(fds[i], buf[0], DIFF_WINDOW, start);
		if (fds[i] >= 0 && n < 0)
			errs[i] = errno;
		for (ssize_t j = 0; j < n; j++)
			snprintf(hex + 2 * j, 3, "%02x", buf[0][j]);
		if (!disks[i].mounted)
			out("b %d unmounted", disks[i].idx);
		else if (n < 0)
			out("b %d !%s", disks[i].idx, errname(errs[i]));
		else
			out("b %d %lld %s", disks[i].idx, (long long)start, hex);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	free(buf);
}

/* The XXH3-128 of fd's bytes [off, off + len) up to its end into hex,
 * their count into *n; -1 with errno on a failed read. */
static int hash_range(int fd, uint64_t off, uint64_t len, char hex[33], unsigned long long *n)
{
	uint8_t buf[OP_BLOCK];
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	for (*n = 0; *n < len;) {
		size_t want = len - *n < OP_BLOCK ? (size_t)(len - *n) : OP_BLOCK;
		ssize_t got = pread(fd, buf, want, (off_t)(off + *n));
		if (got < 0)
			return -1;
		if (!got)
			break;
		XXH3_128bits_update(&st, buf, (size_t)got);
		*n += (unsigned long long)got;
	}
	hex128(XXH3_128bits_digest(&st), hex);
	return 0;
}

/* range PATH OFF LEN...: see the top of this file. */
static void cmd_range(struct disk *disks, int ndisks, char **w, int nw)
{
	uint64_t off, len[DIFF_DISKS];
	bool ok = (nw == 4 || nw == 3 + ndisks) && ndisks <= DIFF_DISKS && op_path_ok(w[1]) &&
		  op_parse_dec(w[2], OP_MAX_SIZE, &off);
	for (int i = 0; ok && i < ndisks; i++)
		ok = op_parse_dec(w[nw == 4 ? 3 : 3 + i], OP_MAX_SIZE, &len[i]);
	if (!ok) {
		out("error usage: range PATH OFF LEN... (one LEN, or one per disk; at most %d "
		    "disks; OFF and LEN at most %llu)",
		    DIFF_DISKS, OP_MAX_SIZE);
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		char hex[33], file[PATH_MAX];
		unsigned long long n = 0;
		int fd = -1, err = 0;
		if (!disks[i].mounted) {
			out("h %d unmounted", disks[i].idx);
			continue;
		}
		if (enter_disk(&disks[i]) < 0)
			err = errno;
		else {
			fd = open(w[1], O_RDONLY | O_NOATIME | O_CLOEXEC);
			err = errno;
			/* the chroot's root is the test root: "/f0" */
			if (fd >= 0 && !realpath(w[1], file))
				snprintf(file, sizeof(file), "/%s", w[1]);
			leave_disk();
		}
		if (fd >= 0 && hash_range(fd, off, len[i], hex, &n) < 0)
			err = errno, close(fd), fd = -1;
		if (fd < 0) {
			out("h %d !%s", disks[i].idx, errname(err));
			continue;
		}
		close(fd);
		out("h %d %llu %s %s", disks[i].idx, n, hex,
		    op_path_ok(file + 1) ? file + 1 : w[1]);
	}
}

/* mountopt NAME: see the top of this file. MS_REMOUNT changes the
 * mount's atime flags in place, the page cache kept: what an operation
 * then does to the times is the option's doing alone. */
static void cmd_mountopt(struct disk *disks, int ndisks, char **w, int nw)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} opts[] = {
#define AGENT_ATIME(name, FLAG) {#name, MS_##FLAG},
	    ATIME_TABLE(AGENT_ATIME)
#undef AGENT_ATIME
	};
	const size_t nopts = sizeof(opts) / sizeof(opts[0]);
	unsigned long atime_flags = 0, want = 0;
	bool known = false;
	for (size_t i = 0; i < nopts; i++) {
		atime_flags |= opts[i].flag;
		if (nw == 2 && !strcmp(w[1], opts[i].name))
			known = true, want = opts[i].flag;
	}
	if (!known) {
#define AGENT_ATIME_NAME(name, FLAG) " " #name
		out("error usage: mountopt NAME (NAME:" ATIME_TABLE(AGENT_ATIME_NAME) ")");
#undef AGENT_ATIME_NAME
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		if (!d->mounted) {
			out("r %d unmounted", d->idx);
			continue;
		}
		unsigned long flags = (d->flags & ~atime_flags) | want;
		int r = mount(d->dev, d->mnt, d->type, MS_REMOUNT | flags, d->data);
		d->err = r < 0 ? errno : 0;
		if (r == 0)
			d->flags = flags;
		out("r %d %d %s", d->idx, r < 0 ? -1 : 0, errname(d->err));
	}
}

/* sleep SECONDS[.FRACTION]: see the top of this file. */
static void cmd_sleep(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks; /* no disk: a setting */
	struct op_args a = {0};
	char when[40];
	bool ok = nw == 2 && snprintf(when, sizeof(when), "+%s", w[1]) < (int)sizeof(when) &&
		  op_parse_instant(when, &a.when, &a.when_relative) && a.when.tv_sec >= 0 &&
		  a.when.tv_sec <= SLEEP_MAX;
	if (!ok) {
		out("error usage: sleep SECONDS[.FRACTION] (0 to %d)", SLEEP_MAX);
		return;
	}
	struct timespec left = a.when;
	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
	out("slept %s", w[1]);
}

/* rtc: the board's RTC as the kernel reads it (RTC_RD_TIME), "rtc SECONDS"
 * (or "rtc !ERRNO"): settime sets it with the clock. */
static void cmd_rtc(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks, (void)w;
	struct rtc_time rt;
	int fd = nw == 1 ? open("/dev/rtc0", O_RDONLY | O_CLOEXEC) : -1; /* not chrooted here */
	if (nw != 1) {
		out("error usage: rtc");
		return;
	}
	if (fd < 0 || ioctl(fd, RTC_RD_TIME, &rt) < 0) {
		out("rtc !%s", errname(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	struct tm tm = {.tm_sec = rt.tm_sec,
			.tm_min = rt.tm_min,
			.tm_hour = rt.tm_hour,
			.tm_mday = rt.tm_mday,
			.tm_mon = rt.tm_mon,
			.tm_year = rt.tm_year};
	out("rtc %lld", (long long)timegm(&tm));
}

/* The commands whose handlers serve several words. */
static void cmd_op(struct disk *disks, int ndisks, char **w, int nw)
{
	op_command(disks, ndisks, w, nw, true);
}

static void cmd_run(struct disk *disks, int ndisks, char **w, int nw)
{
	op_command(disks, ndisks, w, nw, false);
}

static void cmd_fp(struct disk *disks, int ndisks, char **w, int nw)
{
	tree_command(disks, ndisks, w, nw);
}

static void cmd_dump(struct disk *disks, int ndisks, char **w, int nw)
{
	tree_command(disks, ndisks, w, nw);
}

static void cmd_umount(struct disk *disks, int ndisks, char **w, int nw)
{
	mounts_command(disks, ndisks, 'u', w, nw);
}

static void cmd_mount(struct disk *disks, int ndisks, char **w, int nw)
{
	mounts_command(disks, ndisks, 'm', w, nw);
}

static void cmd_readonly(struct disk *disks, int ndisks, char **w, int nw)
{
	mounts_command(disks, ndisks, 'r', w, nw);
}

/* The commands, from the one list the host reads too
 * (src/proto/agent_cmds.h). */
static const struct {
	const char *word;
	void (*run)(struct disk *disks, int ndisks, char **w, int nw);
} commands[] = {
#define AGENT_CMD(word, reply, flags, usage) {#word, cmd_##word},
    AGENT_COMMANDS(AGENT_CMD)
#undef AGENT_CMD
};

bool check_command(struct disk *disks, int ndisks, char **w, int nw)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(w[0], commands[i].word)) {
			commands[i].run(disks, ndisks, w, nw);
			return true;
		}
	return false;
}
