/* repro.c - reiserfs: mounting a disk whose private root (.reiserfs_priv)
 * is not a directory calls a NULL ->lookup (docs/findings.md, F18).
 * reiserfs_xattr_init looks "xattrs" up in the private root with
 * lookup_one_len, which calls the inode's ->lookup without asking whether
 * it has one; a damaged item location makes the private root's stat data
 * any bytes, so the inode can be a file, and the kernel jumps to address 0.
 *
 *   repro DEV MNT   mounts DEV (reiserfs) on MNT in a child process, with
 *                   panic_on_oops off, and reads the kernel's log after it
 * Exit status: 1 REPRODUCED (the mount died in an oops), 0 NOT REPRODUCED
 * (it returned: mounted or refused), 2 it could not run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOG_MAX (1 << 20)

/* The kernel's first log line holding `what` after byte `from`, printed. */
static int show_log(const char *what, size_t from)
{
	static char log[LOG_MAX];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, LOG_MAX - 1);
	if (n < 0 || (size_t)n <= from)
		return 0;
	log[n] = 0;
	char *at = strstr(log + from, what);
	if (!at)
		return 0;
	while (at > log && at[-1] != '\n')
		at--;
	printf("the kernel: %.*s\n", (int)strcspn(at, "\n"), at);
	return 1;
}

/* How many bytes the kernel's log holds now: where the mount's lines start. */
static size_t log_size(void)
{
	static char log[LOG_MAX];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, LOG_MAX - 1);
	return n > 0 ? (size_t)n : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return fprintf(stderr, "usage: %s DEV MNT\n", argv[0]), 2;
	int fd = open("/proc/sys/kernel/panic_on_oops", O_WRONLY);
	if (fd < 0 || write(fd, "0\n", 2) != 2) /* the oops kills the child, not the machine */
		return fprintf(stderr, "cannot turn panic_on_oops off: %s\n", strerror(errno)), 2;
	close(fd);
	size_t from = log_size();
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 2;
	if (pid == 0)
		_exit(mount(argv[1], argv[2], "reiserfs", 0, NULL) ? errno : 0);
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return perror("waitpid"), 2;
	if (WIFSIGNALED(st)) {
		printf("REPRODUCED: mounting %s killed the mount by signal %d (an oops)\n", argv[1],
		       WTERMSIG(st));
		if (!show_log("NULL pointer", from) && !show_log("Unable to handle", from))
			show_log("Oops", from);
		show_log("RIP:", from);
		return 1;
	}
	int err = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (err == 0)
		umount(argv[2]);
	printf("NOT REPRODUCED: the mount returned (%s)\n", err ? strerror(err) : "mounted");
	show_log("xattr root", from);
	return 0;
}
