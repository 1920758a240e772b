/* cpu.c - the hart's run loop, trap and interrupt entry, and the executor
 * for the integer, multiply and atomic instructions (RV64IMA, Zifencei, and
 * the custom-0 doorbell). Compressed instructions arrive here already
 * expanded by rvc.c; F/D go to fpu.c, CSRs and privileged instructions to
 * csr.c.
 *
 * Control flow of one step: fetch (soft TLB), decode and execute. An
 * instruction that traps has already redirected pc to the trap vector when
 * its helper returns false, so it simply returns without touching pc or rd.
 * Interrupts are checked at the start of every cpu_run; a change that makes
 * one takeable now ends the run (budget = 0, cpu_recheck_irq), one that
 * leaves it masked does not. */
#include <errno.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "dcache.h"
#include "jit.h"

enum {
	OPC_LOAD = 0x03,
	OPC_LOAD_FP = 0x07,
	OPC_CUSTOM0 = 0x0b,
	OPC_MISC_MEM = 0x0f,
	OPC_IMM = 0x13,
	OPC_AUIPC = 0x17,
	OPC_IMM32 = 0x1b,
	OPC_STORE = 0x23,
	OPC_STORE_FP = 0x27,
	OPC_AMO = 0x2f,
	OPC_OP = 0x33,
	OPC_LUI = 0x37,
	OPC_OP32 = 0x3b,
	OPC_MADD = 0x43,
	OPC_MSUB = 0x47,
	OPC_NMSUB = 0x4b,
	OPC_NMADD = 0x4f,
	OPC_OP_FP = 0x53,
	OPC_BRANCH = 0x63,
	OPC_JALR = 0x67,
	OPC_JAL = 0x6f,
	OPC_SYSTEM = 0x73,
};

int cpu_init(struct cpu *c, const struct cpu_bus *bus, uint64_t pc)
{
	memset(c, 0, sizeof(*c));
	if (dcache_init(c) || cpu_use_jit(c, !getenv("THEMIS_INTERPRET"))) {
		cpu_free(c);
		return -ENOMEM;
	}
	c->bus = *bus;
	csr_reset(c);
	c->priv = PRV_M;
	c->pc = pc;
	memset(c->tlbs, 0xff, sizeof(c->tlbs)); /* every slot starts empty */
	cpu_flush_tlb(c);
	return 0;
}

void cpu_free(struct cpu *c)
{
	jit_free(c);
	dcache_free(c);
}

int cpu_use_jit(struct cpu *c, bool on)
{
	if (!on) {
		jit_free(c);
		return 0;
	}
	return c->jit ? 0 : jit_init(c);
}

void cpu_state_save(const struct cpu *c, void *state)
{
	memcpy(state, c, CPU_STATE_SIZE);
}

void cpu_state_load(struct cpu *c, const void *state)
{
	memcpy(c, state, CPU_STATE_SIZE);
	cpu_flush_tlb(c);
}

void cpu_stop(struct cpu *c)
{
	c->run_len -= c->budget;
	c->budget = 0;
}

static int irq_to_take(const struct cpu *c);

/* Only an interrupt the hart would take now needs the run to end (the next
 * cpu_run takes it before the next instruction). One still masked, or
 * none, does not: whatever unmasks it later rechecks then (a CSR write or
 * an xRET here; a device's cpu_set_irq always ends the run). So the hart
 * takes every interrupt at the same instruction as when every such write
 * ended the run, without ending a run at each spin_unlock_irqrestore. */
void cpu_recheck_irq(struct cpu *c)
{
	if (cpu_irq_takeable(c))
		cpu_stop(c);
}

bool cpu_irq_takeable(const struct cpu *c)
{
	return irq_to_take(c) >= 0;
}

void cpu_set_irq(struct cpu *c, uint64_t mask, bool level)
{
	if (level)
		c->csr.mip |= mask;
	else
		c->csr.mip &= ~mask;
	cpu_stop(c); /* the board may have more to do (a new timer deadline) */
}

