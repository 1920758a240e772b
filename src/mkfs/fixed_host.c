/*
 * mkfs-fixed.so: the host as the mkfs tools see it, made a constant, so
 * that scripts/mkimages.sh makes the same image bytes on every machine and
 * every run. A base image is part of a trace's identity (its hash is in
 * every trace), and a finding reproduces only on the image it was found
 * on: mkfs.btrfs, mkfs.jfs, mkfs.nilfs2 and mkfs.ocfs2 draw UUIDs, seeds
 * and salts from getrandom or /dev/urandom (directly or through libuuid),
 * and mkfs.jfs writes its log pages from a stack buffer it never clears,
 * so the clock's readings, the stack canary and the environment it ran
 * with land on the disk. Two images made in a row differed, and F15's
 * crash states with them (docs/findings.md).
 *
 * Preloaded (LD_PRELOAD) into each tool by mkimages.sh, which also gives
 * it a new pid namespace (mkfs.gfs2 seeds its journal's sequence with
 * getpid()), no address randomization, a fixed environment and a relative
 * file name:
 *   - the clock is frozen at FIXED_TIME (seconds since the epoch, from the
 *     environment), every clock alike, to the nanosecond;
 *   - getrandom and getentropy fill from a fixed stream, and an open of
 *     /dev/urandom or /dev/random gets a memory file holding the stream's
 *     next bytes; every process starts the stream at the same seed, so a
 *     tool's draws depend only on what it asks for, in order;
 *   - the stack canary is a constant (x86_64), set before main (not the
 *     pointer guard beside it: a library initialized before this one has
 *     mangled its exit handlers with it, and mkfs.ocfs2 then crashes at
 *     exit, so mkfs.jfs's stale stack keeps mangled pointers that differ);
 *   - a regular file's stat says inode 1 and FIXED_TIME for every time
 *     (the image file's own, which mkfs.jfs's stack also keeps).
 * Not for anything that needs secrets or time: that is the point of it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, O_TMPFILE, RTLD_NEXT, stat64 (repro.sh builds it bare) */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define FE_SEED	      0x7468656d69732d31ULL /* "themis-1" */
#define FE_DEVICE_LEN (1u << 20)	    /* bytes an open random device holds */

static uint64_t fe_state = FE_SEED;
static time_t fe_time; /* FIXED_TIME */

/* Before main (and before any protected frame that returns through the
 * change): the frozen time, and a constant canary in place of the
 * kernel's random AT_RANDOM one, which stale frames leave in the stack
 * mkfs.jfs writes out. */
__attribute__((constructor)) static void fe_init(void)
{
	const char *t = getenv("FIXED_TIME");
	fe_time = t ? (time_t)strtoll(t, NULL, 10) : 0;
#if defined(__x86_64__)
	__asm__ volatile("movq %0, %%fs:0x28" : : "r"(0x7468656d69730000ULL));
#endif
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	(void)clock;
	ts->tv_sec = fe_time;
	ts->tv_nsec = 0;
	return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	(void)tz;
	*tv = (struct timeval){.tv_sec = fe_time};
	return 0;
}

time_t time(time_t *t)
{
	if (t)
		*t = fe_time;
	return fe_time;
}

/* splitmix64: a fixed, well-mixed stream from one word of state (as
 * src/util/rng.h; this file includes nothing of Themis, since repro.sh
 * builds it alone). */
static uint64_t fe_next(void)
{
	uint64_t z = (fe_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fe_fill(void *buf, size_t len)
{
	unsigned char *p = buf;
	while (len) {
		uint64_t w = fe_next();
		size_t n = len < sizeof(w) ? len : sizeof(w);
		memcpy(p, &w, n);
		p += n;
		len -= n;
	}
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	(void)flags;
	fe_fill(buf, len);
	return (ssize_t)len;
}

int getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	fe_fill(buf, len);
	return 0;
}

static int fe_is_random_device(const char *path)
{
	return path && (!strcmp(path, "/dev/urandom") || !strcmp(path, "/dev/random"));
}

/* A memory file holding the stream's next FE_DEVICE_LEN bytes, read from
 * its start: what the tool reads from the device. -1 (errno set) when the
 * kernel gives no memory file. */
static int fe_device(void)
{
	static unsigned char chunk[4096];
	int fd = memfd_create("mkfs-fixed", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < FE_DEVICE_LEN; done += sizeof(chunk)) {
		fe_fill(chunk, sizeof(chunk));
		if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
			close(fd);
			errno = EIO;
			return -1;
		}
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The real function `name`, or NULL (errno ENOSYS) when the loader has
 * none. */
static void *fe_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f)
		errno = ENOSYS;
	return f;
}

