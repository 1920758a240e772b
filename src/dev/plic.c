/* plic.c - see plic.h. Layout as on QEMU's virt board and the SiFive PLIC
 * spec: priorities at 0x0 + 4*source, pending bits at 0x1000, enable bits
 * at 0x2000 + 0x80*context, threshold at 0x200000 + 0x1000*context and
 * claim/complete 4 bytes above it. Every register is 32 bits wide and only
 * 32-bit aligned accesses decode; holes and absent contexts read as zero
 * and ignore writes, as QEMU's do. */
#include <string.h>

#include "plic.h"

#define PLIC_PRIORITY  0x000000
#define PLIC_PENDING   0x001000
#define PLIC_ENABLE    0x002000
#define PLIC_ENABLE_SZ 0x80
#define PLIC_CONTEXT   0x200000
#define PLIC_CTX_SZ    0x1000
#define PLIC_PRIO_MASK 7 /* QEMU virt's 7 priority levels */

static const int ctx_irq[PLIC_NCTX] = {IRQ_MEI, IRQ_SEI};

const struct dev_state_desc plic_state_desc = {"plic", 1, sizeof(struct plic_state)};

void plic_init(struct plic *p, struct plic_state *s, struct cpu *cpu)
{
	memset(s, 0, sizeof(*s));
	*p = (struct plic){.s = s, .cpu = cpu};
}

struct irq_line plic_line(struct plic *p, int source)
{
	return (struct irq_line){.set = plic_set_irq, .ctl = p, .source = source};
}

static uint32_t pending_word(const struct plic *p, int w)
{
	return p->s->level[w] & ~p->s->claimed[w];
}

/* The source a claim by `ctx` would return: the highest priority above the
 * threshold among pending enabled sources, lowest id first; 0 if none. */
static int best_source(const struct plic *p, int ctx)
{
	int best = 0;
	uint32_t best_prio = p->s->threshold[ctx];
	for (int w = 0; w < PLIC_WORDS; w++) {
		uint32_t bits = pending_word(p, w) & p->s->enable[ctx][w];
		while (bits) {
			int src = w * 32 + __builtin_ctz(bits);
			bits &= bits - 1;
			if (p->s->priority[src] > best_prio) {
				best = src;
				best_prio = p->s->priority[src];
			}
		}
	}
	return best;
}

/* Drive MEIP and SEIP. Only a change reaches the hart, because
 * cpu_set_irq ends the hart's current run. */
static void plic_drive(struct plic *p)
{
	for (int ctx = 0; ctx < PLIC_NCTX; ctx++) {
		uint64_t bit = 1ULL << ctx_irq[ctx];
		bool level = best_source(p, ctx) != 0;
		if (level != !!(p->cpu->csr.mip & bit))
			cpu_set_irq(p->cpu, bit, level);
	}
}

void plic_set_irq(void *ctl, int source, bool level)
{
	struct plic *p = ctl;
	if (source <= 0 || source >= PLIC_NSRC)
		return;
	uint32_t bit = 1U << (source % 32), *w = &p->s->level[source / 32];
	if (!!(*w & bit) == level)
		return;
	*w = level ? *w | bit : *w & ~bit;
	plic_drive(p);
}

static uint32_t claim(struct plic *p, int ctx)
{
	int src = best_source(p, ctx);
	if (src) {
		p->s->claimed[src / 32] |= 1U << (src % 32);
		plic_drive(p);
	}
	return (uint32_t)src;
}

/* A complete of a source that is not claimed is ignored. The enable bit is
 * not checked (QEMU does not either): Linux 6.1 completes with the source
 * enabled anyway, and refusing would leave a source claimed forever. */
static void complete(struct plic *p, uint32_t src)
{
	if (src == 0 || src >= PLIC_NSRC || !(p->s->claimed[src / 32] & (1U << (src % 32))))
		return;
	p->s->claimed[src / 32] &= ~(1U << (src % 32));
	plic_drive(p);
}

/* Decode a context-register offset: 0 = threshold, 4 = claim/complete. */
static bool ctx_reg(uint64_t off, int *ctx, uint64_t *reg)
{
	uint64_t c = (off - PLIC_CONTEXT) / PLIC_CTX_SZ;
	if (off < PLIC_CONTEXT || c >= PLIC_NCTX)
		return false;
	*ctx = (int)c;
	*reg = (off - PLIC_CONTEXT) % PLIC_CTX_SZ;
	return true;
}

/* Decode an enable-word offset into context and word index. */
static bool enable_reg(uint64_t off, int *ctx, int *w)
{
	uint64_t c = (off - PLIC_ENABLE) / PLIC_ENABLE_SZ;
	uint64_t i = (off - PLIC_ENABLE) % PLIC_ENABLE_SZ / 4;
	if (off < PLIC_ENABLE || c >= PLIC_NCTX || i >= PLIC_WORDS)
		return false;
	*ctx = (int)c;
	*w = (int)i;
	return true;
}

static bool plic_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	struct plic *p = dev;
	int ctx, w;
	uint64_t reg;
	if (size != 4 || off % 4 || off >= PLIC_MMIO_SIZE)
		return false;
	*val = 0;
	if (off < PLIC_PRIORITY + 4 * PLIC_NSRC)
		*val = p->s->priority[off / 4];
	else if (off >= PLIC_PENDING && off < PLIC_PENDING + 4 * PLIC_WORDS)
		*val = pending_word(p, (int)(off - PLIC_PENDING) / 4);
	else if (enable_reg(off, &ctx, &w))
		*val = p->s->enable[ctx][w];
	else if (ctx_reg(off, &ctx, &reg) && reg == 0)
		*val = p->s->threshold[ctx];
	else if (ctx_reg(off, &ctx, &reg) && reg == 4)
		*val = claim(p, ctx);
	return true;
}

static bool plic_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct plic *p = dev;
	int ctx, w;
	uint64_t reg;
	if (size != 4 || off % 4 || off >= PLIC_MMIO_SIZE)
		return false;
	if (off < PLIC_PRIORITY + 4 * PLIC_NSRC) {
		if (off != 0) /* source 0 does not exist */
			p->s->priority[off / 4] = val & PLIC_PRIO_MASK;
	} else if (enable_reg(off, &ctx, &w)) {
		p->s->enable[ctx][w] = (uint32_t)val & (w == 0 ? ~1U : ~0U);
	} else if (ctx_reg(off, &ctx, &reg) && reg == 0) {
		p->s->threshold[ctx] = val & PLIC_PRIO_MASK;
	} else if (ctx_reg(off, &ctx, &reg) && reg == 4) {
		complete(p, (uint32_t)val);
		return true;
	} else {
		return true; /* pending bits are read-only; holes ignore writes */
	}
	plic_drive(p);
	return true;
}

const struct mmio_ops plic_ops = {plic_read, plic_write};
