/* repro.c - the helper of F1's reproducer (docs/findings.md): the steps a
 * shell cannot do. Standalone (libc and syscalls), for any Linux machine.
 *
 *   repro osync-write PATH      create PATH, then write 4096 bytes to it
 *                               with O_SYNC (what Themis's trace did)
 *   repro copy SRC DST          DST = SRC, sparse (the images are mostly
 *                               zeros, and a small machine's /tmp is RAM)
 *   repro cut CRASH AFTER OUT   OUT = AFTER with f2fs's checkpoint area
 *                               taken from CRASH: the recovery's writes
 *                               landed, its checkpoint did not
 *   repro size PATH             print PATH's size, or "missing"
 *
 * Exit 0, or 2 with a message naming what failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096
#define F2FS_SUPER_OFFSET 1024
#define F2FS_SUPER_MAGIC 0xF2F52010u

static int die(const char *what, const char *path)
{
	fprintf(stderr, "repro: %s: %s: %s\n", path, what, errno ? strerror(errno) : "bad");
	return 2;
}

static int osync_write(const char *path)
{
	char buf[BLOCK];
	for (int i = 0; i < BLOCK; i++)
		buf[i] = (char)(i * 7 + 1);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || close(fd) != 0)
		return die("cannot create", path);
	fd = open(path, O_WRONLY | O_SYNC);
	if (fd < 0)
		return die("cannot open", path);
	if (pwrite(fd, buf, BLOCK, 0) != BLOCK || close(fd) != 0)
		return die("cannot write with O_SYNC", path);
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The checkpoint area [*first, *first + *n) in blocks, from f2fs's
 * superblock in fd (struct f2fs_super_block, include/linux/f2fs_fs.h). */
static int cp_area(int fd, const char *path, uint32_t *first, uint32_t *n)
{
	unsigned char sb[128];
	errno = 0;
	if (pread(fd, sb, sizeof(sb), F2FS_SUPER_OFFSET) != (ssize_t)sizeof(sb))
		return die("cannot read the superblock", path);
	uint32_t log_bps = le32(sb + 20), segs_ckpt = le32(sb + 52);
	if (le32(sb) != F2FS_SUPER_MAGIC || le32(sb + 16) != 12 || log_bps > 12 || segs_ckpt > 16)
		return die("not an f2fs image with 4 KiB blocks", path);
	*first = le32(sb + 76); /* cp_blkaddr */
	*n = segs_ckpt << log_bps;
	return 0;
}

/* out = after, but blocks [first, first + n) from crash; all-zero blocks
 * left as holes. */
static int splice(const char *crash, const char *after, const char *out, uint32_t first,
		  uint32_t n)
{
	static const char zero[BLOCK];
	char buf[BLOCK];
	int c = crash ? open(crash, O_RDONLY) : -1, a = open(after, O_RDONLY);
	int o = open(out, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if ((crash && c < 0) || a < 0 || o < 0)
		return die("cannot open", a < 0 ? after : o < 0 ? out : crash);
	struct stat st;
	if (fstat(a, &st) != 0 || ftruncate(o, st.st_size) != 0)
		return die("cannot size", out);
	for (uint64_t b = 0; b * BLOCK < (uint64_t)st.st_size; b++) {
		int from = b >= first && b < (uint64_t)first + n ? c : a;
		if (pread(from, buf, BLOCK, (off_t)(b * BLOCK)) != BLOCK)
			return die("cannot read a block", from == c ? crash : after);
		if (memcmp(buf, zero, BLOCK) && pwrite(o, buf, BLOCK, (off_t)(b * BLOCK)) != BLOCK)
			return die("cannot write a block", out);
	}
	close(a);
	if (c >= 0)
		close(c);
	return close(o) == 0 ? 0 : die("cannot write", out);
}

static int cut(const char *crash, const char *after, const char *out)
{
	uint32_t first = 0, n = 0;
	int c = open(crash, O_RDONLY);
	if (c < 0 || cp_area(c, crash, &first, &n))
		return c < 0 ? die("cannot open", crash) : 2;
	close(c);
	printf("repro: checkpoint area, blocks %u to %u, as before the recovery\n", first,
	       first + n - 1);
	return splice(crash, after, out, first, n);
}

int main(int argc, char **argv)
{
	struct stat st;
	if (argc == 3 && !strcmp(argv[1], "osync-write"))
		return osync_write(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "copy"))
		return splice(NULL, argv[2], argv[3], 0, 0);
	if (argc == 5 && !strcmp(argv[1], "cut"))
		return cut(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "size")) {
		if (stat(argv[2], &st) != 0)
			printf("missing\n");
		else
			printf("%lld\n", (long long)st.st_size);
		return 0;
	}
	fprintf(stderr, "usage: repro osync-write PATH | copy SRC DST | cut CRASH AFTER OUT | size PATH\n");
	return 2;
}
