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

#endif
