/* cpu.h - one RV64GC hart (RV64IMAFDC + Zicsr + Zifencei, M/S/U modes, Sv39).
 *
 * The hart is the whole CPU engine of the emulated machine. It knows nothing
 * about the board: every physical access it cannot serve from its soft TLB
 * goes through a struct cpu_bus the machine supplies. Everything a fork of
 * the machine must capture lives in struct cpu; the TLB is a cache of that
 * state plus the bus, and is dropped (cpu_flush_tlb) whenever RAM mappings
 * change under it.
 *
 * Time is virtual: the hart counts the instructions it steps, and the
 * `time` CSR (and the CLINT's mtime) is that count plus the ticks skipped
 * while waiting in WFI. Nothing here reads the host clock. */
#ifndef THEMIS_CPU_H
#define THEMIS_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { PRV_U = 0, PRV_S = 1, PRV_M = 3 };

/* Exception causes (mcause without the interrupt bit). */
enum {
	EXC_INSN_MISALIGNED = 0,
	EXC_INSN_ACCESS = 1,
	EXC_ILLEGAL = 2,
	EXC_BREAKPOINT = 3,
	EXC_LOAD_MISALIGNED = 4,
	EXC_LOAD_ACCESS = 5,
	EXC_STORE_MISALIGNED = 6,
	EXC_STORE_ACCESS = 7,
	EXC_ECALL_U = 8,
	EXC_ECALL_S = 9,
	EXC_ECALL_M = 11,
	EXC_INSN_PAGE = 12,
	EXC_LOAD_PAGE = 13,
	EXC_STORE_PAGE = 15,
};

/* Interrupt numbers (bit positions in mip/mie). */
enum {
	IRQ_SSI = 1,
	IRQ_MSI = 3,
	IRQ_STI = 5,
	IRQ_MTI = 7,
	IRQ_SEI = 9,
	IRQ_MEI = 11,
};

/* How the hart reaches the board. `ram` returns the host address of the
 * 4 KiB RAM page holding `pa`, or NULL when pa is not plain RAM for that
 * kind of access (an MMIO range, or a RAM page the board wants to watch):
 * such accesses go through load/store, which return false for an access
 * fault. `doorbell` serves the custom-0 instruction (may be NULL). */
struct cpu;

struct cpu_bus {
	void *opaque;
	uint8_t *(*ram)(void *opaque, uint64_t pa, bool write);
	/* What `ram` returns for reads of RAM never written. The read TLB
	 * caches it like any page; the first write, whoever makes it, gives
	 * the page a home of its own, and the board must then call
	 * cpu_ram_homed (its RAM's `homed` callback). */
	const uint8_t *zero_page;
	bool (*load)(void *opaque, uint64_t pa, int size, uint64_t *val);
	bool (*store)(void *opaque, uint64_t pa, int size, uint64_t val);
	uint64_t (*doorbell)(void *opaque, uint64_t cmd, uint64_t buf, uint64_t len);
	/* An ecall from S-mode, offered to the machine's own SBI first: true
	 * when handled (the hart goes on after the ecall). May be NULL. */
	bool (*sbi_call)(void *opaque, struct cpu *c);
	/* A trap about to enter M-mode. Boards without M-mode software use it
	 * to report the trap and stop. May be NULL. */
	void (*m_trap)(void *opaque, uint64_t mcause, uint64_t tval);
	/* A call of host function `which` (cpu.host_fn): true with the
	 * function's value in *ret when the machine computed it, and the hart
	 * returns to ra as the guest function would; false runs the guest's
	 * own code. May be NULL. */
	bool (*host_fn)(void *opaque, struct cpu *c, int which, uint64_t *ret);
};

#define CPU_HOST_FNS 4

#define CPU_TLB_SIZE 4096 /* entries a set, a power of 2 */
/* Slots a hart remembers filling (the fill log), so that a flush, a
 * fork's save and a restore's load cost what was filled, not the sets'
 * size. */
#define CPU_TLB_LOG 4096

