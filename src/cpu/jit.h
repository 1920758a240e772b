/* jit.h - the translation cache: straight runs of the decoded fast
 * operations (dcache.h) compiled to x86-64, one host function per block.
 *
 * A block is a run of fast operations inside one guest page, ending after
 * a jump or branch, before an operation only the interpreter knows
 * (D_GENERIC, D_SLOW), at the page end, or after JIT_BLOCK_MAX. It steps
 * exactly the machine the interpreter steps:
 *  - the dispatcher runs a block only when the run's budget covers all of
 *    it, and charges it up front;
 *  - a load or store that misses the soft TLB inline leaves the block's
 *    code for jit_mem_slow(), which first sets pc and the budget to what the
 *    interpreter would have at that instruction, so traps, MMIO, cpu_stop()
 *    and the clock see the same values; the block goes on only if nothing
 *    (trap, stop, or a write to decoded code) says otherwise;
 *  - writes to x0 land in the sink x[32], as the interpreter's do.
 * Blocks are keyed by host and guest address (the guest pc is compiled in)
 * and by the dcache generation of their page: any change to a decoded page
 * (a store, DMA, eviction, restore) bumps it, so stale blocks are never
 * found again. Their code stays in the buffer until it fills, when
 * everything is dropped at once, never while a block runs.
 *
 * Built only on x86-64 hosts; elsewhere, and when the host refuses
 * executable memory, jit_init leaves c->jit NULL and the hart interprets. */
#ifndef THEMIS_JIT_H
#define THEMIS_JIT_H

#include <stdint.h>

struct cpu;
struct dpage;

#define JIT_BLOCK_MAX 64

struct jit_exit;

/* A compiled block's code, run by jit_run. */
typedef const uint8_t *jit_fn;

/* Turn the translation cache on (if the host allows) or off. 0, or -ENOMEM
 * when turning on failed for lack of memory. */
int jit_init(struct cpu *c);
void jit_free(struct cpu *c);

/* The block at guest pc (host address host, in decoded page code),
 * compiling it if needed; NULL when the instruction at pc is one only the
 * interpreter runs. `from` is the exit the previous block returned, if
 * any: it is chained to this block. */
jit_fn jit_block_at(struct cpu *c, struct dpage *code, uint64_t pc, const uint8_t *host,
		    struct jit_exit *from);

/* Run block fn and the blocks it chains to: it charges its instructions to
 * c->budget and runs them; or, when the budget does not cover them all,
 * returns at once with the budget unchanged. Returns the exit it left by
 * when that exit can be chained to the next block, else NULL. */
struct jit_exit *jit_run(struct cpu *c, jit_fn fn);

#endif