/* Enter the trap handler for `cause`, in S-mode when delegated. */
static void trap_enter(struct cpu *c, uint64_t cause, uint64_t tval, bool interrupt)
{
	struct cpu_csrs *r = &c->csr;
	uint64_t deleg = interrupt ? r->mideleg : r->medeleg;
	uint64_t mcause = cause | (interrupt ? 1ULL << 63 : 0);
	int from = c->priv;

	if (from <= PRV_S && ((deleg >> cause) & 1)) {
		uint64_t s = r->mstatus & ~(MSTATUS_SPIE | MSTATUS_SIE | MSTATUS_SPP);
		s |= (r->mstatus & MSTATUS_SIE) ? MSTATUS_SPIE : 0;
		s |= from == PRV_S ? MSTATUS_SPP : 0;
		r->mstatus = s;
		r->scause = mcause;
		r->sepc = c->pc;
		r->stval = tval;
		c->priv = PRV_S;
		c->pc = (r->stvec & ~3ULL) + ((r->stvec & 1) && interrupt ? 4 * cause : 0);
	} else {
		if (c->bus.m_trap)
			c->bus.m_trap(c->bus.opaque, mcause, tval);
		uint64_t s = r->mstatus & ~(MSTATUS_MPIE | MSTATUS_MIE | MSTATUS_MPP);
		s |= (r->mstatus & MSTATUS_MIE) ? MSTATUS_MPIE : 0;
		s |= (uint64_t)from << 11;
		r->mstatus = s;
		r->mcause = mcause;
		r->mepc = c->pc;
		r->mtval = tval;
		c->priv = PRV_M;
		c->pc = (r->mtvec & ~3ULL) + ((r->mtvec & 1) && interrupt ? 4 * cause : 0);
	}
	mmu_select(c);
}

void cpu_exception(struct cpu *c, uint64_t cause, uint64_t tval)
{
	c->traps++;
	trap_enter(c, cause, tval, false);
}

/* The interrupt to take now, or -1: pending, enabled, and allowed at the
 * current privilege, highest priority first. */
static int irq_to_take(const struct cpu *c)
{
	static const int order[] = {IRQ_MEI, IRQ_MSI, IRQ_MTI, IRQ_SEI, IRQ_SSI, IRQ_STI};
	const struct cpu_csrs *r = &c->csr;
	uint64_t pending = r->mip & r->mie;
	if (!pending)
		return -1;
	bool m_on = c->priv < PRV_M || (r->mstatus & MSTATUS_MIE);
	bool s_on = c->priv < PRV_S || (c->priv == PRV_S && (r->mstatus & MSTATUS_SIE));
	uint64_t take = (m_on ? pending & ~r->mideleg : 0) | (s_on ? pending & r->mideleg : 0);
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (take & (1ULL << order[i]))
			return order[i];
	return -1;
}

static inline uint64_t sext32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)v;
}

static bool illegal(struct cpu *c)
{
	cpu_exception(c, EXC_ILLEGAL, c->raw_insn);
	return false;
}

/* The M extension, OP and OP-32 with funct7 1, by funct3: exec_decoded's
 * D_MUL.. and D_DIVW.. (jit.c's emit_muldiv compiles the same answers). */
static uint64_t mulh(int64_t a, int64_t b)
{
	return (uint64_t)(((__int128)a * b) >> 64);
}

static uint64_t mulhsu(int64_t a, uint64_t b)
{
	return (uint64_t)(((__int128)a * (__int128)b) >> 64);
}

static uint64_t mulhu(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static uint64_t muldiv64(int f3, uint64_t a, uint64_t b)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;
	switch (f3) {
	case 0: return a * b;
	case 1: return mulh(sa, sb);
	case 2: return mulhsu(sa, b);
	case 3: return mulhu(a, b);
	case 4:
		if (b == 0)
			return ~0ULL;
		if (sa == INT64_MIN && sb == -1)
			return a;
		return (uint64_t)(sa / sb);
	case 5: return b == 0 ? ~0ULL : a / b;
	case 6:
		if (b == 0)
			return a;
		if (sa == INT64_MIN && sb == -1)
			return 0;
		return (uint64_t)(sa % sb);
	default: return b == 0 ? a : a % b;
	}
}