/* What the hart does beside retiring instructions, counted for the hart
 * lens (src/lens/lens_hart.c) and never read by the machine, once:
 * X(NAME, report.json key, what the summary calls it). A run is one
 * cpu_run (the board's slice). The misses are in the order of the access
 * kinds (read, write, fetch). */
#define CPU_EVENTS(X)                                                                              \
	X(RUN, "runs", "runs")                                                                     \
	X(MISS_R, "tlb_miss_read", "read TLB misses")                                              \
	X(MISS_W, "tlb_miss_write", "write TLB misses")                                            \
	X(MISS_X, "tlb_miss_fetch", "fetch TLB misses")                                            \
	X(FLUSH, "tlb_flush", "TLB flushes")                                                       \
	X(DISPATCH, "dispatches", "dispatches")                                                    \
	X(COMPILE, "blocks_compiled", "blocks compiled")                                           \
	X(DECODE, "pages_decoded", "pages decoded")

enum {
#define CPU_EVENT_ENUM(name, key, words) CPU_EV_##name,
	CPU_EVENTS(CPU_EVENT_ENUM)
#undef CPU_EVENT_ENUM
	    CPU_NEVENTS
};

/* Translation regimes, one set of soft TLBs each: a trap, an xRET or a
 * change of SUM selects another set instead of flushing, so the kernel's
 * entries survive every syscall and interrupt. Data accesses use the
 * effective privilege (MPRV applies) and, in S-mode, SUM; fetches only the
 * privilege. MXR is rare enough to flush on. */
enum { TLB_U, TLB_S, TLB_S_SUM, TLB_M, TLB_REGIMES };

/* The sets, by access kind (read, write, fetch: cpu_internal.h's ACC_*),
 * then regime; a slot's number is its place in them all. */
#define TLB_KINDS 3
#define TLB_SLOTS (TLB_KINDS * TLB_REGIMES * CPU_TLB_SIZE)

/* A soft-TLB entry: `tag` is the virtual page number (or ~0 when empty) and
 * host address = vaddr + addend, so a hit costs a compare and an add. `pa`
 * is the physical page, for cpu_tlb_load's check that the host page is
 * still the one RAM holds there. */
struct cpu_tlb_entry {
	uint64_t tag;
	uintptr_t addend;
	struct dpage *code; /* fetch TLB only: the page's decoded instructions */
	uint64_t pa;
};

/* The read and fetch entries a machine fork saves (its write sets are
 * empty then: see cpu_flush_writable), each with its slot number. */
struct cpu_tlb_saved {
	unsigned n;
	uint16_t slot[CPU_TLB_LOG];
	struct cpu_tlb_entry e[CPU_TLB_LOG];
};

struct cpu_csrs {
	uint64_t mstatus, misa, medeleg, mideleg, mie, mip, mtvec, mscratch, mepc, mcause, mtval;
	uint64_t mcounteren, scounteren, menvcfg, senvcfg, mcountinhibit;
	uint64_t stvec, sscratch, sepc, scause, stval, satp;
	uint64_t cycle_off, instret_off; /* mcycle/minstret = counter + off */
	uint64_t pmpcfg[16], pmpaddr[64];
	uint32_t fflags, frm;
};

struct cpu {
	uint64_t x[33]; /* x[32] is a sink: decoded writes to x0 land there */
	uint64_t f[32];
	uint64_t pc;
	int priv;
	struct cpu_csrs csr;

	uint64_t steps_done; /* instructions stepped before the current cpu_run */
	uint64_t traps;	     /* of those, how many trapped instead of retiring */
	uint64_t time_skip;  /* ticks added to time by WFI fast-forward */
	/* Held time (cpu_hold_time): while time_held, time reads time_held_at
	 * and moves only when the hart sleeps; held since step time_held_from. */
	uint64_t time_held_at, time_held_from;
	bool time_held;
	uint64_t res_addr; /* LR reservation: address and loaded value, */
	uint64_t res_val;  /* valid when res_valid */
	bool res_valid;
	bool wfi;	   /* waiting for an interrupt */
	uint32_t raw_insn; /* the instruction being executed, as fetched (for tval) */

