/* repro.c - the helper of F4's reproducer (docs/findings.md): the steps a
 * shell cannot do. Standalone (libc and syscalls), for any Linux machine.
 *
 *   repro create-fsync PATH   create PATH (mode 0644), fsync it, close it
 *                             (Themis's `op create f0 0644 -`, `op fsync
 *                             f0`); fdatasync with "create-fdatasync"
 *   repro copy SRC DST        DST = SRC, sparse
 *
 * Exit 0, or 2 with a message naming what failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096

static int die(const char *what, const char *path)
{
	fprintf(stderr, "repro: %s: %s: %s\n", path, what, errno ? strerror(errno) : "bad");
	return 2;
}

static int create_sync(const char *path, int data_only)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return die("cannot create", path);
	if ((data_only ? fdatasync(fd) : fsync(fd)) != 0)
		return die(data_only ? "fdatasync failed" : "fsync failed", path);
	if (close(fd) != 0)
		return die("cannot close", path);
	return 0;
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

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "create-fsync"))
		return create_sync(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "create-fdatasync"))
		return create_sync(argv[2], 1);
	if (argc == 4 && !strcmp(argv[1], "copy"))
		return copy(argv[2], argv[3]);
	fprintf(stderr, "usage: repro create-fsync PATH | create-fdatasync PATH | copy SRC DST\n");
	return 2;
}
