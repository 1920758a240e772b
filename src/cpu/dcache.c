/* dcache.c - see dcache.h. Decoding maps the common integer instructions
 * to specialised operations with their fields pre-extracted; anything
 * unusual (and anything illegal) stays D_GENERIC, so the full decoder in
 * cpu.c remains the single authority on what an encoding means. */
#include <errno.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "dcache.h"

int dcache_init(struct cpu *c)
{
	c->dc = calloc(1, sizeof(*c->dc));
	return c->dc ? 0 : -ENOMEM;
}

void dcache_free(struct cpu *c)
{
	if (!c->dc)
		return;
	for (int i = 0; i < DCACHE_PAGES; i++)
		free(c->dc->page[i]);
	free(c->dc);
	c->dc = NULL;
}

static void dcache_changed(struct dcache *dc, unsigned i)
{
	dc->gen[i]++;
	dc->epoch++;
}

struct dpage *dcache_find(struct cpu *c, const uint8_t *host)
{
	unsigned i = dcache_index(host);
	return c->dc->host[i] == host ? c->dc->page[i] : NULL;
}

struct dpage *dcache_get(struct cpu *c, const uint8_t *host)
{
	unsigned i = dcache_index(host);
	struct dpage *p = c->dc->page[i];
	if (c->dc->host[i] == host)
		return p;
	if (!p) {
		p = malloc(sizeof(*p));
		if (!p)
			return NULL;
		c->dc->page[i] = p;
	} else {
		/* Evict: fetch-TLB entries may point at this page (invariant 2). */
		mmu_flush_fetch(c);
	}
	memset(p->slot, 0, sizeof(p->slot));
	c->events[CPU_EV_DECODE]++;
	c->dc->host[i] = host;
	dcache_changed(c->dc, i);
	mmu_unmap_writable(c, host); /* invariant 1 */
	return p;
}

void dcache_store(struct cpu *c, const uint8_t *host, unsigned off, unsigned size)
{
	struct dpage *p = dcache_find(c, host);
	if (!p)
		return;
	dcache_changed(c->dc, dcache_index(host));
	/* A 32-bit instruction starting 2 bytes before the store overlaps it. */
	unsigned first = off >= 2 ? (off - 2) / 2 : 0, last = (off + size - 1) / 2;
	for (unsigned s = first; s <= last && s < DPAGE_SLOTS; s++)
		p->slot[s].op = D_NONE;
}

void cpu_ram_written(struct cpu *c, const uint8_t *host, uint64_t len)
{
	while (len) {
		const uint8_t *page = (const uint8_t *)((uintptr_t)host & ~(uintptr_t)0xfff);
		unsigned off = (unsigned)(host - page);
		uint64_t n = 4096 - off < len ? 4096 - off : len;
		dcache_store(c, page, off, (unsigned)n);
		host += n, len -= n;
	}
}

void cpu_forget_page(struct cpu *c, const uint8_t *page)
{
	unsigned i = dcache_index(page);
	if (c->dc->host[i] == page) {
		c->dc->host[i] = NULL;
		dcache_changed(c->dc, i);
		mmu_flush_fetch(c); /* invariant 2 */
	}
}

void cpu_flush_code(struct cpu *c)
{
	for (unsigned i = 0; i < DCACHE_PAGES; i++) {
		c->dc->host[i] = NULL;
		dcache_changed(c->dc, i);
	}
	mmu_flush_fetch(c);
}

static const uint8_t op_load[8] = {D_LB, D_LH, D_LW, D_LD, D_LBU, D_LHU, D_LWU, D_GENERIC};
static const uint8_t op_branch[8] = {D_BEQ, D_BNE, D_GENERIC, D_GENERIC,
				     D_BLT, D_BGE, D_BLTU,    D_BGEU};
static const uint8_t op_imm[8] = {D_ADDI, D_SLLI, D_SLTI, D_SLTIU, D_XORI, D_SRLI, D_ORI, D_ANDI};
static const uint8_t op_reg[8] = {D_ADD, D_SLL, D_SLT, D_SLTU, D_XOR, D_SRL, D_OR, D_AND};

static int32_t imm_i(uint32_t insn)
{
	return (int32_t)insn >> 20;
}

static int32_t imm_s(uint32_t insn)
{
	return (int32_t)(((uint32_t)((int32_t)insn >> 25) << 5) | ((insn >> 7) & 31));
}

static int32_t imm_b(uint32_t insn)
{
	return (int32_t)(((uint32_t)((int32_t)insn >> 31) << 12) | ((insn >> 7) & 1) << 11 |
			 ((insn >> 25) & 0x3f) << 5 | ((insn >> 8) & 0xf) << 1);
}