	int64_t run_len; /* instructions this cpu_run may step, and of */
	int64_t budget;	 /* those, how many are left (0 ends the run) */

	/* Everything above is the hart's state, plain data, saved and restored
	 * whole (cpu_state_save/cpu_state_load, CPU_STATE_SIZE bytes);
	 * everything below is wiring and caches. */
	struct cpu_bus bus;
	/* Entry points (0 for none) of guest functions the bus computes on
	 * the host: wiring the board sets before the run, as it sets the bus.
	 * Each as the kernel calls it (its virtual address) and as it calls
	 * it before paging is on (its physical address): the decoded page is
	 * the same whichever address decoded it first. */
	uint64_t host_fn[CPU_HOST_FNS], host_fn_alias[CPU_HOST_FNS];
	struct dcache *dc; /* decoded instructions (a cache, see dcache.h) */
	struct jit *jit;   /* compiled blocks of them (jit.h), NULL: interpret */
	/* Soft TLBs (caches: not part of the architectural state): the
	 * current regime's read, write and fetch sets (mmu_select), all the
	 * sets, and the fill log: the slots filled since they were emptied,
	 * each once, tlb_logged of them, or CPU_TLB_LOG + 1 once more were
	 * (then a flush visits every slot and rebuilds the log). */
	struct cpu_tlb_entry *tlb_r, *tlb_w, *tlb_x;
	struct cpu_tlb_entry tlbs[TLB_KINDS][TLB_REGIMES][CPU_TLB_SIZE];
	uint16_t tlb_log[CPU_TLB_LOG];
	unsigned tlb_logged;
	uint64_t events[CPU_NEVENTS]; /* CPU_EVENTS, since the last take */
};

#define CPU_STATE_SIZE offsetof(struct cpu, bus)

/* Copy the hart's state out, or back in (which drops the soft TLB). */
void cpu_state_save(const struct cpu *c, void *state);
void cpu_state_load(struct cpu *c, const void *state);

/* Put the hart in its reset state: M-mode at `pc`, registers zero.
 * 0, or -ENOMEM. cpu_free releases the hart's caches. The hart compiles
 * hot code (jit.h) where the host allows, unless THEMIS_INTERPRET is set
 * in the environment: both engines step the same machine, bit for bit. */
int cpu_init(struct cpu *c, const struct cpu_bus *bus, uint64_t pc);
void cpu_free(struct cpu *c);
/* Switch the translation cache on or off (tests compare the two). 0, or
 * -ENOMEM. */
int cpu_use_jit(struct cpu *c, bool on);

/* Step up to `n` instructions, taking pending interrupts first. Returns the
 * number stepped. Returns early when the hart enters WFI with nothing
 * pending, when cpu_stop() is called, or when an interrupt became one the
 * hart would take (a write unmasked it, or a device raised it): the next
 * cpu_run takes it. */
uint64_t cpu_run(struct cpu *c, uint64_t n);

/* Translate a virtual address as the hart's current data accesses would
 * (for the doorbell's buffers). No fault is raised; false if unmapped or not
 * allowed. */
bool cpu_virt_to_phys(struct cpu *c, uint64_t va, bool write, uint64_t *pa);

/* Store len copies of byte from va on, as a run of the hart's own stores
 * would (for a memset the board computes, virt_hostfn.h): each page
 * translated for writing in the current regime (accessed and dirty bits
 * set), written through the bus's RAM (copy-on-write in a fork), decoded
 * code on it dropped. No fault is raised: false, part written, where a
 * page does not translate or is not RAM (the guest's own stores then
 * write the same bytes again and fault as they would). */
bool cpu_fill(struct cpu *c, uint64_t va, uint8_t byte, uint64_t len);

/* Translate a supervisor address for reading as an observer (the guest
 * profiler's stack walk): the page tables are not touched (no A bit set),
 * nothing is raised; false if unmapped or not readable. */
bool cpu_kernel_peek(struct cpu *c, uint64_t va, uint64_t *pa);

