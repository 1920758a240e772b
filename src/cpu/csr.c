/* csr.c - the control and status registers (Zicsr) and the SYSTEM
 * instructions that change privilege: ecall, ebreak, mret, sret, wfi,
 * sfence.vma.
 *
 * Where the privileged spec leaves a choice (WARL fields, which CSRs exist)
 * we follow QEMU 7.2's `rv64` CPU, the second implementation this hart is
 * compared against. Any change that can alter translation (satp, MPRV, SUM,
 * MXR, MPP while MPRV, a privilege change) flushes the soft TLB; any change
 * that can unmask an interrupt ends the current run so it is taken. */
#include "cpu_internal.h"

#define MISA_RV64GC_SU                                                                             \
	((2ULL << 62) | (1 << 0) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 8) | (1 << 12) |         \
	 (1 << 18) | (1 << 20))

#define SSTATUS_MASK                                                                               \
	(MSTATUS_SIE | MSTATUS_SPIE | MSTATUS_SPP | MSTATUS_FS | MSTATUS_SUM | MSTATUS_MXR |       \
	 (3ULL << 32) | MSTATUS_SD)
#define MSTATUS_WRITABLE                                                                           \
	(MSTATUS_SIE | MSTATUS_MIE | MSTATUS_SPIE | MSTATUS_MPIE | MSTATUS_SPP | MSTATUS_MPP |     \
	 MSTATUS_FS | MSTATUS_MPRV | MSTATUS_SUM | MSTATUS_MXR | MSTATUS_TVM | MSTATUS_TW |        \
	 MSTATUS_TSR)
#define MSTATUS_UXL_SXL (0xaULL << 32) /* both 64-bit, read-only */

#define MIP_S_BITS	 ((1ULL << IRQ_SSI) | (1ULL << IRQ_STI) | (1ULL << IRQ_SEI))
#define MIE_WRITABLE	 (MIP_S_BITS | (1ULL << IRQ_MSI) | (1ULL << IRQ_MTI) | (1ULL << IRQ_MEI))
#define MEDELEG_WRITABLE 0xb3ffULL /* all but ecall-from-M and the reserved causes */

enum {
	CSR_FFLAGS = 0x001,
	CSR_FRM = 0x002,
	CSR_FCSR = 0x003,
	CSR_CYCLE = 0xc00,
	CSR_TIME = 0xc01,
	CSR_INSTRET = 0xc02,
	CSR_SSTATUS = 0x100,
	CSR_SIE = 0x104,
	CSR_STVEC = 0x105,
	CSR_SCOUNTEREN = 0x106,
	CSR_SENVCFG = 0x10a,
	CSR_SSCRATCH = 0x140,
	CSR_SEPC = 0x141,
	CSR_SCAUSE = 0x142,
	CSR_STVAL = 0x143,
	CSR_SIP = 0x144,
	CSR_SATP = 0x180,
	CSR_MVENDORID = 0xf11,
	CSR_MARCHID = 0xf12,
	CSR_MIMPID = 0xf13,
	CSR_MHARTID = 0xf14,
	CSR_MCONFIGPTR = 0xf15,
	CSR_MSTATUS = 0x300,
	CSR_MISA = 0x301,
	CSR_MEDELEG = 0x302,
	CSR_MIDELEG = 0x303,
	CSR_MIE = 0x304,
	CSR_MTVEC = 0x305,
	CSR_MCOUNTEREN = 0x306,
	CSR_MENVCFG = 0x30a,
	CSR_MCOUNTINHIBIT = 0x320,
	CSR_MSCRATCH = 0x340,
	CSR_MEPC = 0x341,
	CSR_MCAUSE = 0x342,
	CSR_MTVAL = 0x343,
	CSR_MIP = 0x344,
	CSR_TSELECT = 0x7a0,
	CSR_TDATA1 = 0x7a1,
	CSR_TDATA2 = 0x7a2,
	CSR_TDATA3 = 0x7a3,
	CSR_MCYCLE = 0xb00,
	CSR_MINSTRET = 0xb02,
};

bool csr_fs_enabled(const struct cpu *c)
{
	return (c->csr.mstatus & MSTATUS_FS) != 0;
}

