/* repro.c - ocfs2: setxattr on a file that keeps its xattrs in its inode
 * takes ip_alloc_sem inside a transaction, a write takes the transaction
 * inside ip_alloc_sem: a lock-order inversion lockdep reports
 * (docs/findings.md, F19). No serial run deadlocks; two CPUs can (with
 * the journal's commit thread waiting for j_trans_barrier between them).
 *
 * PID 1 of a throw-away initramfs (repro.sh builds it, statically, for
 * riscv64): mounts /dev/vda (ocfs2, local mode) on /mnt, then
 *   create f0; write f0 0 4096 O_SYNC; setxattr f0 user.a (16 bytes)
 * (the sequence Themis's hunt found it at), and reads the kernel's log.
 * Prints REPRODUCED when lockdep reported the inversion, NOT REPRODUCED
 * otherwise (a kernel without lockdep can only say that), then
 * "repro-exit N" (1, 0, or 2: it could not run) and powers off. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LOG_MAX (1 << 20)

static void off(int rc)
{
	printf("repro-exit %d\n", rc);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	_exit(rc);
}

static void need(int ok, const char *what)
{
	if (!ok) {
		printf("repro: %s failed: %s\n", what, strerror(errno));
		off(2);
	}
}

/* The kernel log's first line holding `what`, printed; 0 when none. */
static int logged(const char *what)
{
	static char log[LOG_MAX];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, LOG_MAX - 1);
	if (n <= 0)
		return 0;
	log[n] = 0;
	char *at = strstr(log, what);
	if (!at)
		return 0;
	while (at > log && at[-1] != '\n')
		at--;
	printf("the kernel: %.*s\n", (int)strcspn(at, "\n"), at);
	return 1;
}

int main(void)
{
	static char block[4096];
	char val[16];
	mkdir("/dev", 0755), mkdir("/mnt", 0755);
	need(!mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) || errno == EBUSY, "mounting /dev");
	need(!mount("/dev/vda", "/mnt", "ocfs2", 0, NULL), "mounting /dev/vda (ocfs2)");
	int fd = open("/mnt/f0", O_CREAT | O_WRONLY | O_SYNC, 0644);
	need(fd >= 0, "create f0");
	memset(block, 'a', sizeof(block));
	need(pwrite(fd, block, sizeof(block), 0) == (ssize_t)sizeof(block), "write f0 0 4096 O_SYNC");
	close(fd);
	memset(val, 'x', sizeof(val));
	need(!setxattr("/mnt/f0", "user.a", val, sizeof(val), 0), "setxattr f0 user.a");
	umount("/mnt");
	if (logged("possible circular locking dependency detected")) {
		logged("is trying to acquire lock:");
		logged("ocfs2_xattr_ibody_set");
		printf("REPRODUCED: lockdep reports a lock-order inversion in ocfs2's setxattr\n");
		off(1);
	}
	printf("NOT REPRODUCED: no lockdep report (a kernel without PROVE_LOCKING cannot tell)\n");
	off(0);
	return 0;
}
