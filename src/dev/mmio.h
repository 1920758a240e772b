/* mmio.h - the one interface every memory-mapped device implements, in the
 * style of TinyEMU: read and write at an offset within the device's window.
 * A false return is an access the device does not decode; the bus turns it
 * into an access fault for the guest. */
#ifndef THEMIS_MMIO_H
#define THEMIS_MMIO_H

#include <stdbool.h>
#include <stdint.h>

struct mmio_ops {
	bool (*read)(void *dev, uint64_t off, int size, uint64_t *val);
	bool (*write)(void *dev, uint64_t off, int size, uint64_t val);
};

struct mmio_region {
	uint64_t base, len;
	const struct mmio_ops *ops;
	void *dev;
};

#define MMIO_MAX_REGIONS 16

/* A board's devices by address: the one lookup every board shares. */
struct mmio_bus {
	struct mmio_region region[MMIO_MAX_REGIONS];
	int n;
};

/* Map dev's window [base, base + len). Boards have a fixed, small set of
 * devices, well under MMIO_MAX_REGIONS. */
void mmio_add(struct mmio_bus *b, uint64_t base, uint64_t len, const struct mmio_ops *ops,
	      void *dev);
/* An access of `size` bytes at pa: false when no device decodes it (the
 * whole access must fall inside one window), an access fault for the hart. */
bool mmio_read(const struct mmio_bus *b, uint64_t pa, int size, uint64_t *val);
bool mmio_write(const struct mmio_bus *b, uint64_t pa, int size, uint64_t val);

#endif