void csr_fs_dirty(struct cpu *c)
{
	c->csr.mstatus |= MSTATUS_FS | MSTATUS_SD;
}

static uint64_t mstatus_read(const struct cpu *c)
{
	uint64_t s = c->csr.mstatus & ~MSTATUS_SD;
	if ((s & MSTATUS_FS) == MSTATUS_FS)
		s |= MSTATUS_SD;
	return s | MSTATUS_UXL_SXL;
}

/* The bits whose change selects another translation regime (mmu_select);
 * a change of MXR flushes instead. */
#define MSTATUS_REGIME (MSTATUS_MPRV | MSTATUS_SUM | MSTATUS_MPP)

static void mstatus_write(struct cpu *c, uint64_t val, uint64_t mask)
{
	uint64_t old = c->csr.mstatus;
	c->csr.mstatus = (old & ~mask) | (val & mask);
	uint64_t changed = old ^ c->csr.mstatus;
	if (changed & MSTATUS_MXR)
		cpu_flush_tlb(c);
	else if (changed & MSTATUS_REGIME)
		mmu_select(c);
	cpu_recheck_irq(c);
}

/* Counter access from S/U is gated by mcounteren and scounteren. */
static bool counter_allowed(const struct cpu *c, int csr)
{
	uint64_t bit = 1ULL << (csr & 31);
	if (c->priv < PRV_M && !(c->csr.mcounteren & bit))
		return false;
	if (c->priv < PRV_S && !(c->csr.scounteren & bit))
		return false;
	return true;
}

static bool is_pmp(int csr)
{
	return (csr >= 0x3a0 && csr <= 0x3af) || (csr >= 0x3b0 && csr <= 0x3ef);
}

static bool is_hpm(int csr)
{
	return (csr >= 0xc03 && csr <= 0xc1f) || (csr >= 0xb03 && csr <= 0xb1f) ||
	       (csr >= 0x323 && csr <= 0x33f);
}

/* Read a CSR; false when it does not exist or may not be read here. */
static bool csr_read(struct cpu *c, int csr, uint64_t *v)
{
	struct cpu_csrs *r = &c->csr;
	if (csr <= CSR_FCSR && !csr_fs_enabled(c))
		return false;
	if ((csr >= CSR_CYCLE && csr <= 0xc1f) && !counter_allowed(c, csr))
		return false;
	if (csr == CSR_SATP && c->priv == PRV_S && (r->mstatus & MSTATUS_TVM))
		return false;
	switch (csr) {
	case CSR_FFLAGS: *v = r->fflags; return true;
	case CSR_FRM: *v = r->frm; return true;
	case CSR_FCSR: *v = r->frm << 5 | r->fflags; return true;
	case CSR_CYCLE:
	case CSR_MCYCLE: *v = cpu_steps(c) + r->cycle_off; return true;
	case CSR_TIME: *v = cpu_time(c); return true;
	case CSR_INSTRET:
	case CSR_MINSTRET: *v = cpu_retired(c) + r->instret_off; return true;
	case CSR_SSTATUS: *v = mstatus_read(c) & SSTATUS_MASK; return true;
	case CSR_SIE: *v = r->mie & r->mideleg; return true;
	case CSR_STVEC: *v = r->stvec; return true;
	case CSR_SCOUNTEREN: *v = r->scounteren; return true;
	case CSR_SENVCFG: *v = r->senvcfg; return true;
	case CSR_SSCRATCH: *v = r->sscratch; return true;
	case CSR_SEPC: *v = r->sepc; return true;
	case CSR_SCAUSE: *v = r->scause; return true;
	case CSR_STVAL: *v = r->stval; return true;
	case CSR_SIP: *v = r->mip & r->mideleg; return true;
	case CSR_SATP: *v = r->satp; return true;
	case CSR_MVENDORID:
	case CSR_MARCHID:
	case CSR_MIMPID:
	case CSR_MHARTID:
	case CSR_MCONFIGPTR: *v = 0; return true;
	case CSR_MSTATUS: *v = mstatus_read(c); return true;
	case CSR_MISA: *v = r->misa; return true;
	case CSR_MEDELEG: *v = r->medeleg; return true;
	case CSR_MIDELEG: *v = r->mideleg; return true;
	case CSR_MIE: *v = r->mie; return true;
	case CSR_MTVEC: *v = r->mtvec; return true;
	case CSR_MCOUNTEREN: *v = r->mcounteren; return true;
	case CSR_MENVCFG: *v = r->menvcfg; return true;
	case CSR_MCOUNTINHIBIT: *v = r->mcountinhibit; return true;
	case CSR_MSCRATCH: *v = r->mscratch; return true;
	case CSR_MEPC: *v = r->mepc; return true;
	case CSR_MCAUSE: *v = r->mcause; return true;
	case CSR_MTVAL: *v = r->mtval; return true;
	case CSR_MIP: *v = r->mip; return true;
	case CSR_TSELECT:
	case CSR_TDATA1:
	case CSR_TDATA2:
	case CSR_TDATA3: *v = 0; return true; /* no triggers: see below */
	default: break;
	}
	if (is_pmp(csr)) {
		*v = csr < 0x3b0 ? r->pmpcfg[csr - 0x3a0] : r->pmpaddr[csr - 0x3b0];
		return true;
	}
	if (is_hpm(csr)) {
		*v = 0;
		return true;
	}
	/* Debug triggers (Sdtrig) with zero triggers. tselect and tdata1..3
	 * exist so that the debug spec's enumeration (and the official
	 * breakpoint test) can run: tselect is hard-wired to 0 (WARL), and
	 * tdata1 reads 0, type 0 = "there is no trigger at this tselect";
	 * tdata2/3 read 0; every write is ignored. Nothing is stored, so
	 * nothing needs forking. tinfo, tcontrol and mcontext (0x7a4, 0x7a5,
	 * 0x7a8) stay absent: the spec lets a debugger fall back to tdata1's
	 * type. QEMU 7.2 has two triggers instead (docs/bare-machine.md). */
	return false;
}

