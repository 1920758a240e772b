/* walk.c - the agent's walk of a disk's tree and the fingerprint and
 * records made from it (the fp and dump commands, and every op's
 * fingerprint): see walk.h, and the definition of a record below. */
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

#include "../../src/proto/rule_fields.h"
#include "agent.h"
#include "../../src/proto/doorbell.h"

#include "sb.h"
#include "walk.h"

#define SEEK_MIN (64 * 1024) /* larger files: holes skipped, not read */

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

/* Up to `want` bytes at `off` into agent_chunk, fewer only at the end of the
 * file: 0 with *got, or -1 with errno. */
static int read_at(int fd, size_t want, off_t off, size_t *got)
{
	ssize_t n = 1;
	for (*got = 0; *got < want && n > 0; *got += (size_t)n)
		if ((n = pread(fd, agent_chunk + *got, want - *got, off + (off_t)*got)) < 0)
			return -1;
	return 0;
}

/* Hash what of blocks [b, e) is not all zeros (and not past `size`, lstat's
 * size: no read to find the end): 0, or the errno. */
static int hash_blocks(int fd, off_t size, uint64_t b, uint64_t e, XXH3_state_t *st)
{
	for (; b < e; b += AGENT_CHUNK / AGENT_BLOCK) {
		off_t off = (off_t)(b * AGENT_BLOCK);
		size_t want = size - off < AGENT_CHUNK ? (size_t)(size - off) : AGENT_CHUNK, got;
		if ((e - b) * AGENT_BLOCK < want)
			want = (e - b) * AGENT_BLOCK;
		if (read_at(fd, want, off, &got) < 0)
			return errno;
		for (size_t i = 0; i < got; i += AGENT_BLOCK) {
			size_t len = got - i < AGENT_BLOCK ? got - i : AGENT_BLOCK;
			uint64_t idx = b + i / AGENT_BLOCK;
			uint8_t le[8] = {(uint8_t)idx,	       (uint8_t)(idx >> 8),
					 (uint8_t)(idx >> 16), (uint8_t)(idx >> 24),
					 (uint8_t)(idx >> 32), (uint8_t)(idx >> 40),
					 (uint8_t)(idx >> 48), (uint8_t)(idx >> 56)};
			if (all_zero(agent_chunk + i, len))
				continue;
			XXH3_128bits_update(st, le, 8);
			XXH3_128bits_update(st, agent_chunk + i, len);
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
	uint64_t nblocks = ((uint64_t)size + AGENT_BLOCK - 1) / AGENT_BLOCK;
	off_t data = lseek(fd, (off_t)(next * AGENT_BLOCK), SEEK_DATA);
	*b = next;
	*e = nblocks;
	if (data < 0) {
		if (errno == ENXIO)
			*b = nblocks; /* only a hole from there */
		return;
	}
	off_t hole = lseek(fd, data, SEEK_HOLE);
	*b = (uint64_t)data / AGENT_BLOCK;
	if (hole > data && (uint64_t)hole < (uint64_t)size)
		*e = ((uint64_t)hole + AGENT_BLOCK - 1) / AGENT_BLOCK;
}

/* The content hash (see the walk's comment). Files up to SEEK_MIN are
 * read whole; past it, holes are skipped with SEEK_DATA: the same hash. */
static struct field content_hash(int fd, off_t size)
{
	struct field f;
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	uint64_t nblocks = ((uint64_t)size + AGENT_BLOCK - 1) / AGENT_BLOCK, next = 0, b, e;
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

int user_xattr_names(int fd, struct xnames *x)
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
		ssize_t len = fgetxattr(fd, names[i], agent_chunk, AGENT_CHUNK);
		if (len < 0)
			return errno;
		uint8_t le[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
				 (uint8_t)(len >> 24)};
		XXH3_128bits_update(st, names[i], strlen(names[i]) + 1);
		XXH3_128bits_update(st, le, 4);
		XXH3_128bits_update(st, agent_chunk, (size_t)len);
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
unsigned ignored;

/* What the ignored fields held in the last walk, a hash per field (of
 * each entry's path and value, in walk order), so the host can count the
 * differences an ignore rule masked (the "m" line) without the values
 * entering any fingerprint. Agent-wide, like ignored; reset by walk_here. */
static XXH3_state_t masked_st[IGN_NFIELDS];
uint64_t masked_last[IGN_NFIELDS];

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
uint64_t time_gran = 1, atime_gran = 1;

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

void free_names(char **names, int n)
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
int list_names(int fd, bool root, char ***names)
{
	*names = NULL;
	int n = 0, cap = 0;
	ssize_t len;
	while ((len = getdents64(fd, agent_chunk, AGENT_CHUNK)) > 0)
		for (ssize_t off = 0; off < len;) {
			struct dirent64 *de = (struct dirent64 *)(agent_chunk + off);
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
	ssize_t n = readlinkat(pfd, name, (char *)agent_chunk, AGENT_CHUNK);
	if (n < 0) {
		SB_LIT(&x.target, "!");
		sb_str(&x.target, errname(errno));
	} else {
		sb_esc(&x.target, (const char *)agent_chunk, (size_t)n);
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
void print_masked(int idx, const uint64_t *h)
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
void fp_here(bool time, char out[FP_LEN], struct sb *view)
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
bool enter_or_say(const struct disk *d, char out[FP_LEN])
{
	if (!d->mounted)
		snprintf(out, FP_LEN, "unmounted");
	else if (enter_disk(d) < 0)
		snprintf(out, FP_LEN, "!%s", errname(errno));
	else
		return true;
	return false;
}

void disk_fp(const struct disk *d, bool time, char out[FP_LEN], struct sb *view)
{
	if (!enter_or_say(d, out))
		return;
	fp_here(time, out, view);
	leave_disk();
}

void print_dump(const struct disk *d, bool time)
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
