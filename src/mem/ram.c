/* ram.c - see ram.h.
 *
 * Invariants (checked by tests/unit/test_ram_fork.c after every step):
 *  1. level_start[0] = 0 <= level_start[1] <= ... <= level_start[level] <= nundo.
 *  2. A page appears at most once in each level's undo list. saved_at[page]
 *     is the highest open level whose list holds the page (0: none), and an
 *     entry's prev_level is the next lower level whose list holds it (0:
 *     none), so prev_level < L for an entry of level L.
 *  3. An entry of level L holds in `saved` the page's content as it was
 *     when level L was opened (NULL: zeros, never written then).
 *  4. Level 0 keeps no undo list: with no fork open nothing can be restored.
 * Transitions: ram_fork (level+1), ram_page_w (append to the top list),
 * ram_restore (empty the top list), ram_release (restore, level-1). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "ram.h"

#define RAM_SLAB (32u << 20) /* the host memory pages come from (page_get) */
#define RAM_HUGE (2u << 20)  /* the host's huge page */

const uint8_t ram_zero_page[RAM_PAGE_SIZE] __attribute__((aligned(RAM_PAGE_SIZE)));

int ram_init(struct ram *r, uint64_t base, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	if (size == 0 || size % RAM_PAGE_SIZE || size / RAM_PAGE_SIZE > UINT32_MAX)
		return -EINVAL;
	r->base = base;
	r->size = size;
	r->npages = size / RAM_PAGE_SIZE;
	r->pages = calloc(r->npages, sizeof(*r->pages));
	r->saved_at = calloc(r->npages, sizeof(*r->saved_at));
	if (!r->pages || !r->saved_at) {
		ram_free(r);
		return -ENOMEM;
	}
	return 0;
}

void ram_free(struct ram *r)
{
	for (size_t i = 0; i < r->nslabs; i++)
		munmap(r->slabs[i], RAM_SLAB);
	free(r->slabs);
	free(r->pages);
	free(r->saved_at);
	free(r->undo);
	free(r->pool);
	memset(r, 0, sizeof(*r));
}

/* Pages come from slabs of RAM_SLAB bytes aligned to the host's huge
 * pages and marked for them (MADV_HUGEPAGE): the hart's loads and stores
 * reach guest RAM through host pointers, and with every guest page a host
 * page of its own the host's TLB missed on most of them (a fork's copies
 * and a restore's put-backs scatter the pages, so the guest's locality is
 * no help). A page is never given back to the host, only to the pool. */

