/* checker_aio.c - checker-aio.so, preloaded into the filesystems' checkers
 * (corrupt_fsck.c): libaio's calls done synchronously, in the calling
 * thread. libocfs2 reads through libaio, a context per batch of reads,
 * and each io_destroy waits for two of the host kernel's RCU grace
 * periods (about 30 ms): fsck.ocfs2 spent 0.2 s of a 0.21 s run on a
 * 64 MiB image asleep there. Here a context is a list of completions in
 * this process's memory: io_submit does each read or write at once with
 * pread/pwrite and queues its event; io_getevents hands them back. The
 * bytes read are the same; only the waiting goes.
 *
 * Built alone (no header of Themis: it runs inside another program) and
 * carried inside themis (.incbin), so every checker run gets it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* preadv, pwritev */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>

/* A context: the completions not yet reaped, in submission order. */
struct aio_ctx {
	long cap, n, head;
	struct io_event *ev;
};

/* What the kernel refuses at submission, before any I/O: -errno, or 0. */
static long refused(const struct iocb *cb)
{
	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PWRITE:
	case IOCB_CMD_PREADV:
	case IOCB_CMD_PWRITEV:
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC: break;
	default: return -EINVAL;
	}
	return fcntl((int)cb->aio_fildes, F_GETFD) < 0 ? -EBADF : 0;
}

/* The request done: its event's res (bytes moved, or -errno). */
static long done_now(const struct iocb *cb)
{
	int fd = (int)cb->aio_fildes;
	void *buf = (void *)(uintptr_t)cb->aio_buf;
	size_t len = (size_t)cb->aio_nbytes;
	off_t off = (off_t)cb->aio_offset;
	ssize_t r;
	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PREAD: r = pread(fd, buf, len, off); break;
	case IOCB_CMD_PWRITE: r = pwrite(fd, buf, len, off); break;
	case IOCB_CMD_PREADV: r = preadv(fd, buf, (int)len, off); break;
	case IOCB_CMD_PWRITEV: r = pwritev(fd, buf, (int)len, off); break;
	case IOCB_CMD_FSYNC: r = fsync(fd); break;
	default: r = fdatasync(fd); break;
	}
	return r < 0 ? -errno : r;
}

int io_setup(int maxevents, void **ctxp)
{
	if (maxevents <= 0 || !ctxp)
		return -EINVAL;
	struct aio_ctx *c = calloc(1, sizeof(*c));
	if (!c || !(c->ev = calloc((size_t)maxevents, sizeof(*c->ev)))) {
		free(c);
		return -EAGAIN;
	}
	c->cap = maxevents;
	*ctxp = c;
	return 0;
}

int io_destroy(void *ctx)
{
	struct aio_ctx *c = ctx;
	if (!c)
		return -EINVAL;
	free(c->ev);
	free(c);
	return 0;
}

int io_queue_init(int maxevents, void **ctxp)
{
	return io_setup(maxevents, ctxp);
}

int io_queue_release(void *ctx)
{
	return io_destroy(ctx);
}

/* Room for one more completion: the kernel's ring holds more than
 * io_setup asked for (it rounds up), so a full context grows rather than
 * refuse. 0, or -EAGAIN without memory. */
static int room(struct aio_ctx *c)
{
	if (c->n < c->cap)
		return 0;
	struct io_event *ev = calloc((size_t)c->cap * 2, sizeof(*ev));
	if (!ev)
		return -EAGAIN;
	for (long k = 0; k < c->n; k++)
		ev[k] = c->ev[(c->head + k) % c->cap];
	free(c->ev);
	c->ev = ev, c->head = 0, c->cap *= 2;
	return 0;
}

/* As the kernel: the number of requests taken, or -errno when the
 * first is refused; a refusal later stops the batch there. */
int io_submit(void *ctx, long nr, struct iocb **ios)
{
	struct aio_ctx *c = ctx;
	if (!c || nr < 0)
		return -EINVAL;
	long k = 0;
	for (; k < nr; k++) {
		long why = room(c);
		if (!why)
			why = refused(ios[k]);
		if (why)
			return k ? (int)k : (int)why;
		long slot = (c->head + c->n++) % c->cap;
		c->ev[slot] = (struct io_event){.data = ios[k]->aio_data,
						.obj = (uint64_t)(uintptr_t)ios[k],
						.res = done_now(ios[k])};
	}
	return (int)k;
}

int io_getevents(void *ctx, long min_nr, long nr, struct io_event *events, struct timespec *timeout)
{
	/* Every request taken is complete: nothing to wait for, whatever
	 * min_nr and timeout ask. */
	(void)min_nr, (void)timeout;
	struct aio_ctx *c = ctx;
	if (!c || nr < 0)
		return -EINVAL;
	long k = 0;
	for (; k < nr && c->n > 0; k++, c->n--) {
		events[k] = c->ev[c->head];
		c->head = (c->head + 1) % c->cap;
	}
	return (int)k;
}

int io_cancel(void *ctx, struct iocb *iocb, struct io_event *evt)
{
	(void)ctx, (void)iocb, (void)evt;
	return -EAGAIN; /* done at submission: nothing is in flight */
}
