/* plic.h - the platform-level interrupt controller of QEMU's virt board
 * (SiFive-compatible, "sifive,plic-1.0.0") for one hart with two contexts:
 * context 0 is the hart's M-mode and drives MEIP, context 1 its S-mode and
 * drives SEIP, which is the numbering Linux's irq-sifive-plic finds in
 * QEMU's device tree. The board maps it at 0x0c000000 (PLIC_MMIO_SIZE bytes)
 * and wires each device's struct irq_line to a source with plic_line().
 *
 * Sources are level-triggered. A source's gateway forwards a request while
 * the line is high and the source is not claimed; a claim takes the
 * highest-priority request enabled for the context whose priority exceeds
 * the context's threshold (ties: lowest id) and holds the source until the
 * context writes its id back (complete); a line still high then requests
 * again. Pending bits are derived (line high and not claimed) rather than
 * latched, so a device that lowers its line before the claim withdraws the
 * request, as on QEMU 7.2; Linux never sees a claim of a quiet device.
 * Every change re-drives MEIP/SEIP through cpu_set_irq.
 *
 * The forkable state is struct plic_state (see dev.h); struct plic is its
 * wiring: the state and the hart, set once by plic_init. */
#ifndef THEMIS_PLIC_H
#define THEMIS_PLIC_H

#include "../cpu/cpu.h"
#include "dev.h"
#include "irq.h"
#include "mmio.h"

#define PLIC_NSRC      96 /* sources 1..95; 0 means "none" */
#define PLIC_NCTX      2  /* 0 = M-mode, 1 = S-mode */
#define PLIC_WORDS     (PLIC_NSRC / 32)
#define PLIC_MMIO_SIZE 0x600000ULL

struct plic_state {
	uint32_t priority[PLIC_NSRC]; /* 0 = never interrupts; 1..7 */
	uint32_t level[PLIC_WORDS];   /* the lines as devices drive them */
	uint32_t claimed[PLIC_WORDS]; /* claimed and not yet completed */
	uint32_t enable[PLIC_NCTX][PLIC_WORDS];
	uint32_t threshold[PLIC_NCTX];
};

struct plic {
	struct plic_state *s; /* not owned */
	struct cpu *cpu;      /* not owned */
};

extern const struct mmio_ops plic_ops;
extern const struct dev_state_desc plic_state_desc;

/* Wire p to its state and the hart, and reset the state: every priority,
 * enable and threshold zero, no line high. */
void plic_init(struct plic *p, struct plic_state *s, struct cpu *cpu);

/* The irq_line callback: `ctl` is the struct plic. Sources outside
 * 1..PLIC_NSRC-1 are ignored. */
void plic_set_irq(void *ctl, int source, bool level);

/* A line for a device to drive source `source`. */
struct irq_line plic_line(struct plic *p, int source);

#endif