static uint64_t muldiv32(int f3, uint32_t a, uint32_t b)
{
	int32_t sa = (int32_t)a, sb = (int32_t)b;
	switch (f3) {
	case 0: return sext32(a * b);
	case 4:
		if (b == 0)
			return ~0ULL;
		if (sa == INT32_MIN && sb == -1)
			return sext32(a);
		return sext32((uint32_t)(sa / sb));
	case 5: return b == 0 ? ~0ULL : sext32(a / b);
	case 6:
		if (b == 0)
			return sext32(a);
		if (sa == INT32_MIN && sb == -1)
			return 0;
		return sext32((uint32_t)(sa % sb));
	default: return sext32(b == 0 ? a : a % b);
	}
}

/* The AMO's new memory value from the old one and rs2, at width 32 or 64. */
static uint64_t amo_compute(int funct5, uint64_t old, uint64_t src, bool word)
{
	int64_t so = word ? (int32_t)old : (int64_t)old, ss = word ? (int32_t)src : (int64_t)src;
	uint64_t uo = word ? (uint32_t)old : old, us = word ? (uint32_t)src : src;
	switch (funct5) {
	case 0x00: return old + src;
	case 0x01: return src;
	case 0x04: return old ^ src;
	case 0x08: return old | src;
	case 0x0c: return old & src;
	case 0x10: return so < ss ? old : src;
	case 0x14: return so > ss ? old : src;
	case 0x18: return uo < us ? old : src;
	default: return uo > us ? old : src;
	}
}

static bool exec_lr(struct cpu *c, uint64_t va, int size, uint64_t *out)
{
	uint64_t v;
	if (va & (size - 1)) {
		cpu_exception(c, EXC_LOAD_MISALIGNED, va);
		return false;
	}
	if (!cpu_load(c, va, size, &v))
		return false;
	*out = size == 4 ? sext32(v) : v;
	c->res_valid = true;
	c->res_addr = va;
	c->res_val = *out;
	return true;
}

/* SC succeeds when the reservation is for this address and memory still
 * holds the value LR saw (QEMU's rule too); a failing SC touches nothing. */
static bool exec_sc(struct cpu *c, uint64_t va, int size, uint64_t src, uint64_t *out)
{
	bool held = c->res_valid && c->res_addr == va;
	c->res_valid = false;
	if (!held) {
		*out = 1;
		return true;
	}
	if (va & (size - 1)) {
		cpu_exception(c, EXC_STORE_MISALIGNED, va);
		return false;
	}
	uint8_t *p = mmu_rmw_ptr(c, va, size);
	if (!p)
		return false;
	uint64_t cur = 0;
	memcpy(&cur, p, size);
	if ((size == 4 ? sext32(cur) : cur) != c->res_val) {
		*out = 1;
		return true;
	}
	memcpy(p, &src, size);
	*out = 0;
	return true;
}

static bool exec_amo(struct cpu *c, uint32_t insn, uint64_t *out)
{
	int f3 = (insn >> 12) & 7, funct5 = insn >> 27;
	if (f3 != 2 && f3 != 3)
		return illegal(c);
	int size = f3 == 2 ? 4 : 8;
	uint64_t va = c->x[(insn >> 15) & 31], src = c->x[(insn >> 20) & 31];
	if (funct5 == 0x02)
		return ((insn >> 20) & 31) ? illegal(c) : exec_lr(c, va, size, out);
	if (funct5 == 0x03)
		return exec_sc(c, va, size, src, out);
	if (!amo_rmw_known((unsigned)funct5))
		return illegal(c);
	if (va & (size - 1)) {
		cpu_exception(c, EXC_STORE_MISALIGNED, va);
		return false;
	}
	uint8_t *p = mmu_rmw_ptr(c, va, size);
	if (!p)
		return false;
	uint64_t old = 0;
	memcpy(&old, p, size);
	uint64_t val = amo_compute(funct5, old, src, size == 4);
	memcpy(p, &val, size);
	*out = size == 4 ? sext32(old) : old;
	return true;
}

