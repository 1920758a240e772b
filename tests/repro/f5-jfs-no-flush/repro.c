/* repro.c - the helper of F5's reproducer (docs/findings.md): the steps a
 * shell cannot do. Standalone (libc and syscalls), for any Linux machine.
 *
 *   repro create-fsync PATH  create PATH (mode 0644), write its first 4 KiB,
 *                            fsync it and close it
 *   repro check PATH         exit 0 if PATH holds the 4 KiB create-fsync
 *                            wrote, 1 if not
 *   repro copy SRC DST       DST = SRC, sparse
 *   repro blocks OLD NEW     print how many 4 KiB blocks differ
 *   repro revert OLD NEW I OUT
 *                            OUT = NEW with its I-th differing block (from
 *                            0) as OLD has it: NEW after a power cut that
 *                            lost that one write from the disk's cache
 *
 * Exit 0, or 2 with a message naming what failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096

static int die(const char *what, const char *path)
{
	fprintf(stderr, "repro: %s: %s: %s\n", path, what, errno ? strerror(errno) : "bad");
	return 2;
}

static int create_fsync(const char *path)
{
	char buf[BLOCK];
	memset(buf, 'A', sizeof(buf));
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return die("cannot create", path);
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd) != 0 || close(fd) != 0)
		return die("cannot write and fsync", path);
	return 0;
}

static int check(const char *path)
{
	char want[BLOCK], got[BLOCK + 1];
	memset(want, 'A', sizeof(want));
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	ssize_t n = read(fd, got, sizeof(got));
	close(fd);
	return n == BLOCK && !memcmp(got, want, BLOCK) ? 0 : 1;
}

static int all_zero(const char *b, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

static int copy(const char *src, const char *dst)
{
	char buf[BLOCK];
	int in = open(src, O_RDONLY);
	if (in < 0)
		return die("cannot open", src);
	int out = open(dst, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (out < 0)
		return die("cannot create", dst);
	off_t at = 0;
	ssize_t n;
	while ((n = pread(in, buf, sizeof(buf), at)) > 0) {
		if (!all_zero(buf, n) && pwrite(out, buf, (size_t)n, at) != n)
			return die("cannot write", dst);
		at += n;
	}
	if (n < 0 || ftruncate(out, at) != 0 || close(out) != 0 || close(in) != 0)
		return die("cannot copy", src);
	return 0;
}

/* The offset of the i-th block where old and new differ into *at (-1 when
 * there are fewer), and their number into *count. */
static int find_block(int old, int new, long i, off_t *at, long *count)
{
	char a[BLOCK], b[BLOCK];
	*at = -1;
	*count = 0;
	for (off_t off = 0;; off += BLOCK) {
		ssize_t n = pread(new, b, sizeof(b), off);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		ssize_t m = pread(old, a, sizeof(a), off);
		if (m < 0)
			return -1;
		if (m == n && !memcmp(a, b, (size_t)n))
			continue;
		if (*count == i)
			*at = off;
		(*count)++;
	}
}

static int blocks(const char *old_path, const char *new_path)
{
	int old = open(old_path, O_RDONLY), new = open(new_path, O_RDONLY);
	off_t at;
	long count;
	if (old < 0 || new < 0 || find_block(old, new, -1, &at, &count) != 0)
		return die("cannot compare", new_path);
	printf("%ld\n", count);
	return 0;
}

static int revert(const char *old_path, const char *new_path, const char *index,
		  const char *out_path)
{
	char buf[BLOCK];
	char *end;
	long i = strtol(index, &end, 10);
	if (*index == '\0' || *end != '\0' || i < 0)
		return die("not a block index", index);
	if (copy(new_path, out_path) != 0)
		return 2;
	int old = open(old_path, O_RDONLY), new = open(new_path, O_RDONLY);
	int out = open(out_path, O_WRONLY);
	off_t at;
	long count;
	if (old < 0 || new < 0 || out < 0 || find_block(old, new, i, &at, &count) != 0)
		return die("cannot compare", new_path);
	if (at < 0) {
		errno = 0;
		return die("no such differing block", index);
	}
	ssize_t n = pread(old, buf, sizeof(buf), at);
	if (n <= 0 || pwrite(out, buf, (size_t)n, at) != n || close(out) != 0)
		return die("cannot write", out_path);
	printf("block %ld of %ld (byte %lld)\n", i, count, (long long)at);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "create-fsync"))
		return create_fsync(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "check"))
		return check(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "copy"))
		return copy(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "blocks"))
		return blocks(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "revert"))
		return revert(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr,
		"usage: repro create-fsync PATH | check PATH | copy SRC DST | blocks OLD NEW | "
		"revert OLD NEW I OUT\n");
	return 2;
}
