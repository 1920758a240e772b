/* leave.c - the agent leaves the initramfs: its program's pages are copied
 * to anonymous memory and /init is removed, so rootfs holds no page.
 *
 * Why: the on-disk view drops the caches at every state (check.c), and the
 * kernel's drop_caches walks every inode's page cache, rootfs's too, whose
 * pages it can never drop: /init's 141 pages cost some 16,400 guest
 * instructions a state, 7.7% of a plain exploration's (docs/speed.md).
 *
 * How: each mapping of /init becomes an anonymous copy at the same address
 * (mremap over it: the code doing it is in the text being replaced, and
 * runs on from the copy, byte for byte the same); the process's exe file
 * becomes an empty file (prctl PR_SET_MM_EXE_FILE, allowed once /init is
 * mapped nowhere, which releases the write denial exec took on it); then
 * /init is unlinked and, with nothing left holding it, freed. Any step
 * that fails is said on the console and the agent goes on from /init. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agent.h"

#define SELF	 "/init"
#define STAND_IN "/.agent" /* the exe file once /init is gone: empty, 0500 */
#define MAPS_MAX 16

struct area {
	unsigned long start, end;
	int prot;
};

/* The mappings of SELF from /proc/self/maps: their count, or -1. */
static int self_areas(struct area *a, int cap)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	char line[256];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char perms[5], path[64] = "";
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %63s", &s, &e, perms, path) < 3 ||
		    strcmp(path, SELF))
			continue;
		if (n == cap) {
			n = -1;
			break;
		}
		a[n++] = (struct area){s, e,
				       (perms[0] == 'r' ? PROT_READ : 0) |
					   (perms[1] == 'w' ? PROT_WRITE : 0) |
					   (perms[2] == 'x' ? PROT_EXEC : 0)};
	}
	fclose(f);
	return n;
}

/* Replace one mapping by an anonymous copy of it, at its address. */
static int copy_area(const struct area *a)
{
	size_t len = a->end - a->start;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	memcpy(p, (const void *)a->start, len);
	if (mprotect(p, len, a->prot) ||
	    mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)a->start) == MAP_FAILED) {
		munmap(p, len);
		return -1;
	}
	return 0;
}

static int stand_in_exe(void)
{
	int fd = open(STAND_IN, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0500);
	if (fd < 0)
		return -1;
	int rc = prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd, 0, 0);
	close(fd);
	return rc;
}

void leave_rootfs(void)
{
	struct area a[MAPS_MAX];
	const char *step = "read /proc/self/maps";
	int n = self_areas(a, MAPS_MAX);
	bool ok = n > 0;
	for (int i = 0; ok && i < n; i++) {
		step = "copy a mapping";
		ok = copy_area(&a[i]) == 0;
	}
	if (ok) {
		step = "PR_SET_MM_EXE_FILE";
		ok = stand_in_exe() == 0;
	}
	if (ok) {
		step = "unlink " SELF;
		ok = unlink(SELF) == 0;
	}
	if (!ok)
		out("leave_rootfs: %s -> -1 %s", step, n < 0 ? "EOVERFLOW" : errname(errno));
}