static void satp_write(struct cpu *c, uint64_t v)
{
	uint64_t mode = v >> 60;
	if (mode != 0 && mode != 8)
		return; /* unsupported modes leave satp unchanged (WARL) */
	c->csr.satp = mode == 0 ? 0 : v & ~(0xffffULL << 44) /* ASID 0 only */;
	cpu_flush_tlb(c);
}

/* mtvec/stvec: a write with a reserved mode (2, 3) is ignored, as QEMU does. */
static void tvec_write(uint64_t *tvec, uint64_t v)
{
	if ((v & 3) < 2)
		*tvec = v;
}

/* Write a CSR the caller has already checked exists and is writable. */
static void csr_write(struct cpu *c, int csr, uint64_t v)
{
	struct cpu_csrs *r = &c->csr;
	switch (csr) {
	case CSR_FFLAGS:
		r->fflags = v & 0x1f;
		csr_fs_dirty(c);
		return;
	case CSR_FRM:
		r->frm = v & 7;
		csr_fs_dirty(c);
		return;
	case CSR_FCSR:
		r->fflags = v & 0x1f;
		r->frm = (v >> 5) & 7;
		csr_fs_dirty(c);
		return;
	case CSR_MCYCLE: r->cycle_off = v - cpu_steps(c) - 1; return;
	case CSR_MINSTRET: r->instret_off = v - cpu_retired(c) - 1; return;
	case CSR_SSTATUS: mstatus_write(c, v, SSTATUS_MASK & MSTATUS_WRITABLE); return;
	case CSR_SIE: r->mie = (r->mie & ~r->mideleg) | (v & r->mideleg & MIE_WRITABLE); break;
	case CSR_STVEC: tvec_write(&r->stvec, v); return;
	case CSR_SCOUNTEREN: r->scounteren = v & 0xffffffff; return;
	case CSR_SENVCFG: r->senvcfg = 0; return;
	case CSR_SSCRATCH: r->sscratch = v; return;
	case CSR_SEPC: r->sepc = v & ~1ULL; return;
	case CSR_SCAUSE: r->scause = v; return;
	case CSR_STVAL: r->stval = v; return;
	case CSR_SIP: {
		uint64_t m = r->mideleg & (1ULL << IRQ_SSI);
		r->mip = (r->mip & ~m) | (v & m);
		break;
	}
	case CSR_SATP: satp_write(c, v); return;
	case CSR_MSTATUS: mstatus_write(c, v, MSTATUS_WRITABLE); return;
	case CSR_MISA: return; /* read-only: the extensions cannot be turned off */
	case CSR_MEDELEG: r->medeleg = v & MEDELEG_WRITABLE; return;
	case CSR_MIDELEG: r->mideleg = v & MIP_S_BITS; break;
	case CSR_MIE: r->mie = v & MIE_WRITABLE; break;
	case CSR_MTVEC: tvec_write(&r->mtvec, v); return;
	case CSR_MCOUNTEREN: r->mcounteren = v & 0xffffffff; return;
	case CSR_MENVCFG: r->menvcfg = 0; return;
	case CSR_MCOUNTINHIBIT: r->mcountinhibit = 0; return;
	case CSR_MSCRATCH: r->mscratch = v; return;
	case CSR_MEPC: r->mepc = v & ~1ULL; return;
	case CSR_MCAUSE: r->mcause = v; return;
	case CSR_MTVAL: r->mtval = v; return;
	case CSR_MIP: r->mip = (r->mip & ~MIP_S_BITS) | (v & MIP_S_BITS); break;
	case CSR_TSELECT:
	case CSR_TDATA1:
	case CSR_TDATA2:
	case CSR_TDATA3: return; /* zero triggers: nothing to select or arm */
	default:
		if (csr >= 0x3a0 && csr <= 0x3af)
			r->pmpcfg[csr - 0x3a0] = (csr & 1) ? 0 : v;
		else if (csr >= 0x3b0 && csr <= 0x3ef)
			r->pmpaddr[csr - 0x3b0] = v & ((1ULL << 54) - 1);
		return; /* hpm counters and events are read-as-zero */
	}
	cpu_recheck_irq(c); /* mie, mip, mideleg, sie or sip changed */
}

