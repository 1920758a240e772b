/* ram.h - guest RAM: one contiguous block of host memory mapped at a guest
 * physical base. The CPU reaches it through ram_page(), a page at a time,
 * so that a later copy-on-write fork can hand out private pages from the
 * same call without the CPU noticing. */
#ifndef THEMIS_RAM_H
#define THEMIS_RAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RAM_PAGE_SIZE 4096u

struct ram {
	uint64_t base;
	uint64_t size;
	uint8_t *bytes;
};

/* Map `size` bytes (a multiple of 4 KiB) of zeroed RAM at `base`; 0 or -errno. */
int ram_init(struct ram *r, uint64_t base, uint64_t size);
void ram_free(struct ram *r);

/* True when [pa, pa + len) lies inside RAM. */
static inline bool ram_contains(const struct ram *r, uint64_t pa, uint64_t len)
{
	return pa >= r->base && len <= r->size && pa - r->base <= r->size - len;
}

/* Host address of the page holding pa, or NULL outside RAM. */
static inline uint8_t *ram_page(struct ram *r, uint64_t pa)
{
	if (!ram_contains(r, pa, 1))
		return NULL;
	return r->bytes + ((pa - r->base) & ~(uint64_t)(RAM_PAGE_SIZE - 1));
}

/* Host address of byte pa (the caller checked ram_contains). */
static inline uint8_t *ram_ptr(struct ram *r, uint64_t pa)
{
	return r->bytes + (pa - r->base);
}

#endif