/* An open(2)-like call: the device's stream, else the real one. */
#define FE_OPEN(name, params, args, path)                                                          \
	int name params                                                                            \
	{                                                                                          \
		mode_t mode = 0;                                                                   \
		if (flags & (O_CREAT | O_TMPFILE)) {                                               \
			va_list ap;                                                                \
			va_start(ap, flags);                                                       \
			mode = va_arg(ap, mode_t);                                                 \
			va_end(ap);                                                                \
		}                                                                                  \
		if (fe_is_random_device(path))                                                     \
			return fe_device();                                                        \
		int(*real) params = (int(*) params)fe_real(#name);                                 \
		return real ? real args : -1;                                                      \
	}

FE_OPEN(open, (const char *path, int flags, ...), (path, flags, mode), path)
FE_OPEN(open64, (const char *path, int flags, ...), (path, flags, mode), path)
FE_OPEN(openat, (int dir, const char *path, int flags, ...), (dir, path, flags, mode), path)
FE_OPEN(openat64, (int dir, const char *path, int flags, ...), (dir, path, flags, mode), path)

/* _FORTIFY_SOURCE's checked opens (glibc calls them for a flags argument
 * it cannot see at compile time). */
int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return open64(path, flags);
}

static FILE *fe_fopen(const char *name, const char *path, const char *how)
{
	if (fe_is_random_device(path)) {
		int fd = fe_device();
		FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
		if (!f && fd >= 0)
			close(fd);
		return f;
	}
	FILE *(*real)(const char *, const char *) =
	    (FILE * (*)(const char *, const char *)) fe_real(name);
	return real ? real(path, how) : NULL;
}

FILE *fopen(const char *path, const char *how)
{
	return fe_fopen("fopen", path, how);
}

FILE *fopen64(const char *path, const char *how)
{
	return fe_fopen("fopen64", path, how);
}

/* A regular file's identity and times as every host would give them. */
static void fe_stat(int rc, struct stat *st)
{
	if (rc != 0 || !S_ISREG(st->st_mode))
		return;
	st->st_ino = 1;
	st->st_atim = st->st_mtim = st->st_ctim = (struct timespec){.tv_sec = fe_time};
}

/* A stat(2)-like call: the real one's answer through fe_stat. stat64 is
 * struct stat on the 64-bit hosts this builds for. */
#define FE_STAT(name, params, types, args)                                                         \
	int name params                                                                            \
	{                                                                                          \
		int(*real) types = (int(*) types)fe_real(#name);                                   \
		int rc = real ? real args : -1;                                                    \
		fe_stat(rc, (struct stat *)st);                                                    \
		return rc;                                                                         \
	}

FE_STAT(stat, (const char *restrict p, struct stat *restrict st), (const char *, struct stat *),
	(p, st))
FE_STAT(lstat, (const char *restrict p, struct stat *restrict st), (const char *, struct stat *),
	(p, st))
FE_STAT(fstat, (int fd, struct stat *st), (int, struct stat *), (fd, st))
FE_STAT(fstatat, (int dir, const char *restrict p, struct stat *restrict st, int flags),
	(int, const char *, struct stat *, int), (dir, p, st, flags))
FE_STAT(stat64, (const char *restrict p, struct stat64 *restrict st),
	(const char *, struct stat64 *), (p, st))
FE_STAT(lstat64, (const char *restrict p, struct stat64 *restrict st),
	(const char *, struct stat64 *), (p, st))
FE_STAT(fstat64, (int fd, struct stat64 *st), (int, struct stat64 *), (fd, st))
FE_STAT(fstatat64, (int dir, const char *restrict p, struct stat64 *restrict st, int flags),
	(int, const char *, struct stat64 *, int), (dir, p, st, flags))

/* The old stat ABI (glibc before 2.33), which mkfs.jfs, mkfs.vfat,
 * mkreiserfs and mkfs.udf still call. */
int __xstat(int ver, const char *p, struct stat *st);
int __lxstat(int ver, const char *p, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstatat(int ver, int dir, const char *p, struct stat *st, int flags);
FE_STAT(__xstat, (int ver, const char *p, struct stat *st), (int, const char *, struct stat *),
	(ver, p, st))
FE_STAT(__lxstat, (int ver, const char *p, struct stat *st), (int, const char *, struct stat *),
	(ver, p, st))
FE_STAT(__fxstat, (int ver, int fd, struct stat *st), (int, int, struct stat *), (ver, fd, st))
FE_STAT(__fxstatat, (int ver, int dir, const char *p, struct stat *st, int flags),
	(int, int, const char *, struct stat *, int), (ver, dir, p, st, flags))
