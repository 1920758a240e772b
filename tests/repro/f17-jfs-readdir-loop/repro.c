/* repro.c - jfs: readdir of a directory whose dtree root is damaged never
 * ends (docs/findings.md, F17). Walks every directory under MNT with
 * getdents64 and reports a listing that does not end: jfs_readdir emits
 * ".." at position 2, then dtReadFirst fails, and the error is dropped
 * because an entry was emitted; the position stays 2, so the next call
 * emits ".." again, for ever.
 *
 *   repro MNT     exit 1 REPRODUCED, 0 NOT REPRODUCED, 2 could not run */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CALLS 10000 /* a listing of the small tree ends in a few calls */

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* List dir: 1 its listing never ends, 0 it ends, -1 an error. Recurses
 * into subdirectories. */
static int list(const char *dir)
{
	char buf[4096], sub[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return printf("%s: open: %s\n", dir, strerror(errno)), -1;
	int calls = 0, dotdots = 0, rc = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0) {
			printf("%s: getdents64: %s (after %d calls)\n", dir, strerror(errno), calls);
			break;
		}
		if (++calls > MAX_CALLS) {
			printf("REPRODUCED: %s: getdents64 has not ended after %d calls; "
			       "'..' returned %d times\n", dir, MAX_CALLS, dotdots);
			close(fd);
			return 1;
		}
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			if (!strcmp(d->d_name, "..")) {
				dotdots++;
				continue;
			}
			if (!strcmp(d->d_name, ".") || rc)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
			struct stat st; /* jfs gives every entry DT_UNKNOWN */
			if (!lstat(sub, &st) && S_ISDIR(st.st_mode))
				rc = list(sub) == 1;
		}
	}
	close(fd);
	if (!rc)
		printf("%s: listed in %d calls\n", dir, calls);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return fprintf(stderr, "usage: %s MNT\n", argv[0]), 2;
	int rc = list(argv[1]);
	if (rc == 1)
		return 1;
	printf("NOT REPRODUCED: every listing ended\n");
	return rc < 0 ? 2 : 0;
}
