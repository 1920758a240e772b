/* The fixed script of filesystem operations, run on one mounted disk.
 *
 * Everything happens under the directory t/ at the disk's root (so the
 * filesystem's own entries, lost+found say, stay out of it). Each
 * operation prints one line "op args -> ret errno" (ret: the call's
 * result, -1 on failure, with the errno's name; 0 for the errno on
 * success); paths are printed relative to the mount point. An operation
 * the filesystem does not support prints its errno like any result. The
 * script ends with a remount and a sorted listing of t/:
 *   list PATH KIND mode=OOOO nlink=N size=N fnv1a=HEX16
 * where the checksum covers a file's bytes, a symlink's target, or a
 * directory's sorted entry names (each followed by '\n').
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define PATH_LEN    256
#define MAX_ENTRIES 256

static struct disk *cur;
static const char *list_tag = "list"; /* the first word of listing lines */

/* The full path of `rel` on the current disk, in one of two buffers
 * (rename and link need two at once). */
static const char *fp(int which, const char *rel)
{
	static char buf[2][PATH_LEN];
	snprintf(buf[which], PATH_LEN, "%s/%s", cur->mnt, rel);
	return buf[which];
}

static void result(long ret, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void result(long ret, int err, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	out("%s -> %ld %s", what, ret, errname(ret < 0 ? err : 0));
}

/* Run `call`, then print its line: the errno is taken right after it. */
#define DO(call, ...)                                                                              \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(call);                                                            \
		int e_ = errno;                                                                    \
		result(r_ < 0 ? -1 : r_, e_, __VA_ARGS__);                                         \
	} while (0)

/* The byte at file offset `off` written by the write with seed `seed`: a
 * function of the offset, so overlapping writes stay deterministic. */
static uint8_t pattern(unsigned seed, uint64_t off)
{
	uint64_t x = (off + 1) * 0x9e3779b97f4a7c15ull + seed * 0xbf58476d1ce4e5b9ull;
	x ^= x >> 31;
	return (uint8_t)(x ^ (x >> 17));
}

static void op_mkdir(const char *rel, mode_t mode)
{
	DO(mkdir(fp(0, rel), mode), "mkdir %s %04o", rel, (unsigned)mode);
}

static void op_create(const char *rel, mode_t mode)
{
	errno = 0;
	int fd = open(fp(0, rel), O_CREAT | O_EXCL | O_WRONLY, mode);
	int e = errno;
	if (fd >= 0)
		close(fd);
	result(fd < 0 ? -1 : 0, e, "create %s %04o", rel, (unsigned)mode);
}

static void op_write(const char *rel, uint64_t off, size_t len, unsigned seed)
{
	static uint8_t buf[16384];
	if (len > sizeof(buf))
		len = sizeof(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(seed, off + i);
	int fd = open(fp(0, rel), O_WRONLY);
	if (fd < 0) {
		result(-1, errno, "write %s %llu %zu", rel, (unsigned long long)off, len);
		return;
	}
	errno = 0;
	ssize_t w = pwrite(fd, buf, len, (off_t)off);
	int e = errno;
	close(fd);
	result(w, e, "write %s %llu %zu", rel, (unsigned long long)off, len);
}

static void op_fsync(const char *rel, bool dir)
{
	int fd = open(fp(0, rel), dir ? O_RDONLY | O_DIRECTORY : O_RDWR);
	if (fd < 0) {
		result(-1, errno, "fsync %s", rel);
		return;
	}
	DO(fsync(fd), "fsync %s", rel);
	close(fd);
}

/* Unmount and mount again with the same type, flags and options. */
static void remount(void)
{
	int r = umount(cur->mnt);
	result(r, errno, "umount .");
	if (r < 0)
		return; /* still mounted: list what is there */
	cur->mounted = false;
	r = mount(cur->dev, cur->mnt, cur->type, cur->flags, cur->data);
	cur->err = r < 0 ? errno : 0;
	cur->mounted = r == 0;
	result(r, cur->err, "mount %s . %s", cur->dev, cur->type);
}

/* ---- the listing ---- */

struct entry {
	char rel[PATH_LEN];
};

static struct entry entries[MAX_ENTRIES];
static int nentries;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->rel, ((const struct entry *)b)->rel);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ull

/* The sorted names in directory `rel` (without . and ..): returns how many
 * went into names[] (each malloc'd), or -1 with errno. */
static int read_names(const char *rel, char **names, int max)
{
	DIR *dir = opendir(fp(1, rel));
	if (!dir)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n < max)
			names[n++] = strdup(de->d_name);
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	return n;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
}

