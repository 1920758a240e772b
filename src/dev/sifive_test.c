/* sifive_test.c - see sifive_test.h. */
#include "sifive_test.h"

#define FINISHER_FAIL 0x3333
#define FINISHER_PASS 0x5555

static bool test_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	(void)dev, (void)off, (void)size;
	*val = 0;
	return true;
}

static bool test_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct sifive_test *t = dev;
	if (off != 0 || size < 4)
		return true;
	uint32_t kind = val & 0xffff;
	if (kind != FINISHER_PASS && kind != FINISHER_FAIL)
		return true;
	t->finished = true;
	t->code = kind == FINISHER_PASS ? 0 : (int)((val >> 16) & 0xffff);
	if (t->code == 0 && kind == FINISHER_FAIL)
		t->code = 1;
	if (t->on_finish)
		t->on_finish(t->opaque);
	return true;
}

const struct mmio_ops sifive_test_ops = {test_read, test_write};