/* Execute one 32-bit (possibly expanded) instruction of length len that has
 * no fast path in exec_decoded(): atomics, fences, SYSTEM, F/D, the
 * doorbell, and every illegal encoding (the decoder sends anything it does
 * not recognise here). */
void cpu_exec_other(struct cpu *c, uint32_t insn, int len)
{
	int rd = (insn >> 7) & 31;
	uint64_t pc = c->pc, v = 0;

	switch (insn & 0x7f) {
	case OPC_AMO:
		if (!exec_amo(c, insn, &v))
			return;
		break;
	case OPC_MISC_MEM:
		/* fence and fence.i are no-ops: one hart, and stores keep the
		 * decoded-instruction cache coherent (dcache.h). */
		if (((insn >> 12) & 7) > 1) {
			illegal(c);
			return;
		}
		c->pc = pc + len;
		return;
	case OPC_SYSTEM: {
		int f3 = (insn >> 12) & 7;
		bool done = f3 == 0   ? csr_system(c, insn)
			    : f3 == 4 ? illegal(c)
				      : csr_exec(c, insn);
		if (done)
			c->pc = pc + len;
		return;
	}
	case OPC_LOAD_FP:
	case OPC_STORE_FP:
	case OPC_MADD:
	case OPC_MSUB:
	case OPC_NMSUB:
	case OPC_NMADD:
	case OPC_OP_FP:
		if (fpu_exec(c, insn))
			c->pc = pc + len;
		return;
	case OPC_CUSTOM0:
		if (!c->bus.doorbell) {
			illegal(c);
			return;
		}
		v = c->bus.doorbell(c->bus.opaque, c->x[10], c->x[11], c->x[12]);
		if (v == CPU_DOORBELL_STALL) {
			cpu_stop(c);
			return;
		}
		rd = 10;
		break;
	default: illegal(c); return;
	}
	if (rd)
		c->x[rd] = v;
	c->pc = pc + len;
}

static void exec_uncached(struct cpu *c);

void cpu_decode_slot(struct cpu *c, struct dinsn *d, const uint8_t *code, uint64_t pc)
{
	dcache_decode(d, code, pc & 0xfff);
	for (int i = 0; i < CPU_HOST_FNS; i++)
		if (unlikely(pc && (c->host_fn[i] == pc || c->host_fn_alias[i] == pc))) {
			d->op = (uint8_t)(D_HOST | (d->op & DINSN_C));
			d->rd = (uint8_t)i;
		}
}

/* A call of host function `which`: the bus computes it and the hart
 * returns as from the guest's function (false: it runs the guest's). */
static bool host_call(struct cpu *c, int which)
{
	uint64_t v;
	if (!c->bus.host_fn || !c->bus.host_fn(c->bus.opaque, c, which, &v))
		return false;
	c->x[10] = v;
	c->pc = c->x[1] & ~1ULL;
	return true;
}

bool cpu_host_call(struct cpu *c, int which)
{
	if (host_call(c, which))
		return true;
	exec_uncached(c); /* the instruction the slot stands for */
	return false;
}

/* Execute the decoded instruction d at pc. The common integer operations
 * run here directly; the rest go through exec(), the full decoder. Returns
 * true when a fast operation completed (so the fetch mapping of this page is
 * still valid), false after the full decoder or a trap. */
