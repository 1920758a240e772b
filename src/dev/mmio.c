/* mmio.c - see mmio.h: the bus that routes the hart's device accesses. */
#include <assert.h>
#include <stddef.h>

#include "mmio.h"

void mmio_add(struct mmio_bus *b, uint64_t base, uint64_t len, const struct mmio_ops *ops,
	      void *dev)
{
	assert(b->n < MMIO_MAX_REGIONS); /* boards are fixed: a design bound */
	b->region[b->n++] = (struct mmio_region){base, len, ops, dev};
}

static const struct mmio_region *find(const struct mmio_bus *b, uint64_t pa, int size)
{
	for (int i = 0; i < b->n; i++) {
		const struct mmio_region *r = &b->region[i];
		if (pa >= r->base && pa - r->base < r->len &&
		    (uint64_t)size <= r->len - (pa - r->base))
			return r;
	}
	return NULL;
}

bool mmio_read(const struct mmio_bus *b, uint64_t pa, int size, uint64_t *val)
{
	const struct mmio_region *r = find(b, pa, size);
	return r && r->ops->read(r->dev, pa - r->base, size, val);
}

bool mmio_write(const struct mmio_bus *b, uint64_t pa, int size, uint64_t val)
{
	const struct mmio_region *r = find(b, pa, size);
	return r && r->ops->write(r->dev, pa - r->base, size, val);
}
