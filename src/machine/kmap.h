/* kmap.h - a kernel's (or the agent's) symbol map, as `nm` and the
 * kernel's System.map write it ("ADDR TYPE NAME"), text symbols only,
 * sorted by address. scripts/build-kernel.sh keeps each image's beside it
 * as IMAGE.map. The board reads it for the functions it computes on the
 * host (virt_hostfn.h) and the profiler's stack walk (virt_unwind.h); the
 * guest profiler to name its samples (src/check/gprof.h). */
#ifndef THEMIS_KMAP_H
#define THEMIS_KMAP_H

#include <stddef.h>
#include <stdint.h>

#define KMAP_NAME_MAX 64 /* a symbol's name, cut there */

struct kmap_sym {
	uint64_t addr;
	char name[KMAP_NAME_MAX];
};

struct kmap {
	struct kmap_sym *s;
	size_t n, cap;
	uint64_t end; /* where the last symbol's code may end: 64 KiB past its start */
};

/* Load path's text symbols (t, T, w, W) into m: 0; 1 the file is missing;
 * -1 (unreadable, out of memory, no text symbol in it). err says which
 * file and why. */
int kmap_load(struct kmap *m, const char *path, char *err, size_t errlen);
void kmap_free(struct kmap *m);

/* The index of the last symbol at or below addr, -1 below the first or
 * from m->end on. */
long kmap_index(const struct kmap *m, uint64_t addr);

/* The address of the symbol called name, 0 if none. */
uint64_t kmap_addr(const struct kmap *m, const char *name);

#endif
