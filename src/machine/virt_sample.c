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

int virt_sampler_start(struct virt *v, uint64_t every)
{
	struct virt_sampler *s = every ? calloc(1, sizeof(*s)) : NULL;
	if (!s)
		return -1;
	s->every = s->left = every;
	virt_sampler_stop(v);
	v->sampler = s;
	return 0;
}

void virt_sampler_stop(struct virt *v)
{
	if (v->sampler)
		free(v->sampler->s);
	free(v->sampler);
	v->sampler = NULL;
}

uint64_t virt_sample_slice(const struct virt *v, uint64_t slice)
{
	return v->sampler->left < slice ? v->sampler->left : slice;
}

static void add(struct virt_sampler *s, const struct virt_sample *x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct virt_sample *p = realloc(s->s, cap * sizeof(*p));
		if (!p) {
			s->lost++;
			return;
		}
		s->s = p;
		s->cap = cap;
	}
	s->s[s->n++] = *x;
}

void virt_sample_take(struct virt *v, uint64_t stepped)
{
	struct virt_sampler *s = v->sampler;
	if (stepped < s->left) {
		s->left -= stepped;
		return;
	}
	struct virt_sample x = {v->cpu.pc, (uint8_t)v->cpu.priv, (uint8_t)v->phase, v->tag};
	add(s, &x);
	s->left = s->every;
}