static uint8_t *slab_new(struct ram *r)
{
	if (r->nslabs == r->capslabs) {
		size_t cap = r->capslabs ? 2 * r->capslabs : 16;
		uint8_t **ns = realloc(r->slabs, cap * sizeof(*ns));
		if (!ns)
			return NULL;
		r->slabs = ns;
		r->capslabs = cap;
	}
	/* Map a huge page more and trim to the alignment. */
	uint8_t *m = mmap(NULL, RAM_SLAB + RAM_HUGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	size_t lead = (size_t)(-(uintptr_t)m & (RAM_HUGE - 1));
	if (lead)
		munmap(m, lead);
	munmap(m + lead + RAM_SLAB, RAM_HUGE - lead);
	uint8_t *slab = m + lead;
	(void)madvise(slab, RAM_SLAB, MADV_HUGEPAGE); /* a hint: 4 KiB pages work too */
	r->slabs[r->nslabs++] = slab;
	r->slab_used = 0;
	return slab;
}

static uint8_t *page_get(struct ram *r)
{
	if (r->npool)
		return r->pool[--r->npool];
	if ((!r->nslabs || r->slab_used == RAM_SLAB) && !slab_new(r))
		return NULL;
	uint8_t *p = r->slabs[r->nslabs - 1] + r->slab_used;
	r->slab_used += RAM_PAGE_SIZE;
	return p;
}

static void page_put(struct ram *r, uint8_t *p)
{
	if (!p)
		return;
	if (r->npool == r->cappool) {
		size_t cap = r->cappool ? 2 * r->cappool : 256;
		uint8_t **np = realloc(r->pool, cap * sizeof(*np));
		if (!np)
			return; /* lost to reuse; its slab is unmapped with the rest */
		r->pool = np;
		r->cappool = cap;
	}
	r->pool[r->npool++] = p;
}

static bool undo_push(struct ram *r, struct ram_undo e)
{
	if (r->nundo == r->capundo) {
		size_t cap = r->capundo ? 2 * r->capundo : 1024;
		struct ram_undo *nu = realloc(r->undo, cap * sizeof(*nu));
		if (!nu)
			return false;
		r->undo = nu;
		r->capundo = cap;
	}
	r->undo[r->nundo++] = e;
	return true;
}

/* First write to page i in the top level: keep its old content aside. */
static uint8_t *save_page(struct ram *r, uint64_t i)
{
	uint8_t *cur = r->pages[i], *saved = NULL, *fresh = NULL;
	if (cur) {
		if (!(saved = page_get(r)))
			return NULL;
		memcpy(saved, cur, RAM_PAGE_SIZE);
	} else {
		if (!(fresh = page_get(r)))
			return NULL;
		memset(fresh, 0, RAM_PAGE_SIZE);
	}
	if (r->level && !undo_push(r, (struct ram_undo){(uint32_t)i, r->saved_at[i], saved})) {
		page_put(r, saved ? saved : fresh);
		return NULL;
	}
	if (!r->level)
		page_put(r, saved); /* nothing to restore at the root */
	else if (saved)
		r->allocated++;
	r->saved_at[i] = r->level;
	r->copies++;
	if (fresh) {
		r->pages[i] = fresh;
		r->allocated++;
		if (r->homed)
			r->homed(r->homed_opaque, r->base + i * RAM_PAGE_SIZE);
	}
	return r->pages[i];
}

uint8_t *ram_page_w(struct ram *r, uint64_t pa)
{
	if (!ram_contains(r, pa, 1))
		return NULL;
	uint64_t i = (pa - r->base) / RAM_PAGE_SIZE;
	if (r->pages[i] && (r->saved_at[i] == r->level || r->level == 0))
		return r->pages[i];
	return save_page(r, i);
}

bool ram_read(const struct ram *r, uint64_t pa, void *buf, uint64_t len)
{
	if (!ram_contains(r, pa, len))
		return false;
	uint8_t *out = buf;
	while (len) {
		uint64_t off = (pa - r->base) % RAM_PAGE_SIZE, n = RAM_PAGE_SIZE - off;
		if (n > len)
			n = len;
		memcpy(out, ram_page(r, pa) + off, n);
		out += n, pa += n, len -= n;
	}
	return true;
}

bool ram_write(struct ram *r, uint64_t pa, const void *buf, uint64_t len)
{
	if (!ram_contains(r, pa, len))
		return false;
	const uint8_t *in = buf;
	while (len) {
		uint64_t off = (pa - r->base) % RAM_PAGE_SIZE, n = RAM_PAGE_SIZE - off;
		if (n > len)
			n = len;
		uint8_t *p = ram_page_w(r, pa);
		if (!p)
			return false;
		memcpy(p + off, in, n);
		in += n, pa += n, len -= n;
	}
	return true;
}

int ram_fork(struct ram *r)
{
	if (r->level == RAM_MAX_LEVELS)
		return -EOVERFLOW;
	r->level_start[++r->level] = r->nundo;
	return 0;
}

int ram_restore(struct ram *r, void (*released)(void *opaque, const uint8_t *page), void *opaque)
{
	if (r->level == 0)
		return -EINVAL;
	size_t start = r->level_start[r->level];
	while (r->nundo > start) {
		struct ram_undo *e = &r->undo[--r->nundo];
		uint8_t *cur = r->pages[e->page];
		r->pages[e->page] = e->saved;
		r->saved_at[e->page] = e->prev_level;
		if (released)
			released(opaque, cur);
		page_put(r, cur);
		r->allocated--;
	}
	return 0;
}

int ram_release(struct ram *r, void (*released)(void *opaque, const uint8_t *page), void *opaque)
{
	int rc = ram_restore(r, released, opaque);
	if (rc == 0)
		r->level--;
	return rc;
}

int ram_hash(const struct ram *r, uint8_t out[16])
{
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		memset(out, 0, 16);
		return -ENOMEM;
	}
	XXH3_128bits_reset(st);
	for (uint64_t i = 0; i < r->npages; i++)
		XXH3_128bits_update(st, r->pages[i] ? r->pages[i] : ram_zero_page, RAM_PAGE_SIZE);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	memcpy(out, c.digest, 16);
	XXH3_freeState(st);
	return 0;
}
