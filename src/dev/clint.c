/* clint.c - see clint.h. Layout as on QEMU's virt and spike boards:
 * msip at 0x0, mtimecmp at 0x4000, mtime at 0xbff8; 4- and 8-byte access. */
#include <string.h>

#include "clint.h"

#define CLINT_MSIP     0x0000
#define CLINT_MTIMECMP 0x4000
#define CLINT_MTIME    0xbff8

const struct dev_state_desc clint_state_desc = {"clint", 1, sizeof(struct clint_state)};

void clint_init(struct clint *cl, struct clint_state *s, struct cpu *cpu)
{
	memset(s, 0, sizeof(*s));
	s->mtimecmp = UINT64_MAX;
	*cl = (struct clint){.s = s, .cpu = cpu};
}

void clint_update(struct clint *cl)
{
	bool due = cpu_time(cl->cpu) >= cl->s->mtimecmp;
	if (due != !!(cl->cpu->csr.mip & (1ULL << IRQ_MTI)))
		cpu_set_irq(cl->cpu, 1ULL << IRQ_MTI, due);
}

uint64_t clint_ticks_to_deadline(const struct clint *cl)
{
	uint64_t now = cpu_time(cl->cpu);
	if (cl->s->mtimecmp == UINT64_MAX)
		return UINT64_MAX;
	return cl->s->mtimecmp > now ? cl->s->mtimecmp - now : 0;
}

/* Read `size` bytes at byte offset `off` of a 64-bit register. */
static uint64_t reg_part(uint64_t reg, uint64_t off, int size)
{
	uint64_t v = reg >> (8 * off);
	return size == 8 ? v : v & ((1ULL << (8 * size)) - 1);
}

static uint64_t reg_merge(uint64_t reg, uint64_t off, int size, uint64_t val)
{
	uint64_t mask = (size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1) << (8 * off);
	return (reg & ~mask) | ((val << (8 * off)) & mask);
}

static bool clint_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	struct clint *cl = dev;
	if ((size != 4 && size != 8) || off % size)
		return false;
	if (off == CLINT_MSIP && size == 4)
		*val = cl->s->msip;
	else if (off >= CLINT_MTIMECMP && off < CLINT_MTIMECMP + 8)
		*val = reg_part(cl->s->mtimecmp, off - CLINT_MTIMECMP, size);
	else if (off >= CLINT_MTIME && off < CLINT_MTIME + 8)
		*val = reg_part(cpu_time(cl->cpu), off - CLINT_MTIME, size);
	else
		*val = 0;
	return true;
}

static bool clint_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct clint *cl = dev;
	struct cpu *c = cl->cpu;
	if ((size != 4 && size != 8) || off % size)
		return false;
	if (off == CLINT_MSIP && size == 4) {
		cl->s->msip = val & 1;
		cpu_set_irq(c, 1ULL << IRQ_MSI, cl->s->msip);
	} else if (off >= CLINT_MTIMECMP && off < CLINT_MTIMECMP + 8) {
		cl->s->mtimecmp = reg_merge(cl->s->mtimecmp, off - CLINT_MTIMECMP, size, val);
		clint_update(cl);
	} else if (off >= CLINT_MTIME && off < CLINT_MTIME + 8) {
		cpu_set_time(c, reg_merge(cpu_time(c), off - CLINT_MTIME, size, val));
		clint_update(cl);
	}
	return true;
}

const struct mmio_ops clint_ops = {clint_read, clint_write};