static int32_t imm_j(uint32_t insn)
{
	return (int32_t)(((uint32_t)((int32_t)insn >> 31) << 20) | (insn & 0xff000) |
			 ((insn >> 20) & 1) << 11 | ((insn >> 21) & 0x3ff) << 1);
}

/* The fast operation for shifts-by-immediate, or D_GENERIC when the
 * encoding has reserved bits set (the full decoder then raises illegal). */
static uint8_t shift_imm_op(uint32_t insn, bool word)
{
	int f3 = (insn >> 12) & 7;
	uint32_t hi = word ? insn >> 25 : insn >> 26;
	uint32_t arith = word ? 0x20 : 0x10;
	if (f3 == 1)
		return hi == 0 ? (word ? D_SLLIW : D_SLLI) : D_GENERIC;
	if (hi == 0)
		return word ? D_SRLIW : D_SRLI;
	return hi == arith ? (word ? D_SRAIW : D_SRAI) : D_GENERIC;
}

static uint8_t reg_op(uint32_t insn)
{
	int f3 = (insn >> 12) & 7, f7 = insn >> 25;
	if (f7 == 0)
		return op_reg[f3];
	if (f7 == 0x20)
		return f3 == 0 ? D_SUB : f3 == 5 ? D_SRA : D_GENERIC;
	return f7 == 1 ? (uint8_t)(D_MUL + f3) : D_GENERIC;
}

static uint8_t reg32_op(uint32_t insn)
{
	int f3 = (insn >> 12) & 7, f7 = insn >> 25;
	if (f7 == 0)
		return f3 == 0 ? D_ADDW : f3 == 1 ? D_SLLW : f3 == 5 ? D_SRLW : D_GENERIC;
	if (f7 == 0x20)
		return f3 == 0 ? D_SUBW : f3 == 5 ? D_SRAW : D_GENERIC;
	if (f7 != 1)
		return D_GENERIC;
	return f3 == 0 ? D_MULW : f3 >= 4 ? (uint8_t)(D_DIVW + f3 - 4) : D_GENERIC;
}

/* Decode a (possibly expanded) 32-bit instruction's operation and immediate. */
static void decode32(struct dinsn *d, uint32_t insn)
{
	int f3 = (insn >> 12) & 7;
	d->rd = (insn >> 7) & 31;
	if (d->rd == 0)
		d->rd = 32; /* the sink: x0 stays zero without a store per step */
	d->rs1 = (insn >> 15) & 31;
	d->rs2 = (insn >> 20) & 31;
	d->imm = imm_i(insn);
	switch (insn & 0x7f) {
	case 0x37: d->op = D_LUI, d->imm = (int32_t)(insn & 0xfffff000); break;
	case 0x17: d->op = D_AUIPC, d->imm = (int32_t)(insn & 0xfffff000); break;
	case 0x6f: d->op = D_JAL, d->imm = imm_j(insn); break;
	case 0x67: d->op = f3 ? D_GENERIC : D_JALR; break;
	case 0x63: d->op = op_branch[f3], d->imm = imm_b(insn); break;
	case 0x03: d->op = op_load[f3]; break;
	case 0x23: d->op = f3 < 4 ? D_SB + f3 : D_GENERIC, d->imm = imm_s(insn); break;
	case 0x13:
		d->op = (f3 == 1 || f3 == 5) ? shift_imm_op(insn, false) : op_imm[f3];
		if (f3 == 1 || f3 == 5)
			d->imm &= 63;
		break;
	case 0x1b:
		d->op = f3 == 0		       ? D_ADDIW
			: (f3 == 1 || f3 == 5) ? shift_imm_op(insn, true)
					       : D_GENERIC;
		if (f3 == 1 || f3 == 5)
			d->imm &= 31;
		break;
	case 0x33: d->op = reg_op(insn); break;
	case 0x3b: d->op = reg32_op(insn); break;
	default: d->op = D_GENERIC; break;
	}
}

void dcache_decode_insn(struct dinsn *d, uint32_t insn)
{
	if ((insn & 3) != 3) {
		uint16_t lo = (uint16_t)insn;
		uint32_t full = rvc_lookup(lo);
		if (full)
			decode32(d, full);
		else
			d->op = D_GENERIC; /* exec_other raises illegal */
		if (d->op == D_GENERIC)
			d->imm = lo;
		d->op |= DINSN_C;
		return;
	}
	decode32(d, insn);
	if (d->op == D_GENERIC)
		d->imm = (int32_t)insn;
}

void dcache_decode(struct dinsn *d, const uint8_t *code, unsigned off)
{
	uint16_t lo;
	uint32_t insn;
	memcpy(&lo, code, 2);
	if ((lo & 3) == 3 && off > 4096 - 4) {
		d->op = D_SLOW;
		return;
	}
	if ((lo & 3) == 3)
		memcpy(&insn, code, 4);
	else
		insn = lo;
	dcache_decode_insn(d, insn);
}
