/* sifive_test.h - the "test finisher" of QEMU's virt board: a guest writes
 * 0x5555 to stop with success, 0x3333 | code << 16 to stop with a failure
 * code. The device only records the request; the machine stops the hart. */
#ifndef THEMIS_SIFIVE_TEST_H
#define THEMIS_SIFIVE_TEST_H

#include "mmio.h"

struct sifive_test {
	bool finished;
	int code; /* 0 for pass */
	void (*on_finish)(void *opaque);
	void *opaque;
};

extern const struct mmio_ops sifive_test_ops;

#endif
