/* clint.h - the core-local interruptor: msip, mtimecmp and mtime for one
 * hart. mtime is the hart's virtual clock (cpu_time); nothing here reads the
 * host clock. The machine calls clint_update() between runs of the hart to
 * drive MTIP, and asks clint_ticks_to_deadline() how far the hart may run
 * before the timer fires.
 *
 * The forkable state is struct clint_state (see dev.h); struct clint is
 * its wiring: the state and the hart. */
#ifndef THEMIS_CLINT_H
#define THEMIS_CLINT_H

#include "../cpu/cpu.h"
#include "dev.h"
#include "mmio.h"

struct clint_state {
	uint32_t msip;
	uint64_t mtimecmp;
};

struct clint {
	struct clint_state *s; /* not owned */
	struct cpu *cpu;       /* not owned */
};

extern const struct mmio_ops clint_ops;
extern const struct dev_state_desc clint_state_desc;

/* Wire cl to its state and the hart, and reset the state (no timer). */
void clint_init(struct clint *cl, struct clint_state *s, struct cpu *cpu);
/* Raise or lower MTIP from mtime and mtimecmp. */
void clint_update(struct clint *cl);
/* Ticks until mtimecmp is reached (0 if already), UINT64_MAX if never. */
uint64_t clint_ticks_to_deadline(const struct clint *cl);

#endif
