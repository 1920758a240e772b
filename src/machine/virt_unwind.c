/* virt_unwind.c - see virt_unwind.h. The instructions that matter are
 * few: what moves sp, what saves or loads ra from the stack, and what
 * ends a straight run of code (a branch, a jump, a return). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "virt_unwind.h"

#define PROLOGUE_SCAN 64	 /* instructions read from a function's start */
#define EPILOGUE_SCAN 16	 /* instructions read ahead of the pc for a `ret` */
#define STACK_SPAN    (64 << 10) /* a caller's frame lies this close above sp */

/* One instruction, as the walk sees it. */
struct insn {
	int len;	/* 2 or 4 */
	int64_t sp_add; /* an `addi sp, sp, IMM`: IMM, when add is set */
	bool add;	/* ...it is one */
	bool sp_other;	/* sp written some other way: the walk cannot follow */
	bool save_ra;	/* `sd ra, OFF(sp)` */
	bool load_ra;	/* `ld ra, OFF(sp)` */
	int64_t off;	/* the OFF of either */
	bool ret;	/* `ret` (jalr x0, 0(ra)) */
	bool flow;	/* any other change of flow: a branch, a jump, a call */
};

static int64_t sext(uint64_t x, int bits)
{
	return (int64_t)(x << (64 - bits)) >> (64 - bits);
}

static void decode32(uint32_t i, struct insn *d)
{
	unsigned op = i & 0x7f, rd = i >> 7 & 31, f3 = i >> 12 & 7, rs1 = i >> 15 & 31,
		 rs2 = i >> 20 & 31;
	d->len = 4;
	if (op == 0x13 && f3 == 0 && rd == 2 && rs1 == 2) {
		d->add = true, d->sp_add = sext(i >> 20, 12);
	} else if (op == 0x23 && f3 == 3 && rs1 == 2 && rs2 == 1) {
		d->save_ra = true, d->off = sext((i >> 25) << 5 | (i >> 7 & 31), 12);
	} else if (op == 0x03 && f3 == 3 && rs1 == 2 && rd == 1) {
		d->load_ra = true, d->off = sext(i >> 20, 12);
	} else if (op == 0x67 && rd == 0 && rs1 == 1 && (i >> 20) == 0) {
		d->ret = true;
	} else if (op == 0x63 || op == 0x67 || op == 0x6f || op == 0x73) {
		d->flow = true; /* branch, jalr, jal, system (ecall, sret, csr*) */
		d->sp_other = op == 0x73 && rd == 2;
	} else if (rd == 2 && (op == 0x03 || op == 0x13 || op == 0x17 || op == 0x1b || op == 0x2f ||
			       op == 0x33 || op == 0x37 || op == 0x3b)) {
		d->sp_other = true; /* any other write of x2 (not of f2) */
	}
}

static void decode16(uint16_t i, struct insn *d)
{
	unsigned q = i & 3, f3 = i >> 13 & 7, rd = i >> 7 & 31, rs2 = i >> 2 & 31,
		 b12 = i >> 12 & 1;
	d->len = 2;
	if (q == 1 && f3 == 3 && rd == 2) { /* c.addi16sp */
		uint64_t imm = (uint64_t)b12 << 9 | (i >> 3 & 3) << 7 | (i >> 5 & 1) << 6 |
			       (i >> 2 & 1) << 5 | (i >> 6 & 1) << 4;
		d->add = true, d->sp_add = sext(imm, 10);
	} else if (q == 1 && f3 == 0 && rd == 2) { /* c.addi sp */
		d->add = true, d->sp_add = sext((uint64_t)b12 << 5 | rs2, 6);
	} else if (q == 2 && f3 == 7 && rs2 == 1) { /* c.sdsp ra */
		d->save_ra = true, d->off = (i >> 10 & 7) << 3 | (i >> 7 & 7) << 6;
	} else if (q == 2 && f3 == 3 && rd == 1) { /* c.ldsp ra */
		d->load_ra = true, d->off = b12 << 5 | (i >> 5 & 3) << 3 | (i >> 2 & 7) << 6;
	} else if (q == 2 && f3 == 4 && rs2 == 0 && rd != 0) { /* c.jr, c.jalr */
		d->ret = !b12 && rd == 1;
		d->flow = !d->ret;
	} else if (q == 1 && f3 >= 5) {
		d->flow = true; /* c.j, c.beqz, c.bnez */
	} else if ((q == 2 && f3 != 1 && f3 <= 4 && rd == 2) || (q == 1 && f3 <= 3 && rd == 2)) {
		d->sp_other = true; /* c.slli, c.lwsp, c.ldsp, c.mv, c.add, c.li, c.addiw into sp */
	}
}

/* Read len bytes of the kernel's memory at va, within one page. */
static bool peek(struct virt *v, uint64_t va, void *buf, size_t len)
{
	uint64_t pa;
	return (va & 0xfff) + len <= 0x1000 && cpu_kernel_peek(&v->cpu, va, &pa) &&
	       ram_read(&v->ram, pa, buf, len);
}

static bool fetch(struct virt *v, uint64_t pc, struct insn *d)
{
	uint16_t lo, hi;
	memset(d, 0, sizeof(*d));
	if (!peek(v, pc, &lo, 2))
		return false;
	if ((lo & 3) != 3) {
		decode16(lo, d);
		return true;
	}
	if (!peek(v, pc + 2, &hi, 2))
		return false;
	decode32((uint32_t)hi << 16 | lo, d);
	return true;
}

