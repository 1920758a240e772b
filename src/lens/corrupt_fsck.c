/* corrupt_fsck.c - see corrupt_fsck.h. Which checker each filesystem has,
 * and how it is asked to change nothing, is its descriptor's (src/fs). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../disk/disk.h"
#include "../util/clock.h"
#include "../fs/fs.h"
#include "../util/embed.h"
#include "corrupt_fsck.h"

const char *corrupt_fsck_name(enum corrupt_fsck_verdict v)
{
	static const char *const names[] = {
#define CORRUPT_FSCK_NAME(name, text) text,
	    CORRUPT_FSCK_VERDICTS(CORRUPT_FSCK_NAME)
#undef CORRUPT_FSCK_NAME
	};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

/* fs's checker, or NULL when it has none (or Themis does not know fs). */
static const struct fs_desc *checker_of(const char *fs)
{
	const struct fs_desc *d = fs_find(fs);
	return d && d->fsck[0] ? d : NULL;
}

bool corrupt_fsck_exists(const char *fs)
{
	return checker_of(fs) != NULL;
}

const char *corrupt_fsck_command(const char *fs)
{
	static char line[128];
	const struct fs_desc *d = checker_of(fs);
	return d ? fs_join(d->fsck, FS_ARGV_MAX, line, sizeof(line)) : NULL;
}

/* Whether `tool` is an executable file in a folder of $PATH (or the
 * system folders, where fsck tools live and $PATH may not reach): its
 * path into full. */
static bool installed(const char *tool, char *full, size_t cap)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "");
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(full, cap, "%s/%s", d, tool);
		if (!access(full, X_OK))
			return true;
	}
	return false;
}

/* src/fsck/checker_aio.c built (build/lib/checker-aio.so), carried here
 * as bytes [start, end): a checker that reads through libaio does its
 * reads at once instead of sleeping in the host kernel's io_destroy. */
EMBED_FILE(checker_aio, "build/lib/checker-aio.so");

/* The memfd is not close-on-exec, so a checker has it at the same N,
 * and workers forked later inherit it. */
void corrupt_fsck_preload(char *out, size_t cap)
{
	static int fd = -1; /* made once a process, for every checker after */
	out[0] = 0;
	if (fd < 0) {
		size_t len = (size_t)(checker_aio_end - checker_aio_start);
		int m = memfd_create("checker-aio.so", 0);
		if (m >= 0 && m < 3) { /* clear of the checker's stdin, stdout, stderr */
			int high = fcntl(m, F_DUPFD, 3);
			close(m);
			m = high;
		}
		if (m < 0)
			return;
		if (write(m, checker_aio_start, len) != (ssize_t)len) {
			close(m);
			return;
		}
		fd = m;
	}
	snprintf(out, cap, "/proc/self/fd/%d", fd);
}

/* The checker's environment: ours with the system folders on PATH,
 * LC_ALL=C (its words in English, for read_output) and checker-aio.so
 * preloaded ahead of any other library the caller preloads. The strings
 * it adds go into room. NULL: no memory. */
static char **checker_env(char (*room)[4200])
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = malloc((n + 4) * sizeof(*env));
	if (!env)
		return NULL;
	const char *p = getenv("PATH"), *pre = getenv("LD_PRELOAD");
	char lib[64];
	corrupt_fsck_preload(lib, sizeof(lib));
	snprintf(room[0], sizeof(room[0]), "PATH=%s:/usr/sbin:/sbin", p ? p : "/usr/bin:/bin");
	snprintf(room[1], sizeof(room[1]), "LD_PRELOAD=%s%s%s", lib, lib[0] && pre ? ":" : "",
		 pre ? pre : "");
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "PATH=", 5) && strncmp(environ[i], "LC_ALL=", 7) &&
		    strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	env[k++] = room[0];
	env[k++] = room[1];
	env[k++] = "LC_ALL=C";
	env[k] = NULL;
	return env;
}

/* A checker's threads take their stack size from RLIMIT_STACK (glibc's
 * default for a thread's stack is the limit): xfs_repair starts some 145
 * threads a run, and with 8 MiB stacks spent a quarter of its time (user
 * and system) mapping and unmapping them on a 300 MiB image. A checker
 * inherits the limit, so it is lowered around the spawn, never below
 * what this process's own stack already holds (nothing else runs here
 * while it is low: a process of Themis has one thread). */
#define CHECKER_STACK	   (1u << 20)
#define CHECKER_STACK_ROOM (256u << 10) /* above this process's stack in use */