static inline __attribute__((always_inline)) bool exec_decoded(struct cpu *c, const struct dinsn *d,
							       uint64_t pc)
{
	uint64_t *x = c->x, a = x[d->rs1], b = x[d->rs2], v;
	int64_t imm = d->imm;
	unsigned op = dinsn_op(d), len = dinsn_len(d);
	switch (op) {
	case D_LUI: x[d->rd] = (uint64_t)imm; break;
	case D_AUIPC: x[d->rd] = pc + imm; break;
	case D_JAL:
		x[d->rd] = pc + len;
		c->pc = pc + imm;
		return true;
	case D_JALR:
		x[d->rd] = pc + len;
		c->pc = (a + imm) & ~1ULL;
		return true;
	case D_BEQ: c->pc = a == b ? pc + imm : pc + len; return true;
	case D_BNE: c->pc = a != b ? pc + imm : pc + len; return true;
	case D_BLT: c->pc = (int64_t)a < (int64_t)b ? pc + imm : pc + len; return true;
	case D_BGE: c->pc = (int64_t)a >= (int64_t)b ? pc + imm : pc + len; return true;
	case D_BLTU: c->pc = a < b ? pc + imm : pc + len; return true;
	case D_BGEU: c->pc = a >= b ? pc + imm : pc + len; return true;
	case D_LB:
	case D_LH:
	case D_LW:
	case D_LD:
	case D_LBU:
	case D_LHU:
	case D_LWU: {
		static const int size[] = {1, 2, 4, 8, 1, 2, 4};
		int k = (int)op - D_LB;
		if (!cpu_load(c, a + imm, size[k], &v))
			return false;
		if (k == 0)
			v = (uint64_t)(int64_t)(int8_t)v;
		else if (k == 1)
			v = (uint64_t)(int64_t)(int16_t)v;
		else if (k == 2)
			v = sext32(v);
		x[d->rd] = v;
		break;
	}
	case D_SB:
	case D_SH:
	case D_SW:
	case D_SD:
		if (!cpu_store(c, a + imm, 1 << (op - D_SB), b))
			return false;
		break;
	case D_ADDI: x[d->rd] = a + imm; break;
	case D_SLTI: x[d->rd] = (int64_t)a < imm; break;
	case D_SLTIU: x[d->rd] = a < (uint64_t)imm; break;
	case D_XORI: x[d->rd] = a ^ imm; break;
	case D_ORI: x[d->rd] = a | imm; break;
	case D_ANDI: x[d->rd] = a & imm; break;
	case D_SLLI: x[d->rd] = a << imm; break;
	case D_SRLI: x[d->rd] = a >> imm; break;
	case D_SRAI: x[d->rd] = (uint64_t)((int64_t)a >> imm); break;
	case D_ADDIW: x[d->rd] = sext32(a + imm); break;
	case D_SLLIW: x[d->rd] = sext32((uint32_t)a << imm); break;
	case D_SRLIW: x[d->rd] = sext32((uint32_t)a >> imm); break;
	case D_SRAIW: x[d->rd] = sext32((uint32_t)((int32_t)a >> imm)); break;
	case D_ADD: x[d->rd] = a + b; break;
	case D_SUB: x[d->rd] = a - b; break;
	case D_SLL: x[d->rd] = a << (b & 63); break;
	case D_SLT: x[d->rd] = (int64_t)a < (int64_t)b; break;
	case D_SLTU: x[d->rd] = a < b; break;
	case D_XOR: x[d->rd] = a ^ b; break;
	case D_SRL: x[d->rd] = a >> (b & 63); break;
	case D_SRA: x[d->rd] = (uint64_t)((int64_t)a >> (b & 63)); break;
	case D_OR: x[d->rd] = a | b; break;
	case D_AND: x[d->rd] = a & b; break;
	case D_ADDW: x[d->rd] = sext32(a + b); break;
	case D_SUBW: x[d->rd] = sext32(a - b); break;
	case D_SLLW: x[d->rd] = sext32((uint32_t)a << (b & 31)); break;
	case D_SRLW: x[d->rd] = sext32((uint32_t)a >> (b & 31)); break;
	case D_SRAW: x[d->rd] = sext32((uint32_t)((int32_t)a >> (b & 31))); break;
	case D_MUL: x[d->rd] = a * b; break;
	case D_MULW: x[d->rd] = sext32((uint32_t)a * (uint32_t)b); break;
	case D_MULH:
	case D_MULHSU:
	case D_MULHU:
	case D_DIV:
	case D_DIVU:
	case D_REM:
	case D_REMU: x[d->rd] = muldiv64((int)(op - D_MUL), a, b); break;
	case D_DIVW:
	case D_DIVUW:
	case D_REMW:
	case D_REMUW: x[d->rd] = muldiv32((int)(op - D_DIVW) + 4, (uint32_t)a, (uint32_t)b); break;
	case D_GENERIC:
		c->raw_insn = (uint32_t)d->imm;
		cpu_exec_other(c, len == 2 ? rvc_lookup((uint16_t)d->imm) : (uint32_t)d->imm,
			       (int)len);
		return false;
	case D_HOST: cpu_host_call(c, d->rd); return false;
	default: /* D_SLOW */ exec_uncached(c); return false;
	}
	c->pc = pc + len;
	return true;
}

