/* tier: fast */
/* test_checker_aio.c - the library every checker is given
 * (src/fsck/checker_aio.c, libaio's calls done at once), exactly as
 * corrupt_fsck_preload hands it to them, against Debian's libaio
 * (libaio1, the kernel's asynchronous I/O): the same requests, the same
 * answers to each call, the same events and the same bytes. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>

#include "lens/corrupt_fsck.h"
#include "unit.h"

/* One implementation of the five calls libocfs2 makes. */
struct aio_impl {
	const char *what;
	void *lib;
	int (*init)(int, void **);
	int (*release)(void *);
	int (*submit)(void *, long, struct iocb **);
	int (*getevents)(void *, long, long, struct io_event *, struct timespec *);
};

static bool load(struct aio_impl *a, const char *what, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->what = what;
	if (!CHECK((a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL)) {
		printf("  %s (%s): %s\n", what, path, dlerror());
		return false;
	}
	*(void **)&a->init = dlsym(a->lib, "io_queue_init");
	*(void **)&a->release = dlsym(a->lib, "io_queue_release");
	*(void **)&a->submit = dlsym(a->lib, "io_submit");
	*(void **)&a->getevents = dlsym(a->lib, "io_getevents");
	return CHECK(a->init && a->release && a->submit && a->getevents);
}

/* What a run of the script below saw: every call's answer, each event
 * (by request: res, and whether data and obj came back), the bytes. */
#define NREQ 9
struct seen {
	int ret[16];
	int nret;
	long res[NREQ];
	bool data_ok[NREQ], obj_ok[NREQ];
	int events[NREQ]; /* how often each request's event came back */
	uint8_t buf[NREQ][1024];
};

static void prep(struct iocb *cb, int i, int op, int fd, void *buf, size_t len, long long off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_data = 1000 + (uint64_t)i;
	cb->aio_lio_opcode = (uint16_t)op;
	cb->aio_fildes = (uint32_t)fd;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
}

/* Reap what is there (a zero timeout: the real kernel's ring may still be
 * filling, so it is asked until `want` came or it answers nothing). */
static void reap(const struct aio_impl *a, void *ctx, struct iocb *cbs, struct seen *s, int want)
{
	struct io_event ev[NREQ];
	struct timespec zero = {0, 0};
	for (int got = 0, tries = 0; got < want && tries < 1000; tries++) {
		int n = a->getevents(ctx, 0, NREQ, ev, &zero);
		if (n < 0) {
			s->ret[s->nret++] = n;
			return;
		}
		for (int k = 0; k < n; k++) {
			struct iocb *cb = (struct iocb *)(uintptr_t)ev[k].obj;
			long i = cb - cbs;
			if (!CHECK(i >= 0 && i < NREQ))
				continue;
			s->res[i] = (long)ev[k].res;
			s->data_ok[i] = ev[k].data == cb->aio_data;
			s->obj_ok[i] = true;
			s->events[i]++;
		}
		got += n;
	}
}

static void script(const struct aio_impl *a, int in, int out, struct seen *s)
{
	struct iocb cbs[NREQ], *p[NREQ];
	for (int i = 0; i < NREQ; i++)
		p[i] = &cbs[i];
	memset(s, 0, sizeof(*s));
	void *ctx = NULL;
	s->ret[s->nret++] = a->init(2, &ctx);
	/* Three reads for a context of two (the kernel rounds its ring up):
	 * whole, short at the end of the file, and a vector. */
	struct iovec v[2] = {{s->buf[2], 100}, {s->buf[2] + 500, 200}};
	prep(&cbs[0], 0, IOCB_CMD_PREAD, in, s->buf[0], 1024, 4096);
	prep(&cbs[1], 1, IOCB_CMD_PREAD, in, s->buf[1], 1000, 65000);
	prep(&cbs[2], 2, IOCB_CMD_PREADV, in, v, 2, 10);
	s->ret[s->nret++] = a->submit(ctx, 3, p);
	reap(a, ctx, cbs, s, 3);
	/* A write, then the same bytes read back. */
	memset(s->buf[3], 0x5a, 512);
	prep(&cbs[3], 3, IOCB_CMD_PWRITE, out, s->buf[3], 512, 100);
	s->ret[s->nret++] = a->submit(ctx, 1, &p[3]);
	reap(a, ctx, cbs, s, 1);
	prep(&cbs[4], 4, IOCB_CMD_PREAD, out, s->buf[4], 1024, 0);
	s->ret[s->nret++] = a->submit(ctx, 1, &p[4]);
	reap(a, ctx, cbs, s, 1);
	/* Refusals: a batch stops at a closed descriptor (the one before it
	 * taken); a first request refused is the call's error. */
	prep(&cbs[5], 5, IOCB_CMD_PREAD, in, s->buf[5], 64, 0);
	prep(&cbs[6], 6, IOCB_CMD_PREAD, 999, s->buf[6], 64, 0);
	s->ret[s->nret++] = a->submit(ctx, 2, &p[5]);
	s->ret[s->nret++] = a->submit(ctx, 1, &p[6]);
	prep(&cbs[7], 7, 99, in, s->buf[7], 64, 0);
	s->ret[s->nret++] = a->submit(ctx, 1, &p[7]);
	reap(a, ctx, cbs, s, 1);
	/* Nothing pending: nothing comes back. */
	struct io_event ev;
	struct timespec zero = {0, 0};
	s->ret[s->nret++] = a->getevents(ctx, 0, 1, &ev, &zero);
	/* A read past the end of the file. */
	prep(&cbs[8], 8, IOCB_CMD_PREAD, in, s->buf[8], 512, 1 << 20);
	s->ret[s->nret++] = a->submit(ctx, 1, &p[8]);
	reap(a, ctx, cbs, s, 1);
	s->ret[s->nret++] = a->release(ctx);
}

/* A scratch file of `len` bytes, byte k = k * 7 + 3 (or zeros). */
static int scratch(size_t len, bool pattern)
{
	char path[] = "/tmp/themis-aio-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	uint8_t *b = calloc(1, len);
	for (size_t k = 0; b && pattern && k < len; k++)
		b[k] = (uint8_t)(k * 7 + 3);
	bool ok = b && write(fd, b, len) == (ssize_t)len;
	free(b);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_same_as_libaio(void)
{
	char path[64];
	corrupt_fsck_preload(path, sizeof(path));
	if (!CHECK(path[0] != 0))
		return;
	struct aio_impl ours, real;
	if (!load(&ours, "checker-aio.so", path) || !load(&real, "libaio", "libaio.so.1"))
		return;
	CHECK(ours.submit != real.submit);
	struct seen *s = calloc(2, sizeof(*s));
	const struct aio_impl *impl[2] = {&ours, &real};
	for (int k = 0; s && k < 2; k++) {
		int in = scratch(65536, true), out = scratch(4096, false);
		if (!CHECK(in >= 0 && out >= 0))
			break;
		script(impl[k], in, out, &s[k]);
		close(in);
		close(out);
	}
	if (s && CHECK(s[0].nret == s[1].nret)) {
		for (int i = 0; i < s[0].nret; i++)
			if (!CHECK(s[0].ret[i] == s[1].ret[i]))
				printf("  call %d: %d here, %d with libaio\n", i, s[0].ret[i],
				       s[1].ret[i]);
		for (int i = 0; i < NREQ; i++) {
			if (!CHECK(s[0].res[i] == s[1].res[i] && s[0].events[i] == s[1].events[i]))
				printf("  request %d: res %ld x%d here, %ld x%d with libaio\n", i,
				       s[0].res[i], s[0].events[i], s[1].res[i], s[1].events[i]);
			CHECK(s[0].data_ok[i] == s[1].data_ok[i] &&
			      s[0].obj_ok[i] == s[1].obj_ok[i]);
			CHECK(!memcmp(s[0].buf[i], s[1].buf[i], sizeof(s[0].buf[i])));
		}
		/* And the answers are the ones a reader expects. */
		CHECK(s[0].res[0] == 1024 && s[0].buf[0][0] == (uint8_t)(4096 * 7 + 3));
		CHECK(s[0].res[1] == 536 && s[0].res[2] == 300 && s[0].res[4] == 1024);
		CHECK(s[0].buf[4][100] == 0x5a && s[0].buf[4][611] == 0x5a &&
		      s[0].buf[4][612] == 0);
		CHECK(s[0].events[6] == 0 && s[0].events[7] == 0 && s[0].res[8] == 0);
	}
	free(s);
	dlclose(ours.lib);
	dlclose(real.lib);
}

/* A tool started as a checker is has the library mapped: `cat
 * /proc/self/maps`, started so, lists it. */
static void test_checkers_get_it(void)
{
	char out[] = "/tmp/themis-aio-maps-XXXXXX";
	int fd = mkstemp(out);
	if (!CHECK(fd >= 0))
		return;
	close(fd);
	struct corrupt_fsck c = {.fs = "cat"};
	const char *argv[] = {"cat", "/proc/self/maps", NULL};
	int status = -1;
	char said[256];
	if (CHECK(corrupt_fsck_spawn(&c, argv, out) == 0))
		CHECK(corrupt_fsck_wait(&c, 10, &status, said, sizeof(said)) == CORRUPT_FSCK_CLEAN);
	CHECK(status == 0);
	FILE *f = fopen(out, "r");
	char line[512];
	bool mapped = false;
	while (f && fgets(line, sizeof(line), f))
		mapped |= strstr(line, "/memfd:checker-aio.so") != NULL;
	if (f)
		fclose(f);
	CHECK(mapped);
	unlink(out);
}

static const struct unit_test tests[] = {
    {"same_as_libaio", test_same_as_libaio},
    {"checkers_get_it", test_checkers_get_it},
};

UNIT_MAIN("test_checker_aio", tests)