/* What csrrs/csrrc (and their immediate forms) write: old with src's bits
 * set or cleared; csrrw writes src. */
static uint64_t csr_rmw(int f3, uint64_t old, uint64_t src)
{
	if ((f3 & 3) == 2)
		return old | src;
	if ((f3 & 3) == 3)
		return old & ~src;
	return src;
}

/* csr_fast on sstatus: the regime may change, an interrupt may not become
 * takeable. */
static bool sstatus_fast(struct cpu *c, int f3, uint64_t src, bool writes, uint64_t *old)
{
	*old = mstatus_read(c) & SSTATUS_MASK;
	if (!writes)
		return true;
	uint64_t mask = SSTATUS_MASK & MSTATUS_WRITABLE, prev = c->csr.mstatus;
	uint64_t next = (prev & ~mask) | (csr_rmw(f3, *old, src) & mask);
	if ((prev ^ next) & MSTATUS_MXR)
		return false;
	c->csr.mstatus = next;
	if (cpu_irq_takeable(c)) {
		c->csr.mstatus = prev;
		return false;
	}
	if ((prev ^ next) & MSTATUS_REGIME)
		mmu_select(c);
	return true;
}

bool csr_fast(struct cpu *c, uint32_t insn, uint64_t src, uint64_t *old)
{
	int csr = insn >> 20, rs1 = (insn >> 15) & 31, f3 = (insn >> 12) & 7;
	bool writes = (f3 & 3) == 1 || rs1 != 0;
	if (c->priv != PRV_S)
		return false;
	switch (csr) {
	case CSR_SSTATUS: return sstatus_fast(c, f3, src, writes, old);
	case CSR_SSCRATCH:
	case CSR_SEPC:
	case CSR_SCAUSE:
	case CSR_STVAL: /* plain registers: reading and writing them is all */
		if (!csr_read(c, csr, old))
			return false;
		if (writes)
			csr_write(c, csr, csr_rmw(f3, *old, src));
		return true;
	default: return false;
	}
}

