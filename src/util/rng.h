/* rng.h - splitmix64, the one small seeded generator of the host side:
 * the guest's random seed (virt.c), the checker's random choices, and
 * every test and fuzzer that must replay a failure from its seed.
 *
 * src/util holds what several layers need and no layer owns: header-only
 * helpers with no state of their own (the caller keeps the state, so a
 * machine fork or a process fork carries it). The guest agent is built
 * apart (guest/agent/agent.h keeps its own copy of the same function). */
#ifndef THEMIS_UTIL_RNG_H
#define THEMIS_UTIL_RNG_H

#include <stdint.h>

/* splitmix64 (Steele, Lea and Flood, 2014): advance *state and return the
 * next number of its sequence. Any seed, 0 included, is a good one. */
static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
