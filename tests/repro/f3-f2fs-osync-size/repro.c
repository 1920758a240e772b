/* repro.c - the helper of F3's reproducer (docs/findings.md): the steps a
 * shell cannot do. Standalone (libc and syscalls), for any Linux machine.
 *
 *   repro pairs DIR N    create DIR/f0..f(N-1), and in each, back to back
 *                        in this one process, two O_SYNC writes: 4097
 *                        bytes at 0, then 4097 bytes at 4095 (the file
 *                        is then 8192 bytes; Themis's trace: `op write f0
 *                        0 4097 1 sync`, `op write f0 4095 4097 1 sync`)
 *   repro short DIR N    print how many of DIR/f0..f(N-1) are not 8192
 *                        bytes long
 *   repro copy SRC DST   DST = SRC, sparse
 *
 * The two writes must fall in one tick of the inode clock (the bug needs
 * the second write to leave the inode's times as the first wrote them),
 * which back-to-back calls of one process nearly always do.
 *
 * Exit 0, or 2 with a message naming what failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096
#define WANT  8192

static int die(const char *what, const char *path)
{
	fprintf(stderr, "repro: %s: %s: %s\n", path, what, errno ? strerror(errno) : "bad");
	return 2;
}

static int write_sync(const char *path, off_t off, size_t len)
{
	char buf[2 * BLOCK];
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + (size_t)off + 1);
	int fd = open(path, O_WRONLY | O_SYNC);
	if (fd < 0)
		return die("cannot open", path);
	if (pwrite(fd, buf, len, off) != (ssize_t)len || close(fd) != 0)
		return die("cannot write with O_SYNC", path);
	return 0;
}

static int pairs(const char *dir, int n)
{
	char f[4096];
	for (int i = 0; i < n; i++) {
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		int fd = open(f, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || close(fd) != 0)
			return die("cannot create", f);
		int rc = write_sync(f, 0, BLOCK + 1);
		if (!rc)
			rc = write_sync(f, BLOCK - 1, BLOCK + 1);
		if (rc)
			return rc;
	}
	return 0;
}

static int count_short(const char *dir, int n)
{
	char f[4096];
	struct stat st;
	int shorter = 0;
	for (int i = 0; i < n; i++) {
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		shorter += stat(f, &st) != 0 || st.st_size != WANT;
	}
	printf("%d\n", shorter);
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
	if (argc == 4 && !strcmp(argv[1], "pairs"))
		return pairs(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "short"))
		return count_short(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "copy"))
		return copy(argv[2], argv[3]);
	fprintf(stderr, "usage: repro pairs DIR N | short DIR N | copy SRC DST\n");
	return 2;
}
