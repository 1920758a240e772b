/* ram.h - guest RAM as an array of 4 KiB page pointers, with the
 * epsilon-copy fork: ram_fork() opens a level in O(1); the first write to a
 * page in a level saves the page's old content on the level's undo list
 * (or records the page as fresh if it had never been written); ram_restore()
 * puts back exactly the top level's list, O(pages dirtied), never O(RAM).
 *
 * The hart reaches RAM a page at a time (ram_page for reading, ram_page_w
 * for writing), so it can cache host pointers in its TLB; devices use
 * ram_read/ram_write. A page never written reads as zeros (the shared zero
 * page) and costs no memory.
 *
 * Host pointers: a write never moves a page (the old content is copied
 * aside), but a restore does (the saved copy becomes the page again and the
 * dirtied one is released). So after ram_restore the caller must drop every
 * cached pointer (cpu_flush_tlb) and every decoding of a released page:
 * ram_restore reports each released page to a callback for that. */
#ifndef THEMIS_RAM_H
#define THEMIS_RAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RAM_PAGE_SIZE  4096u
#define RAM_MAX_LEVELS 256

/* One entry of a level's undo list: page `page` held `saved` (NULL: it had
 * never been written) and had been saved at level `prev_level`. */
struct ram_undo {
	uint32_t page;
	uint32_t prev_level;
	uint8_t *saved;
};

struct ram {
	uint64_t base, size, npages;
	uint8_t **pages;    /* NULL: never written, reads as zeros */
	uint32_t *saved_at; /* the level whose undo list holds the page's old content */
	unsigned level;	    /* 0 = no fork open */
	struct ram_undo *undo;
	size_t nundo, capundo;
	size_t level_start[RAM_MAX_LEVELS + 1]; /* undo index where level L's list starts */
	uint8_t **pool;				/* released pages, for reuse */
	size_t npool, cappool;
	uint8_t **slabs; /* where pages come from: RAM_SLAB bytes each (ram.c) */
	size_t nslabs, capslabs;
	size_t slab_used;   /* bytes of the last slab handed out */
	uint64_t allocated; /* pages in use (live or saved) */
	uint64_t copies;    /* pages a write gave a copy of their own: a counter
			     * for the hart lens, which resets it */
	/* Called when a page never written gets a home of its own, whoever
	 * writes it (a hart's store, a device, the host): until then it read
	 * as ram_zero_page, which a hart's TLB may have cached for it (see
	 * cpu_ram_homed). May be NULL; the board sets it after ram_init. */
	void (*homed)(void *opaque, uint64_t pa);
	void *homed_opaque;
};

/* Shared read-only zeros: what ram_page returns for a page never written. */
extern const uint8_t ram_zero_page[RAM_PAGE_SIZE];

/* RAM of `size` bytes (a multiple of 4 KiB) at `base`; 0 or -errno. */
int ram_init(struct ram *r, uint64_t base, uint64_t size);
void ram_free(struct ram *r);

/* True when [pa, pa + len) lies inside RAM. */
static inline bool ram_contains(const struct ram *r, uint64_t pa, uint64_t len)
{
	return pa >= r->base && len <= r->size && pa - r->base <= r->size - len;
}

/* The page holding pa for reading (ram_zero_page if never written), or
 * NULL outside RAM. */
static inline const uint8_t *ram_page(const struct ram *r, uint64_t pa)
{
	if (!ram_contains(r, pa, 1))
		return NULL;
	const uint8_t *p = r->pages[(pa - r->base) / RAM_PAGE_SIZE];
	return p ? p : ram_zero_page;
}

/* The page holding pa for writing: saved on the top level's undo list
 * first if this level has not written it yet. NULL outside RAM or when out
 * of memory. */
uint8_t *ram_page_w(struct ram *r, uint64_t pa);

/* Copy out of / into RAM; false if the range leaves RAM (nothing copied)
 * or memory runs out. */
bool ram_read(const struct ram *r, uint64_t pa, void *buf, uint64_t len);
bool ram_write(struct ram *r, uint64_t pa, const void *buf, uint64_t len);

/* Open a level: O(1). 0, or -EOVERFLOW past RAM_MAX_LEVELS. The caller
 * must drop cached writable pointers (the write TLB) so the next write to
 * every page comes back through ram_page_w. */
int ram_fork(struct ram *r);
/* Revert the top level's writes, keeping the level open (re-armable).
 * `released(opaque, page)` is told of every host page given up. 0, or
 * -EINVAL when no level is open (nothing changed). */
int ram_restore(struct ram *r, void (*released)(void *opaque, const uint8_t *page), void *opaque);
/* ram_restore, then close the level. */
int ram_release(struct ram *r, void (*released)(void *opaque, const uint8_t *page), void *opaque);
static inline unsigned ram_depth(const struct ram *r)
{
	return r->level;
}
/* Pages written in the top level so far. */
static inline size_t ram_level_dirty(const struct ram *r)
{
	return r->nundo - r->level_start[r->level];
}

/* XXH3-128 of the whole RAM content (never-written pages as zeros). 0, or
 * -ENOMEM (out zeroed) when the hash state cannot be allocated. */
int ram_hash(const struct ram *r, uint8_t out[16]);

#endif
