/* sifive_test.h - the "test finisher" of QEMU's virt board (sifive,test1,
 * at 0x100000), which is also the board's power controller: Linux's
 * syscon-poweroff writes 0x5555 and syscon-reboot 0x7777 to it. A write of
 * 0x5555 asks to stop with success (power off), 0x3333 | code << 16 to stop
 * with a failure code, 0x7777 to reset the machine. The device only records
 * the request and calls the board's callback; the board stops the hart, and
 * reads `kind` to tell a power-off from a reboot (the bare board only looks
 * at `code`).
 *
 * The forkable state is struct sifive_test_state (see dev.h); struct
 * sifive_test is its wiring: the state and the board's callback. */
#ifndef THEMIS_SIFIVE_TEST_H
#define THEMIS_SIFIVE_TEST_H

#include "dev.h"
#include "mmio.h"

enum sifive_test_kind {
	SIFIVE_TEST_NONE,  /* nothing requested yet */
	SIFIVE_TEST_PASS,  /* 0x5555: pass, or power off */
	SIFIVE_TEST_FAIL,  /* 0x3333: fail with `code` */
	SIFIVE_TEST_RESET, /* 0x7777: reboot */
};

struct sifive_test_state {
	bool finished; /* a request was made: see kind */
	enum sifive_test_kind kind;
	int code; /* 0 for pass and reset; 1..65535 for fail */
};

struct sifive_test {
	struct sifive_test_state *s; /* not owned */
	void (*on_finish)(void *opaque);
	void *opaque;
};

extern const struct mmio_ops sifive_test_ops;
extern const struct dev_state_desc sifive_test_state_desc;

/* Wire t to its state and reset it; `on_finish(opaque)` (may be NULL) runs
 * after each request is recorded. */
void sifive_test_init(struct sifive_test *t, struct sifive_test_state *s,
		      void (*on_finish)(void *opaque), void *opaque);

#endif
