/* sifive_test.c - see sifive_test.h. Only a write of 4 or more bytes at
 * offset 0 is a request; reads return 0 and other writes are ignored, as on
 * QEMU. A failure with code 0 is reported as code 1 so that `code` alone
 * tells pass from fail. */
#include <string.h>

#include "sifive_test.h"

#define FINISHER_FAIL  0x3333
#define FINISHER_PASS  0x5555
#define FINISHER_RESET 0x7777

const struct dev_state_desc sifive_test_state_desc = {"sifive_test", 1,
						      sizeof(struct sifive_test_state)};

void sifive_test_init(struct sifive_test *t, struct sifive_test_state *s,
		      void (*on_finish)(void *opaque), void *opaque)
{
	memset(s, 0, sizeof(*s));
	*t = (struct sifive_test){.s = s, .on_finish = on_finish, .opaque = opaque};
}

static bool test_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	(void)dev, (void)off, (void)size;
	*val = 0;
	return true;
}

static enum sifive_test_kind decode(uint32_t low)
{
	switch (low) {
	case FINISHER_PASS: return SIFIVE_TEST_PASS;
	case FINISHER_FAIL: return SIFIVE_TEST_FAIL;
	case FINISHER_RESET: return SIFIVE_TEST_RESET;
	default: return SIFIVE_TEST_NONE;
	}
}

static bool test_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct sifive_test *t = dev;
	if (off != 0 || size < 4)
		return true;
	enum sifive_test_kind kind = decode(val & 0xffff);
	if (kind == SIFIVE_TEST_NONE)
		return true;
	t->s->finished = true;
	t->s->kind = kind;
	t->s->code = 0;
	if (kind == SIFIVE_TEST_FAIL) {
		t->s->code = (int)((val >> 16) & 0xffff);
		if (t->s->code == 0)
			t->s->code = 1;
	}
	if (t->on_finish)
		t->on_finish(t->opaque);
	return true;
}

const struct mmio_ops sifive_test_ops = {test_read, test_write};