/* The function holding pc: its start, or 0. */
static uint64_t function_of(const struct kmap *t, uint64_t pc)
{
	long i = kmap_index(t, pc);
	return i < 0 ? 0 : t->s[i].addr;
}

/* Where a frame's caller is: its return address (in the ra register, or
 * saved at ra_at), and its sp. */
struct frame {
	uint64_t pc, sp;
	bool in_reg; /* the return address is the ra register */
	uint64_t ra_at;
};

/* From pc, a straight run to a `ret`: the epilogue says all (1), or it
 * does not reach one (0). */
static int epilogue(struct virt *v, uint64_t pc, uint64_t sp, struct frame *up)
{
	int64_t adj = 0;
	bool loaded = false;
	for (int k = 0; k < EPILOGUE_SCAN; k++) {
		struct insn d;
		if (!fetch(v, pc, &d) || d.flow || d.sp_other)
			return 0;
		if (d.load_ra && !loaded)
			loaded = true, up->ra_at = sp + (uint64_t)adj + (uint64_t)d.off;
		if (d.add)
			adj += d.sp_add;
		if (d.ret) {
			up->in_reg = !loaded;
			up->sp = sp + (uint64_t)adj;
			return adj >= 0; /* a frame grown on the way out is not one */
		}
		pc += (uint64_t)d.len;
	}
	return 0;
}

/* From the function's start to pc: the frame the prologue built (1), or
 * -1 where it cannot be followed. */
static int prologue(struct virt *v, uint64_t fn, uint64_t pc, uint64_t sp, struct frame *up)
{
	int64_t frame = 0, saved_at = 0;
	bool saved = false;
	uint64_t a = fn;
	for (int k = 0; k < PROLOGUE_SCAN && a < pc; k++) {
		struct insn d;
		if (!fetch(v, a, &d) || d.sp_other)
			return -1;
		/* A branch (a shrink-wrapped prologue's early test) is passed
		 * over; a return ends the prologue: what follows it is the
		 * rest of a frame already built. */
		if (d.ret)
			break;
		if (d.add && d.sp_add < 0)
			frame -= d.sp_add;
		if (d.save_ra && !saved)
			saved = true, saved_at = -frame + d.off;
		a += (uint64_t)d.len;
	}
	up->sp = sp + (uint64_t)frame;
	up->in_reg = !saved;
	up->ra_at = up->sp + (uint64_t)saved_at;
	return 1;
}

int virt_unwind(struct virt *v, const struct kmap *t, uint64_t *ret, int max)
{
	if (v->cpu.priv != PRV_S)
		return 0;
	uint64_t pc = v->cpu.pc, sp = v->cpu.x[2], ra = v->cpu.x[1];
	int n = 0;
	for (int depth = 0; n < max; depth++) {
		/* A return address may be the next function's first byte
		 * (a call that never returns, last in its function). */
		uint64_t fn = function_of(t, depth ? pc - 1 : pc);
		struct frame up = {0};
		if (!fn || (!epilogue(v, pc, sp, &up) && prologue(v, fn, pc, sp, &up) < 0))
			break;
		uint64_t caller;
		if (up.in_reg) {
			if (depth > 0)
				break; /* only the innermost frame's ra is the register's */
			caller = ra;
		} else if (!peek(v, up.ra_at, &caller, 8)) {
			break;
		}
		if (up.sp < sp || up.sp - sp > STACK_SPAN || !function_of(t, caller - 1) ||
		    (caller == pc && up.sp == sp))
			break;
		ret[n++] = caller;
		pc = caller, sp = up.sp;
	}
	return n;
}

/* "FUNC+0xOFF" of addr into out at n: the new length. */
static size_t name_at(const struct kmap *t, uint64_t addr, char *out, size_t n, size_t cap)
{
	long i = kmap_index(t, addr);
	if (n >= cap)
		return n;
	if (i < 0)
		return n + (size_t)snprintf(out + n, cap - n, "0x%llx", (unsigned long long)addr);
	return n + (size_t)snprintf(out + n, cap - n, "%s+0x%llx", t->s[i].name,
				    (unsigned long long)(addr - t->s[i].addr));
}

void virt_where(struct virt *v, int frames, char *out, size_t cap)
{
	char path[4200], err[256];
	struct kmap t;
	out[0] = 0;
	if (!v->kernel_path || cap == 0)
		return;
	if (v->cpu.priv != PRV_S) {
		snprintf(out, cap, " in user mode");
		return;
	}
	snprintf(path, sizeof(path), "%s.map", v->kernel_path);
	if (kmap_load(&t, path, err, sizeof(err)))
		return;
	uint64_t ret[VIRT_STACK_MAX];
	int n = virt_unwind(v, &t, ret, frames - 1 < VIRT_STACK_MAX ? frames - 1 : VIRT_STACK_MAX);
	size_t len = (size_t)snprintf(out, cap, " at ");
	len = name_at(&t, v->cpu.pc, out, len, cap);
	for (int k = 0; k < n && len < cap; k++) {
		len += (size_t)snprintf(out + len, cap - len, " <- ");
		len = name_at(&t, ret[k] - 1, out, len, cap);
	}
	kmap_free(&t);
}
