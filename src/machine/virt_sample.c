/* virt_sample.c - the guest profiler's sampling (virt_sample.h): every N
 * instructions, the hart's pc and privilege with the phase and tag the
 * caller named (virt_phase), counted in instructions run (not the hart's
 * step count, which a restore takes back). Owning the machine makes it
 * exact and free of perturbation: virt_run ends a slice at each sample
 * point, and slices do not change what the guest computes (interrupts are taken at the same
 * instruction counts whatever the slicing; the tests check the machine's
 * hash). Samples are host data, not machine state. */
#include <stdlib.h>

#include "virt_internal.h"
#include "virt_sample.h"

int virt_sampler_start(struct virt *v, uint64_t every, const struct kmap *map)
{
	struct virt_sampler *s = every ? calloc(1, sizeof(*s)) : NULL;
	if (!s)
		return -1;
	s->every = s->left = every;
	s->map = map;
	virt_sampler_stop(v);
	v->sampler = s;
	return 0;
}

void virt_sampler_stop(struct virt *v)
{
	if (v->sampler) {
		free(v->sampler->s);
		free(v->sampler->frames);
	}
	free(v->sampler);
	v->sampler = NULL;
}

uint64_t virt_sample_slice(const struct virt *v, uint64_t slice)
{
	return v->sampler->left < slice ? v->sampler->left : slice;
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q, *cap = c;
	return true;
}

void virt_sample_take(struct virt *v, uint64_t stepped)
{
	struct virt_sampler *s = v->sampler;
	if (stepped < s->left) {
		s->left -= stepped;
		return;
	}
	s->left = s->every;
	if (!grow((void **)&s->s, &s->cap, s->n + 1, sizeof(*s->s)) ||
	    !grow((void **)&s->frames, &s->capframes, s->nframes + VIRT_STACK_MAX,
		  sizeof(*s->frames))) {
		s->lost++;
		return;
	}
	struct virt_sample *x = &s->s[s->n++];
	*x = (struct virt_sample){v->cpu.pc,	     s->nframes, 0, (uint8_t)v->cpu.priv,
				  (uint8_t)v->phase, v->tag};
	if (s->map) {
		x->depth = (uint8_t)virt_unwind(v, s->map, s->frames + s->nframes, VIRT_STACK_MAX);
		s->nframes += x->depth;
	}
}