bool csr_exec(struct cpu *c, uint32_t insn)
{
	int csr = insn >> 20, rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31;
	int f3 = (insn >> 12) & 7;
	uint64_t src = (f3 & 4) ? (uint64_t)rs1 : c->x[rs1];
	bool writes = (f3 & 3) == 1 || rs1 != 0; /* csrrw always; csrrs/c only with rs1 != x0 */
	bool reads = (f3 & 3) != 1 || rd != 0;
	uint64_t old = 0;

	if (c->priv < ((csr >> 8) & 3) || (writes && (csr >> 10) == 3) || !csr_read(c, csr, &old)) {
		cpu_exception(c, EXC_ILLEGAL, c->raw_insn);
		return false;
	}
	(void)reads;
	if (writes)
		csr_write(c, csr, csr_rmw(f3, old, src));
	if (rd)
		c->x[rd] = old;
	return true;
}

static void do_mret(struct cpu *c)
{
	uint64_t s = c->csr.mstatus;
	int mpp = (int)((s & MSTATUS_MPP) >> 11);
	s = (s & ~MSTATUS_MIE) | ((s & MSTATUS_MPIE) ? MSTATUS_MIE : 0);
	s |= MSTATUS_MPIE;
	s &= ~MSTATUS_MPP;
	/* Priv 1.12 would clear MPRV when returning below M; QEMU 7.2 (our
	 * second opinion) keeps the 1.11 behaviour, and so do we. */
	c->csr.mstatus = s;
	c->res_valid = false; /* as QEMU: a reservation never survives xRET */
	c->priv = mpp;
	c->pc = c->csr.mepc;
	mmu_select(c);
	cpu_recheck_irq(c);
}

static void do_sret(struct cpu *c)
{
	uint64_t s = c->csr.mstatus;
	int spp = (s & MSTATUS_SPP) ? PRV_S : PRV_U;
	s = (s & ~MSTATUS_SIE) | ((s & MSTATUS_SPIE) ? MSTATUS_SIE : 0);
	s |= MSTATUS_SPIE;
	s &= ~MSTATUS_SPP;
	c->csr.mstatus = s;
	c->res_valid = false;
	c->priv = spp;
	c->pc = c->csr.sepc;
	mmu_select(c);
	cpu_recheck_irq(c);
}

static bool illegal(struct cpu *c)
{
	cpu_exception(c, EXC_ILLEGAL, c->raw_insn);
	return false;
}

/* ecall, ebreak, xRET, wfi, sfence.vma (funct3 = 0 of SYSTEM). */
bool csr_system(struct cpu *c, uint32_t insn)
{
	uint32_t rd = (insn >> 7) & 31, f7 = insn >> 25;
	if (f7 == 0x09 && rd == 0) { /* sfence.vma */
		if (c->priv == PRV_U || (c->priv == PRV_S && (c->csr.mstatus & MSTATUS_TVM)))
			return illegal(c);
		cpu_flush_tlb(c);
		return true;
	}
	if ((insn >> 15) & 31 || rd)
		return illegal(c);
	switch (insn >> 20) {
	case 0x000:
		if (c->priv == PRV_S && c->bus.sbi_call && c->bus.sbi_call(c->bus.opaque, c))
			return true;
		cpu_exception(c, EXC_ECALL_U + (c->priv == PRV_M ? 3 : c->priv), 0);
		return false;
	case 0x001: cpu_exception(c, EXC_BREAKPOINT, 0); return false; /* QEMU: tval 0 */
	case 0x102:
		if (c->priv < PRV_S || (c->priv == PRV_S && (c->csr.mstatus & MSTATUS_TSR)))
			return illegal(c);
		do_sret(c);
		return false; /* pc already set */
	case 0x302:
		if (c->priv < PRV_M)
			return illegal(c);
		do_mret(c);
		return false;
	case 0x105:
		if (c->priv == PRV_U || (c->priv == PRV_S && (c->csr.mstatus & MSTATUS_TW)))
			return illegal(c);
		if (!(c->csr.mip & c->csr.mie)) { /* the board skips time to its next event */
			c->wfi = true;
			cpu_stop(c);
		}
		return true;
	default: return illegal(c);
	}
}

void csr_reset(struct cpu *c)
{
	memset(&c->csr, 0, sizeof(c->csr));
	c->csr.misa = MISA_RV64GC_SU;
}