/* Collect `rel` and everything below it into entries[]. */
static void collect(const char *rel)
{
	if (nentries == MAX_ENTRIES)
		return;
	snprintf(entries[nentries++].rel, PATH_LEN, "%s", rel);
	struct stat st;
	if (lstat(fp(1, rel), &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	char *names[MAX_ENTRIES];
	int n = read_names(rel, names, MAX_ENTRIES);
	for (int i = 0; i < n; i++) {
		char child[PATH_LEN];
		snprintf(child, sizeof(child), "%s/%s", rel, names[i]);
		collect(child);
	}
	free_names(names, n);
}

static void list_one(const char *rel)
{
	struct stat st;
	if (lstat(fp(1, rel), &st) < 0) {
		result(-1, errno, "list %s", rel);
		return;
	}
	uint64_t h = FNV_INIT;
	const char *kind = "other";
	if (S_ISREG(st.st_mode)) {
		kind = "file";
		int fd = open(fp(1, rel), O_RDONLY);
		if (fd < 0) {
			result(-1, errno, "list %s read", rel);
			return;
		}
		uint8_t buf[4096];
		ssize_t r;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			h = fnv1a(h, buf, (size_t)r);
		int e = errno;
		close(fd);
		if (r < 0) {
			result(-1, e, "list %s read", rel);
			return;
		}
	} else if (S_ISDIR(st.st_mode)) {
		kind = "dir";
		char *names[MAX_ENTRIES];
		int n = read_names(rel, names, MAX_ENTRIES);
		if (n < 0) {
			result(-1, errno, "list %s readdir", rel);
			return;
		}
		for (int i = 0; i < n; i++) {
			h = fnv1a(h, names[i], strlen(names[i]));
			h = fnv1a(h, "\n", 1);
		}
		free_names(names, n);
	} else if (S_ISLNK(st.st_mode)) {
		kind = "symlink";
		char target[PATH_LEN];
		ssize_t n = readlink(fp(1, rel), target, sizeof(target));
		if (n < 0) {
			result(-1, errno, "list %s readlink", rel);
			return;
		}
		h = fnv1a(h, target, (size_t)n);
	}
	out("%s %s %s mode=%04o nlink=%lu size=%lld fnv1a=%016llx", list_tag, rel, kind,
	    (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink, (long long)st.st_size,
	    (unsigned long long)h);
}

static void listing(const char *top)
{
	struct stat st;
	if (lstat(fp(1, top), &st) < 0) {
		result(-1, errno, "list %s", top);
		return;
	}
	nentries = 0;
	collect(top);
	qsort(entries, (size_t)nentries, sizeof(entries[0]), cmp_entry);
	for (int i = 0; i < nentries; i++)
		list_one(entries[i].rel);
}

void fsops_list(struct disk *d, const char *top, const char *tag)
{
	cur = d;
	list_tag = tag;
	listing(top);
	list_tag = "list";
}

/* ---- the script ---- */

void fsops_run(struct disk *d)
{
	cur = d;
	op_mkdir("t", 0755);
	op_create("t/a", 0644);
	op_write("t/a", 0, 100, 1);
	op_write("t/a", 4000, 200, 2);	 /* crosses 4096 */
	op_write("t/a", 12288, 4096, 3); /* one aligned block past a hole */
	op_create("t/b", 0600);
	op_write("t/b", 0, 5000, 4);
	op_fsync("t/a", false);
	op_mkdir("t/d", 0700);
	DO(rename(fp(0, "t/b"), fp(1, "t/d/b")), "rename t/b t/d/b");
	DO(link(fp(0, "t/a"), fp(1, "t/d/a2")), "link t/a t/d/a2");
	DO(symlink("a", fp(0, "t/s")), "symlink a t/s");
	DO(truncate(fp(0, "t/a"), 4050), "truncate t/a 4050"); /* shrink into the crossing write */
	DO(truncate(fp(0, "t/a"), 9000), "truncate t/a 9000"); /* grow: zeros */
	op_write("t/a", 8190, 10, 5);			       /* in the grown part, across 8192 */
	DO(chmod(fp(0, "t/a"), 0600), "chmod t/a 0600");
	DO(chmod(fp(0, "t/d"), 0750), "chmod t/d 0750");
	op_create("t/c", 0644);
	op_write("t/c", 0, 10, 6);
	DO(unlink(fp(0, "t/c")), "unlink t/c");
	op_create("t/f", 0644);
	op_write("t/f", 0, 3000, 7);
	DO(rename(fp(0, "t/f"), fp(1, "t/d/b")), "rename t/f t/d/b"); /* replaces t/d/b */
	op_mkdir("t/e", 0755);
	DO(rename(fp(0, "t/e"), fp(1, "t/d/e")), "rename t/e t/d/e");
	op_mkdir("t/g", 0755);
	DO(rmdir(fp(0, "t/g")), "rmdir t/g");
	op_fsync("t/d", true);
	op_fsync("t", true);
	remount();
	listing("t");
}
