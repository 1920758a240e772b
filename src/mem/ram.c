/* ram.c - allocation of guest RAM. Anonymous mappings are zero-filled and
 * populated lazily by the host, so a large RAM costs only what is touched. */
#include <errno.h>
#include <sys/mman.h>

#include "ram.h"

int ram_init(struct ram *r, uint64_t base, uint64_t size)
{
	if (size == 0 || size % RAM_PAGE_SIZE)
		return -EINVAL;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->base = base;
	r->size = size;
	r->bytes = p;
	return 0;
}

void ram_free(struct ram *r)
{
	if (r->bytes)
		munmap(r->bytes, r->size);
	r->bytes = NULL;
}