extern void *__libc_stack_end;

static bool lower_stack_limit(struct rlimit *was)
{
	if (getrlimit(RLIMIT_STACK, was))
		return false;
	size_t used = (size_t)((char *)__libc_stack_end - (char *)__builtin_frame_address(0));
	rlim_t want =
	    used + CHECKER_STACK_ROOM > CHECKER_STACK ? used + CHECKER_STACK_ROOM : CHECKER_STACK;
	if (was->rlim_cur != RLIM_INFINITY && was->rlim_cur <= want)
		return false;
	struct rlimit low = {.rlim_cur = want, .rlim_max = was->rlim_max};
	return setrlimit(RLIMIT_STACK, &low) == 0;
}

/* fsck.ocfs2 sizes its block cache by the host's free memory (256 MiB
 * a journal slot, capped by what is free) and mlock()s it, halving until
 * the lock holds: on a 24 GiB host 0.22 s of system time in each 0.45 s
 * run on a 64 MiB image. A checker gets no right to lock memory:
 * RLIMIT_MEMLOCK 0 around the spawn, and CAP_IPC_LOCK (which a root
 * process's limit does not bind) out of the bounding set its exec takes
 * capabilities from; fsck.ocfs2 then settles, as its source intends for
 * an unprivileged caller, on 512 blocks unlocked. What it finds cannot
 * depend on its cache. This process keeps the capability and uses none. */
static bool lower_memlock_limit(struct rlimit *was)
{
	(void)prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0); /* EPERM unprivileged: no matter */
	if (getrlimit(RLIMIT_MEMLOCK, was) || was->rlim_cur == 0)
		return false;
	struct rlimit none = {.rlim_cur = 0, .rlim_max = was->rlim_max};
	return setrlimit(RLIMIT_MEMLOCK, &none) == 0;
}

/* Start argv with the full path tool: its own process group (a timeout
 * kills all of it), no input, both outputs into fd. posix_spawn, not
 * fork: a machine's process maps gigabytes, whose page tables a fork
 * would copy at every one of thousands of runs. The pid, or -1. */
static pid_t spawn(const char *tool, const char *const *argv, int fd)
{
	char room[2][4200];
	char **env = checker_env(room);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid = -1;
	if (!env)
		return -1;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		if (posix_spawnattr_init(&at) == 0) {
			if (!posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) &&
			    !posix_spawn_file_actions_adddup2(&fa, fd, 1) &&
			    !posix_spawn_file_actions_adddup2(&fa, fd, 2) &&
			    !posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP) &&
			    !posix_spawnattr_setpgroup(&at, 0)) {
				struct rlimit stack, memlock;
				bool low_stack = lower_stack_limit(&stack);
				bool low_memlock = lower_memlock_limit(&memlock);
				if (posix_spawn(&pid, tool, &fa, &at, (char *const *)argv, env))
					pid = -1;
				if (low_stack) /* back as they were */
					(void)setrlimit(RLIMIT_STACK, &stack);
				if (low_memlock)
					(void)setrlimit(RLIMIT_MEMLOCK, &memlock);
			}
			posix_spawnattr_destroy(&at);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	free(env);
	return pid;
}

/* Spawn argv as the program at path `tool`, its output into out. */
static int spawn_tool(struct corrupt_fsck *c, const char *tool, const char *const *argv,
		      const char *out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		c->now = CORRUPT_FSCK_NOT_RUN;
		return -1;
	}
	pid_t pid = spawn(tool, argv, fd);
	close(fd);
	if (pid < 0) {
		c->now = CORRUPT_FSCK_NOT_RUN;
		return -1;
	}
	c->pid = pid;
	return 0;
}

int corrupt_fsck_spawn(struct corrupt_fsck *c, const char *const *argv, const char *out)
{
	char tool[4200];
	if (!installed(argv[0], tool, sizeof(tool))) {
		c->now = CORRUPT_FSCK_MISSING;
		return 0;
	}
	return spawn_tool(c, tool, argv, out);
}

int corrupt_fsck_start(struct corrupt_fsck *c, const char *fs, const char *image, const char *out)
{
	memset(c, 0, sizeof(*c));
	c->fs = fs;
	snprintf(c->out, sizeof(c->out), "%s", out);
	const struct fs_desc *d = checker_of(fs);
	if (!d) {
		c->now = CORRUPT_FSCK_NONE;
		return 0;
	}
	const char *argv[FS_ARGV_MAX + 2] = {0};
	int n = 0;
	for (; n < FS_ARGV_MAX && d->fsck[n]; n++)
		argv[n] = d->fsck[n];
	argv[n] = image;
	/* The same checker built another way, when it is installed. */
	char twin[4200];
	if (d->fsck_same && installed(d->fsck_same, twin, sizeof(twin)))
		return spawn_tool(c, twin, argv, out);
	return corrupt_fsck_spawn(c, argv, out);
}

