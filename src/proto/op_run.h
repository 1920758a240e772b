/* op_run.h - the operations of op_table.h, implemented once: the guest
 * agent runs them (guest/agent/check.c includes this file) and so does
 * every reproducer (repro.c embeds this file's text in the repro.c it
 * writes), so a reproducer does what the agent did, call for call. Each
 * runs with its working directory and root at one filesystem's test root
 * (chrooted) and umask 0, and returns RET (the call's return, bytes moved,
 * or -1) and ERRNO (0, or what stopped it). Two operations are not here:
 * remount (outside the chroot: each caller unmounts and mounts its own
 * way) and settime (OPF_CLOCK: the machine's clock, the agent's alone).
 * Header-only and libc-only (a static riscv64 program and any Linux's cc
 * compile it), with op_table.h and op_grammar.h before it.
 *
 * Written data is a pattern: byte p of a write of seed S is byte p % 8
 * (little-endian) of number p / 8 of the splitmix64 sequence seeded S,
 * with p the file offset (with append too, though the bytes land at the
 * end of the file); byte i of an xattr value, likewise with p = i. */
#ifndef THEMIS_OP_RUN_H
#define THEMIS_OP_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef THEMIS_OP_GRAMMAR_H
#include "op_grammar.h"
#endif

#define OP_CHUNK (256 * 1024) /* write, read and xattr buffer */
#define OP_BLOCK 4096	      /* O_DIRECT's alignment, the content hash's unit */

/* Aligned for O_DIRECT, which needs the logical block size (512) at least. */
static uint8_t op_chunk[OP_CHUNK] __attribute__((aligned(OP_BLOCK)));

struct op_res {
	long long ret;
	int err;
};

static inline struct op_res op_res_of(long long r)
{
	return (struct op_res){r < 0 ? -1 : r, r < 0 ? errno : 0};
}

/* ---- the data pattern ---- */