/* End the current cpu_run after the instruction in progress. */
void cpu_stop(struct cpu *c);

/* Set or clear interrupt-pending bits driven by devices (MTIP, MSIP, SEIP...). */
void cpu_set_irq(struct cpu *c, uint64_t mask, bool level);

/* Drop every cached translation (after RAM mappings changed), in every
 * regime, and select the current regime's sets. Whoever sets priv or
 * mstatus behind the hart's back calls it. */
void cpu_flush_tlb(struct cpu *c);
/* Drop the write sets only: a machine fork needs the next write to every
 * page to come back through the bus (copy-on-write); reads and fetches
 * still see the same pages. */
void cpu_flush_writable(struct cpu *c);
/* Save the read and fetch sets (at a fork, after cpu_flush_writable), and
 * put them back after the machine returned to that fork (after
 * cpu_state_load): RAM and the page tables are as they were then, so every
 * saved entry holds again except where a restore gave the physical page
 * another host page (checked against bus.ram), or the decoded page went
 * (checked against the dcache). Entries that no longer hold are dropped
 * from `s` too, since their host pages may be reused. */
void cpu_tlb_save(struct cpu *c, struct cpu_tlb_saved *s);
void cpu_tlb_load(struct cpu *c, struct cpu_tlb_saved *s);
/* RAM page pa, read as zeros until now (bus.zero_page), has a host page
 * of its own: drop the read entries of hart `hart` (a struct cpu) that map
 * it to the shared zeros. The form of struct ram's `homed` callback. */
void cpu_ram_homed(void *hart, uint64_t pa);
/* Drop every decoded instruction (after RAM changed behind the hart). */
void cpu_flush_code(struct cpu *c);
/* The host page `page` is given up (a restore released it): drop its
 * decoded instructions, since the memory will be reused. */
void cpu_forget_page(struct cpu *c, const uint8_t *page);

/* A doorbell answer meaning "not now": the instruction does not retire,
 * the run ends, and the doorbell executes again on the next run. */
#define CPU_DOORBELL_STALL (~1ULL)
/* `len` bytes of guest RAM at host address `host` were written behind the
 * hart (DMA): undecode what they overlap. RAM pages must be host-page
 * aligned, as ram.c maps them. */
void cpu_ram_written(struct cpu *c, const uint8_t *host, uint64_t len);

/* Instructions stepped since power-on, the one executing included (the
 * cycle count). Kept as a difference so the run loop only counts down. */
static inline uint64_t cpu_steps(const struct cpu *c)
{
	return c->steps_done + (uint64_t)(c->run_len - c->budget);
}

/* The virtual clock the `time` CSR and the CLINT read. */
static inline uint64_t cpu_time(const struct cpu *c)
{
	return c->time_held ? c->time_held_at : cpu_steps(c) + c->time_skip;
}

/* Move the clock on by `ticks` (a sleeping hart skipping to its next
 * deadline: time moves then even while held). */
static inline void cpu_advance_time(struct cpu *c, uint64_t ticks)
{
	if (c->time_held)
		c->time_held_at += ticks;
	else
		c->time_skip += ticks;
}

/* Set the clock to t (a write to mtime; wraps as mtime does). */
static inline void cpu_set_time(struct cpu *c, uint64_t t)
{
	if (c->time_held)
		c->time_held_at = t;
	else
		c->time_skip += t - cpu_time(c);
}

/* Hold time still while instructions run (hold true), or let it run on
 * from where it was held (false): the board's way of making a stretch of
 * guest work take no time, so no timer tick lands inside it. */
static inline void cpu_hold_time(struct cpu *c, bool hold)
{
	if (hold == c->time_held)
		return;
	if (hold) {
		c->time_held_at = cpu_time(c);
		c->time_held_from = cpu_steps(c);
	} else {
		c->time_skip = c->time_held_at - cpu_steps(c);
	}
	c->time_held = hold;
}

/* Retired instructions (minstret without its guest-written offset). */
static inline uint64_t cpu_retired(const struct cpu *c)
{
	return cpu_steps(c) - c->traps;
}

#endif