/* Fetch, decode and execute the instruction at pc without the cache: for
 * an instruction straddling two pages, and for code the fetch TLB does not
 * cache (outside plain RAM). */
static void exec_uncached(struct cpu *c)
{
	uint32_t insn;
	struct dinsn d;
	if (!mmu_fetch_slow(c, c->pc, &insn))
		return;
	dcache_decode_insn(&d, insn);
	exec_decoded(c, &d, c->pc);
}

/* Run instructions of the page holding pc: the compiled block at pc when
 * there is one and the budget covers it; otherwise through the
 * decoded-instruction cache, one instruction when compiling (back to blocks
 * as soon as possible), else while control stays in the page and only fast
 * operations run. The fetch translation is looked up once per visit, not
 * once per instruction. */
static inline __attribute__((always_inline)) struct jit_exit *run_page(struct cpu *c,
								       struct jit_exit *from)
{
	uint64_t pc = c->pc;
	const struct cpu_tlb_entry *e = &c->tlb_x[tlb_vpn(pc) % CPU_TLB_SIZE];
	if (unlikely(e->tag != tlb_vpn(pc))) {
		int mapped = mmu_fill_fetch(c, pc);
		if (mapped <= 0) { /* a fetch fault is this step; not RAM: fetch slowly */
			c->budget--;
			if (mapped == 0)
				exec_uncached(c);
			return NULL;
		}
	}
	struct dpage *code = e->code;
	uintptr_t addend = e->addend;
	uint64_t vpage = pc & ~0xfffULL;
	int64_t floor = 0;
	if (c->jit) {
		jit_fn fn = jit_block_at(c, code, pc, (const uint8_t *)(addend + pc), from);
		int64_t before = c->budget;
		if (fn) {
			struct jit_exit *x = jit_run(c, fn);
			if (c->budget != before) /* it ran: a block charges itself */
				return x;
		}
		floor = c->budget - 1;
	}
	bool fast;
	do {
		struct dinsn *d = &code->slot[(pc & 0xfff) >> 1];
		if (unlikely(d->op == D_NONE))
			cpu_decode_slot(c, d, (const uint8_t *)(addend + pc), pc);
		c->budget--;
		fast = exec_decoded(c, d, pc);
		pc = c->pc;
	} while (fast && c->budget > floor && (pc & ~0xfffULL) == vpage);
	return NULL;
}

uint64_t cpu_run(struct cpu *c, uint64_t n)
{
	int irq = irq_to_take(c);
	if (c->csr.mip & c->csr.mie)
		c->wfi = false;
	if (irq >= 0)
		trap_enter(c, (uint64_t)irq, 0, true);
	if (c->wfi)
		return 0;
	c->events[CPU_EV_RUN]++;
	c->run_len = c->budget = (int64_t)n;
	struct jit_exit *from = NULL;
	while (c->budget > 0) {
		c->events[CPU_EV_DISPATCH]++;
		from = run_page(c, from);
	}
	uint64_t stepped = (uint64_t)(c->run_len - c->budget);
	c->steps_done += stepped;
	c->run_len = c->budget = 0;
	return stepped;
}