/* Number i (from 0) of the splitmix64 sequence seeded with seed. */
static uint64_t op_mix(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull; /* splitmix64's state i + 1 */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* n pattern bytes of `seed` from position pos: byte p is byte p % 8
 * (little-endian) of op_mix(seed, p / 8), so overlapping writes agree. */
static void op_pattern(uint8_t *buf, size_t n, uint64_t seed, uint64_t pos)
{
	for (size_t i = 0; i < n;) {
		uint64_t w = op_mix(seed, (pos + i) / 8);
		for (unsigned b = (unsigned)((pos + i) % 8); b < 8 && i < n; b++)
			buf[i++] = (uint8_t)(w >> (8 * b));
	}
}

/* ---- the operations (cwd: the filesystem's root, chrooted; umask 0) ---- */

static struct op_res op_create(const struct op_args *a)
{
	int fd = open(a->path[0], O_CREAT | O_WRONLY | O_CLOEXEC | a->flags, a->mode);
	if (fd < 0)
		return op_res_of(-1);
	return op_res_of(close(fd));
}

/* pwrite (write with append) in OP_CHUNK pieces: RET the bytes written, ERRNO
 * what stopped it early (with RET -1 when nothing was written). */
static long long op_write_chunks(int fd, const struct op_args *a, int *err)
{
	uint64_t off = a->num[0], size = a->num[1], done = 0;
	bool append = a->flags & O_APPEND;
	do {
		size_t n = size - done < OP_CHUNK ? (size_t)(size - done) : OP_CHUNK;
		op_pattern(op_chunk, n, a->seed, off + done);
		ssize_t w =
		    append ? write(fd, op_chunk, n) : pwrite(fd, op_chunk, n, (off_t)(off + done));
		if (w < 0)
			*err = errno;
		if (w <= 0)
			return done ? (long long)done : w;
		done += (uint64_t)w;
	} while (done < size);
	return (long long)done;
}

static struct op_res op_write(const struct op_args *a)
{
	int fd = open(a->path[0], O_WRONLY | O_CLOEXEC | a->flags);
	if (fd < 0)
		return op_res_of(-1);
	struct op_res r = {0, 0};
	r.ret = op_write_chunks(fd, a, &r.err);
	if (close(fd) < 0 && !r.err)
		r = op_res_of(-1);
	return r;
}

static struct op_res op_truncate(const struct op_args *a)
{
	return op_res_of(truncate(a->path[0], (off_t)a->num[0]));
}

static struct op_res op_unlink(const struct op_args *a)
{
	return op_res_of(unlink(a->path[0]));
}

static struct op_res op_mkdir(const struct op_args *a)
{
	return op_res_of(mkdir(a->path[0], a->mode));
}

static struct op_res op_rmdir(const struct op_args *a)
{
	return op_res_of(rmdir(a->path[0]));
}

static struct op_res op_chmod(const struct op_args *a)
{
	return op_res_of(chmod(a->path[0], a->mode));
}

static struct op_res op_chown(const struct op_args *a)
{
	return op_res_of(lchown(a->path[0], (uid_t)a->num[0], (gid_t)-1));
}

static struct op_res op_chgrp(const struct op_args *a)
{
	return op_res_of(lchown(a->path[0], (uid_t)-1, (gid_t)a->num[0]));
}

/* Past XATTR_SIZE_MAX (64 KiB < OP_CHUNK) the kernel says E2BIG before it
 * reads the value. */
static struct op_res op_setxattr(const struct op_args *a)
{
	size_t n = (size_t)a->num[0];
	op_pattern(op_chunk, n < OP_CHUNK ? n : OP_CHUNK, a->seed, 0);
	return op_res_of(lsetxattr(a->path[0], a->name, op_chunk, n, 0));
}

static struct op_res op_removexattr(const struct op_args *a)
{
	return op_res_of(lremovexattr(a->path[0], a->name));
}

static struct op_res op_rename(const struct op_args *a)
{
	return op_res_of(rename(a->path[0], a->path[1]));
}

static struct op_res op_link(const struct op_args *a)
{
	return op_res_of(link(a->path[0], a->path[1]));
}

static struct op_res op_symlink(const struct op_args *a)
{
	return op_res_of(symlink(a->path[0], a->path[1]));
}

static struct op_res op_fsync(const struct op_args *a)
{
	int fd = open(a->path[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return op_res_of(-1);
	struct op_res r = op_res_of(fsync(fd));
	close(fd);
	return r;
}

static struct op_res op_fallocate(const struct op_args *a)
{
	int fd = open(a->path[0], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return op_res_of(-1);
	struct op_res r = op_res_of(fallocate(fd, a->flags, (off_t)a->num[0], (off_t)a->num[1]));
	close(fd);
	return r;
}

static struct op_res op_fdatasync(const struct op_args *a)
{
	int fd = open(a->path[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return op_res_of(-1);
	struct op_res r = op_res_of(fdatasync(fd));
	close(fd);
	return r;
}

/* Where a store through a mapping faulted (SIGBUS: past the page that
 * holds the end of the file): mwrite jumps back to its caller. */
static sigjmp_buf op_mwrite_fault;

static void op_on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(op_mwrite_fault, 1);
}

/* Stores of the pattern through a shared mapping of [off, off + size),
 * then msync(MS_SYNC). RET the bytes stored; a store past the page that
 * holds the end of the file faults (SIGBUS), and the call returns -1
 * EFAULT, as a program there would die: the bytes stored before it stay.
 * Bytes stored past the end of the file inside its last page are not the
 * file's, and must never show (truncate up afterwards reads zeros). */
static struct op_res op_mwrite(const struct op_args *a)
{
	uint64_t off = a->num[0], size = a->num[1];
	if (!size || size > OP_CHUNK)
		return (struct op_res){-1, size ? EFBIG : EINVAL}; /* as mmap(2) for 0 */
	int fd = open(a->path[0], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return op_res_of(-1);
	uint64_t start = off & ~(uint64_t)(OP_BLOCK - 1), len = off + size - start;
	uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);
	if (map == MAP_FAILED) {
		struct op_res r = op_res_of(-1);
		close(fd);
		return r;
	}
	op_pattern(op_chunk, size, a->seed, off);
	struct sigaction sa = {.sa_handler = op_on_sigbus}, old;
	sigaction(SIGBUS, &sa, &old);
	volatile uint64_t done = 0;
	struct op_res r = {0, 0};
	if (sigsetjmp(op_mwrite_fault, 1) == 0) {
		for (; done < size; done++)
			map[off - start + done] = op_chunk[done];
		r = op_res_of(msync(map, len, MS_SYNC));
	} else {
		r = (struct op_res){-1, EFAULT};
	}
	sigaction(SIGBUS, &old, NULL);
	if (!r.err)
		r.ret = (long long)done;
	munmap(map, len);
	close(fd);
	return r;
}

static struct op_res op_renameat2(const struct op_args *a)
{
	return op_res_of(renameat2(AT_FDCWD, a->path[0], AT_FDCWD, a->path[1], (unsigned)a->flags));
}

/* copy_file_range of [off, off + len) of SRC to the same offset of DST
 * (which must exist), until done or a call copies nothing: RET the bytes
 * copied, ERRNO what stopped it early. */
static struct op_res op_copyrange(const struct op_args *a)
{
	int in = open(a->path[0], O_RDONLY | O_CLOEXEC), out = -1;
	if (in < 0 || (out = open(a->path[1], O_WRONLY | O_CLOEXEC)) < 0) {
		struct op_res r = op_res_of(-1);
		if (in >= 0)
			close(in);
		return r;
	}
	loff_t ipos = (loff_t)a->num[0], opos = (loff_t)a->num[0];
	uint64_t len = a->num[1], done = 0;
	struct op_res r = {0, 0};
	while (done < len) {
		ssize_t n = copy_file_range(in, &ipos, out, &opos, (size_t)(len - done), 0);
		if (n < 0)
			r.err = errno;
		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
	r.ret = done || !r.err ? (long long)done : -1;
	close(in);
	if (close(out) < 0 && !r.err)
		r = op_res_of(-1);
	return r;
}

static struct op_res op_sync(const struct op_args *a)
{
	(void)a;
	int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return op_res_of(-1);
	struct op_res r = op_res_of(syncfs(fd));
	close(fd);
	return r;
}

static struct op_res op_stat(const struct op_args *a)
{
	struct stat st;
	return op_res_of(lstat(a->path[0], &st));
}

/* RET the bytes read (a cold read's probe for the io lens). */
static struct op_res op_read(const struct op_args *a)
{
	int fd = open(a->path[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return op_res_of(-1);
	uint64_t off = a->num[0], size = a->num[1], done = 0;
	struct op_res r = {0, 0};
	while (done < size) {
		size_t n = size - done < OP_CHUNK ? (size_t)(size - done) : OP_CHUNK;
		ssize_t got = pread(fd, op_chunk, n, (off_t)(off + done));
		if (got < 0)
			r = op_res_of(-1);
		if (got <= 0)
			break;
		done += (uint64_t)got;
	}
	if (!r.err)
		r.ret = (long long)done;
	close(fd);
	return r;
}

/* An E argument as an instant: relative ones from the clock's now. */
static struct timespec op_instant(const struct op_args *a)
{
	struct timespec t = a->when;
	if (a->when_relative) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		t.tv_sec += now.tv_sec;
		t.tv_nsec += now.tv_nsec;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
	}
	return t;
}

/* utimensat: atime and mtime to the instant (ctime to the clock's now). */
static struct op_res op_utimes(const struct op_args *a)
{
	struct timespec t[2];
	t[0] = t[1] = op_instant(a);
	return op_res_of(utimensat(AT_FDCWD, a->path[0], t, AT_SYMLINK_NOFOLLOW));
}

#endif
