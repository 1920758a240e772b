/* dma.h - how a device reads and writes guest physical memory (virtqueues,
 * buffers). The board implements it over RAM: every access is bounds-checked
 * (false = outside RAM, never a host access out of bounds) and writes keep
 * the hart's decoded-instruction cache coherent. A guest is untrusted: any
 * address or length a device takes from guest memory goes through here. */
#ifndef THEMIS_DMA_H
#define THEMIS_DMA_H

#include <stdbool.h>
#include <stdint.h>

struct dma {
	void *opaque;
	bool (*read)(void *opaque, uint64_t pa, void *buf, uint64_t len);
	bool (*write)(void *opaque, uint64_t pa, const void *buf, uint64_t len);
};

static inline bool dma_read(const struct dma *d, uint64_t pa, void *buf, uint64_t len)
{
	return d->read(d->opaque, pa, buf, len);
}

static inline bool dma_write(const struct dma *d, uint64_t pa, const void *buf, uint64_t len)
{
	return d->write(d->opaque, pa, buf, len);
}

#endif
