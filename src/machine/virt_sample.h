/* virt_sample.h - the guest profiler's sampling: the pc every N guest
 * instructions, with the phase and tag of virt_phase (virt.h). What the
 * samples mean is the checker's (src/check/gprof.h symbolizes them). */
#ifndef THEMIS_VIRT_SAMPLE_H
#define THEMIS_VIRT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "virt.h"
#include "virt_unwind.h"

struct virt_sample {
	uint64_t pc;
	size_t stack;	     /* its kernel stack's return addresses: frames[stack...] */
	uint8_t depth;	     /* ...how many, innermost first */
	uint8_t priv, phase; /* 1 supervisor (the kernel), 0 user (the agent), 3 machine (SBI) */
	int tag;
};

struct virt_sampler {
	uint64_t every, left; /* instructions between samples, and to the next */
	struct virt_sample *s;
	size_t n, cap;
	uint64_t *frames; /* every sample's stack, one after another */
	size_t nframes, capframes;
	const struct kmap *map; /* the kernel's, for the stacks; NULL: none */
	uint64_t lost;		/* samples dropped for want of memory */
};

/* Sample v (not its peer) every `every` instructions from now on, with
 * the kernel's stack at each sample when its map is given (it must
 * outlive the sampler). 0, or -1 (no memory, or every 0). */
int virt_sampler_start(struct virt *v, uint64_t every, const struct kmap *map);
void virt_sampler_stop(struct virt *v);

/* virt_run's: the slice cut at the next sample point; and, after a slice
 * of `stepped` instructions, the sample taken when it is due. */
uint64_t virt_sample_slice(const struct virt *v, uint64_t slice);
void virt_sample_take(struct virt *v, uint64_t stepped);

#endif