/* The words that make a line of a checker's output a problem it names. */
static bool names_problem(const char *line)
{
	static const char *const words[] = {
	    "error",	"invalid",	 "corrupt",	  "bad ",     "wrong",
	    "mismatch", "fail",		 "damaged",	  "illegal",  "not match",
	    "unable",	"trying backup", "verify failed", "should be"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasestr(line, words[i]))
			return true;
	return false;
}

/* What a checker says of a problem it then reports with exit status 0:
 * e2fsck -n falls back to a backup superblock, btrfs check reads the
 * other copy of a metadata block that failed its checksum. */
static const char *const found_anyway[] = {"trying backup", "checksum verify failed"};

/* The first line of the output naming a problem, into said; whether one
 * says a problem of found_anyway. */
static bool read_output(const char *out, char *said, size_t saidlen)
{
	said[0] = 0;
	FILE *f = fopen(out, "r");
	if (!f)
		return false;
	char line[512];
	bool backup = false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		for (size_t i = 0; i < sizeof(found_anyway) / sizeof(found_anyway[0]); i++)
			backup |= strcasestr(line, found_anyway[i]) != NULL;
		if (!said[0] && names_problem(line))
			snprintf(said, saidlen, "%s", line);
	}
	fclose(f);
	return backup;
}

enum corrupt_fsck_verdict corrupt_fsck_wait(struct corrupt_fsck *c, double timeout_s, int *status,
					    char *said, size_t saidlen)
{
	*status = -1;
	said[0] = 0;
	if (!c->pid)
		return c->now;
	double until = host_seconds() + timeout_s;
	int ws = 0;
	pid_t got;
	while ((got = waitpid(c->pid, &ws, WNOHANG)) == 0 && host_seconds() < until) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	bool timed_out = got == 0;
	if (timed_out) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, &ws, 0) < 0 && errno == EINTR)
			;
	}
	c->pid = 0;
	bool backup = read_output(c->out, said, saidlen);
	if (timed_out)
		return c->now = CORRUPT_FSCK_TIMEOUT;
	if (got < 0)
		return c->now = CORRUPT_FSCK_NOT_RUN;
	if (WIFSIGNALED(ws))
		return c->now = CORRUPT_FSCK_CRASHED;
	*status = WEXITSTATUS(ws);
	if (*status == 127)
		return c->now = CORRUPT_FSCK_NOT_RUN;
	if (!*status && !backup) {
		said[0] = 0; /* what a clean run says is not a problem ("no error found") */
		return c->now = CORRUPT_FSCK_CLEAN;
	}
	return c->now = CORRUPT_FSCK_ERRORS;
}

const char *corrupt_fsck_scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	return tmp;
}

enum corrupt_fsck_verdict corrupt_fsck_disk(const struct disk *d, const char *fs, double timeout_s,
					    int *status, char *said, size_t saidlen)
{
	const char *tmp = corrupt_fsck_scratch_dir();
	char image[4096], out[4200], err[512];
	*status = -1;
	said[0] = 0;
	snprintf(image, sizeof(image), "%s/themis-fsck-XXXXXX", tmp);
	int fd = mkstemp(image);
	if (fd < 0) {
		snprintf(said, saidlen, "%s: %s", image, strerror(errno));
		return CORRUPT_FSCK_NOT_RUN;
	}
	close(fd);
	snprintf(out, sizeof(out), "%s.fsck", image);
	struct corrupt_fsck fc;
	enum corrupt_fsck_verdict v = CORRUPT_FSCK_NOT_RUN;
	if (disk_save(d, image, err, sizeof(err)))
		snprintf(said, saidlen, "%.200s", err);
	else if (!corrupt_fsck_start(&fc, fs, image, out))
		v = corrupt_fsck_wait(&fc, timeout_s, status, said, saidlen);
	/* The scratch name is no part of what the checker found. */
	char *at = strstr(said, image);
	if (at)
		memmove(at, at + strlen(image) + (at[strlen(image)] == ':'),
			strlen(at + strlen(image) + (at[strlen(image)] == ':')) + 1);
	unlink(image);
	unlink(out);
	return v;
}
