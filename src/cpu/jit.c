/* jit.c - see jit.h. The code generator is a template per operation, tuned
 * for density (the hot kernel code of a filesystem run is megabytes of
 * guest code, and a dispatch or an instruction that misses the host's
 * caches costs more than the work it does):
 *  - the guest registers stay in c->x; rbx holds c + XBIAS so that every
 *    x[1..32] is a one-byte displacement, and x0 reads as xor; the five
 *    read most in kernel code are also kept in callee-saved host
 *    registers (pins[]), written through: every write goes to both, so
 *    c->x is always whole and nothing is written back on leaving;
 *  - blocks run inside one frame the entry thunk sets up (jit_run), so a
 *    block's code starts with its charge, where chained exits enter too;
 *  - each operation loads its sources into rax and rcx, computes in rax and
 *    stores rd back; rax is remembered, so a source just written is not
 *    loaded again;
 *  - loads and stores call one shared thunk per kind (the soft TLB's hit
 *    path of cpu_load/cpu_store, cpu_internal.h), which leaves for
 *    jit_mem_slow() on a miss;
 *  - D_GENERIC instructions that cannot change the fetch mapping call
 *    jit_generic(), the interpreter's executor; the common ones first try
 *    a path of their own that falls back to it: AMOs inline on a hit of
 *    the write set, and the S-mode CSRs of every lock, user access and
 *    trap (sstatus, sscratch, sepc, scause, stval) through csr_fast(),
 *    without the executor's decode and the checks after it.
 *  - a host function's entry (D_HOST: memset, memcpy, the CRCs) is a block
 *    of its own calling jit_host(), then the jump thunk to the return
 *    address, so those calls never leave compiled code;
 *  - the M extension's divisions and high multiplies are x86's, with
 *    RISC-V's answers for a zero or -1 divisor on branches before them.
 * Buffer layout: the thunks, then blocks, each as its slow-path sites, its
 * exit records, its header and its code. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cpu_internal.h"
#include "dcache.h"
#include "jit.h"

#if defined(__x86_64__)

#define JIT_BUF_BYTES (64u << 20)
#define JIT_HOT	      (1u << 15) /* copies of the blocks last found, by pc: a power of 2 */
#define JIT_TABLE     (1u << 16) /* every block, hashed, chained */
#define JIT_ROOM      (JIT_BLOCK_MAX * 128 + 4096) /* the most one block can take */
#define XBIAS	      136 /* rbx = c + XBIAS: x[1..32] at disp8 -128..120 */

/* What a slow path needs to redo an instruction as the interpreter would. */
struct jit_site {
	uint64_t pc;
	uint32_t rest; /* instructions of the block after this one */
	uint8_t op, rd, rs2, len;
	uint32_t raw, insn; /* D_GENERIC: as fetched, and expanded */
	uintptr_t addend;   /* D_GENERIC: the fetch mapping of the page */
};

/* A block's exit to a fixed pc: the jump at `jmp` starts out going on to
 * "set pc, return this record" and is patched once the dispatcher has
 * found the target block: to its chain entry when both blocks are in one
 * page, else to a guard that checks the target's page first. */
struct jit_exit {
	uint8_t *jmp;
	const uint8_t *page; /* the host page of both blocks; NULL: another page */
	uint64_t gen;	     /* the block's generation when compiled */
};

/* A block, in the buffer just before its code. */
struct jit_block {
	const uint8_t *host;	/* host address of the first instruction */
	uint64_t pc;		/* its guest virtual address */
	uint64_t gen;		/* its page's dcache generation when compiled */
	jit_fn fn;		/* NULL: the first instruction is the interpreter's */
	struct jit_block *next; /* in its hash chain */
};

/* The blocks last found, by pc: what the dispatcher reads on a hit. */
struct jit_hot {
	const uint8_t *host;
	uint64_t pc, gen;
	jit_fn fn;
};

/* The memory operations' thunks, in dop order from D_LB to D_SD. */
#define JIT_THUNKS (D_SD - D_LB + 1)

/* table[] holds every block, hashed by pc and chained (kernel and user
 * code collide in any small direct-mapped table); hot[] holds copies of
 * the blocks last found, direct-mapped by pc, so that a hit reads nothing
 * but its entry. */
struct jit {
	uint8_t *buf;
	size_t used, base; /* base: the end of the thunks */
	uint8_t *thunk[JIT_THUNKS], *leave, *leave_rax, *jump, *enter;
	uint8_t *amo[2];       /* the AMO thunks, .w and .d */
	uint8_t *call_generic; /* a pointer slot: jit_generic's address */
	uint8_t *call_csr;     /* and jit_csr's */
	uint8_t *call_host;    /* and jit_host's */
	struct jit_hot hot[JIT_HOT];
	struct jit_block *table[JIT_TABLE];
};

/* ---- the emitter ---- */

struct emit {
	uint8_t *p;
	int rax; /* the guest register rax holds, or -1 */
};

static void put(struct emit *e, const void *bytes, size_t n)
{
	memcpy(e->p, bytes, n);
	e->p += n;
}

#define PUT(e, ...) put(e, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

static void put32(struct emit *e, uint32_t v)
{
	put(e, &v, 4);
}

static void put64(struct emit *e, uint64_t v)
{
	put(e, &v, 8);
}

static bool fits8(int64_t v)
{
	return v >= -128 && v <= 127;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

enum {
	RAX = 0,
	RCX = 1,
	RDX = 2,
	RBP = 5,
	RSI = 6,
	RDI = 7,
	R12 = 12,
	R13 = 13,
	R14 = 14,
	R15 = 15
};

/* The pinned guest registers (see the top): sp, a5, a4, a0 and a1, read
 * 0.17, 0.21, 0.11, 0.09 and 0.08 times an instruction on explore's
 * kernel work, by their callee-saved host registers. */
static const struct {
	uint8_t x, host;
} pins[] = {{2, R12}, {15, R13}, {14, R14}, {10, R15}, {11, RBP}};

#define NPINS (sizeof(pins) / sizeof(pins[0]))

/* The host register pinning guest register r, or 0 (rax is never one). */
static int pin_of(int r)
{
	for (size_t i = 0; i < NPINS; i++)
		if (pins[i].x == r)
			return pins[i].host;
	return 0;
}

/* The displacement of a field of struct cpu from rbx. */
#define CPU_OFF(field) ((uint32_t)(offsetof(struct cpu, field) - XBIAS))

static uint8_t x_disp(int r)
{
	return (uint8_t)(int8_t)(offsetof(struct cpu, x) + 8 * r - XBIAS);
}

/* mov dst, src: 64-bit registers, either may be r8-r15. */
static void mov_rr(struct emit *e, int dst, int src)
{
	PUT(e, (uint8_t)(0x48 | (src >> 3) << 2 | dst >> 3), 0x89,
	    (uint8_t)(0xc0 | (src & 7) << 3 | (dst & 7)));
}

/* reg = x[r] from c->x, reg any register. */
static void load_mem_x(struct emit *e, int reg, int r)
{
	PUT(e, (uint8_t)(0x48 | (reg >> 3) << 2), 0x8b, (uint8_t)(0x43 | (reg & 7) << 3),
	    x_disp(r));
}

/* Every pin from c->x: after C code that may have written a register. */
static void reload_pins(struct emit *e)
{
	for (size_t i = 0; i < NPINS; i++)
		load_mem_x(e, pins[i].host, pins[i].x);
}

/* reg = x[r] (x0 as xor, a pinned one from its host register) and
 * x[r] = reg (through to its pin): reg below r8. */
static void load_x(struct emit *e, int reg, int r)
{
	if (reg == RAX && e->rax == r)
		return;
	if (r == 0)
		PUT(e, 0x31, (uint8_t)(0xc0 | reg << 3 | reg)); /* xor reg32, reg32 */
	else if (pin_of(r))
		mov_rr(e, reg, pin_of(r));
	else
		load_mem_x(e, reg, r);
	if (reg == RAX)
		e->rax = r;
}

static void store_x(struct emit *e, int r, int reg)
{
	PUT(e, 0x48, 0x89, (uint8_t)(0x43 | reg << 3), x_disp(r));
	if (pin_of(r))
		mov_rr(e, pin_of(r), reg);
	if (reg == RAX)
		e->rax = r;
}

/* mov reg, [rbx + off] / mov [rbx + off], reg, for fields past x[]. */
static void load_c(struct emit *e, int reg, uint32_t off)
{
	PUT(e, 0x48, 0x8b, (uint8_t)(0x83 | reg << 3));
	put32(e, off);
}

static void store_c(struct emit *e, uint32_t off, int reg)
{
	PUT(e, 0x48, 0x89, (uint8_t)(0x83 | reg << 3));
	put32(e, off);
}

static void mov_imm64(struct emit *e, int reg, uint64_t v)
{
	PUT(e, 0x48, (uint8_t)(0xb8 + reg));
	put64(e, v);
	if (reg == RAX)
		e->rax = -1;
}

/* A 64-bit constant into a field of c (pc) or a guest register. */
static void store_imm(struct emit *e, uint32_t off, bool is_x, uint64_t v)
{
	if (fits32((int64_t)v)) { /* mov qword [rbx + off], simm32 */
		if (is_x)
			PUT(e, 0x48, 0xc7, 0x43, (uint8_t)off);
		else
			PUT(e, 0x48, 0xc7, 0x83), put32(e, off);
		put32(e, (uint32_t)v);
		return;
	}
	mov_imm64(e, RAX, v);
	if (is_x)
		PUT(e, 0x48, 0x89, 0x43, (uint8_t)off);
	else
		store_c(e, off, RAX);
}

static void set_pc(struct emit *e, uint64_t pc)
{
	store_imm(e, CPU_OFF(pc), false, pc);
}

static void set_x(struct emit *e, int r, uint64_t v)
{
	store_imm(e, x_disp(r), true, v);
	int p = pin_of(r);
	if (p && fits32((int64_t)v)) /* mov p, simm32 */
		PUT(e, (uint8_t)(0x48 | p >> 3), 0xc7, (uint8_t)(0xc0 | (p & 7))),
		    put32(e, (uint32_t)v);
	else if (p)
		load_mem_x(e, p, r);
	if (e->rax == r)
		e->rax = -1;
}

/* add rax, imm (nothing for 0) */
static void add_rax(struct emit *e, int32_t imm)
{
	if (fits8(imm) && imm)
		PUT(e, 0x48, 0x83, 0xc0, (uint8_t)imm);
	else if (imm)
		PUT(e, 0x48, 0x05), put32(e, (uint32_t)imm);
	e->rax = -1;
}

static void sext_rax(struct emit *e)
{
	PUT(e, 0x48, 0x63, 0xc0); /* movsxd rax, eax */
}

/* A jump or call with a 32-bit displacement to patch later. */
static uint8_t *rel32_at(struct emit *e, const uint8_t *op, size_t n)
{
	put(e, op, n);
	uint8_t *at = e->p;
	put32(e, 0);
	return at;
}

static void patch_to(uint8_t *at, const uint8_t *target)
{
	int32_t rel = (int32_t)(target - (at + 4));
	memcpy(at, &rel, 4);
}

static uint8_t *jcc(struct emit *e, uint8_t cc)
{
	return rel32_at(e, (const uint8_t[]){0x0f, cc}, 2);
}

static void jmp_to(struct emit *e, const uint8_t *target)
{
	patch_to(rel32_at(e, (const uint8_t[]){0xe9}, 1), target);
}

static void call_to(struct emit *e, const uint8_t *target)
{
	patch_to(rel32_at(e, (const uint8_t[]){0xe8}, 1), target);
}

/* lea reg, [rip + to] */
static void lea_rip(struct emit *e, int reg, const void *to)
{
	patch_to(rel32_at(e, (const uint8_t[]){0x48, 0x8d, (uint8_t)(0x05 | reg << 3)}, 3), to);
}

/* ---- operations ---- */

static bool is_load(unsigned op)
{
	return op >= D_LB && op <= D_LWU;
}

static bool is_store(unsigned op)
{
	return op >= D_SB && op <= D_SD;
}

static int mem_size(unsigned op)
{
	static const int load[] = {1, 2, 4, 8, 1, 2, 4};
	return is_load(op) ? load[op - D_LB] : 1 << (op - D_SB);
}

static bool ends_block(unsigned op)
{
	return op >= D_JAL && op <= D_BGEU;
}

/* A short forward jump (0xeb jmp, 0x74 jz, 0x79 jns), landed by land8. */
static uint8_t *jmp8(struct emit *e, uint8_t op)
{
	PUT(e, op, 0);
	return e->p - 1;
}

static void land8(struct emit *e, uint8_t *at)
{
	*at = (uint8_t)(e->p - (at + 1));
}

/* REX.W for a 64-bit operation; nothing for a 32-bit one. */
static void rex_w(struct emit *e, bool word)
{
	if (!word)
		PUT(e, 0x48);
}

/* The high multiplies, rax = x[rs1], rcx = x[rs2]: the high half is rdx. */
static void emit_mulh(struct emit *e, unsigned op)
{
	if (op == D_MULH) {
		PUT(e, 0x48, 0xf7, 0xe9); /* imul rcx */
	} else if (op == D_MULHU) {
		PUT(e, 0x48, 0xf7, 0xe1); /* mul rcx */
	} else {			  /* D_MULHSU: unsigned, less rs2 if rs1 < 0 */
		PUT(e, 0x48, 0x89, 0xc6, 0x48, 0xf7, 0xe1); /* mov rsi, rax; mul rcx */
		PUT(e, 0x48, 0x85, 0xf6, 0x79, 0x03);	    /* test rsi, rsi; jns +3 */
		PUT(e, 0x48, 0x29, 0xca);		    /* sub rdx, rcx */
	}
	PUT(e, 0x48, 0x89, 0xd0); /* mov rax, rdx */
}

/* The divisions and remainders, 64- or 32-bit: x86's div and idiv, with
 * RISC-V's answers where those would fault taken on branches before them
 * (cpu.c's muldiv64/muldiv32): a zero divisor gives all ones or the
 * dividend; a signed divisor of -1 gives the negated dividend (the most
 * negative one itself on overflow) or 0. rdx and rsi are scratch. */
static void emit_muldiv(struct emit *e, unsigned op)
{
	if (op < D_DIV) {
		emit_mulh(e, op);
		return;
	}
	bool word = op >= D_DIVW;
	unsigned k = word ? op - D_DIVW : op - D_DIV; /* div, divu, rem, remu */
	bool sign = !(k & 1), rem = k >= 2;
	rex_w(e, word), PUT(e, 0x85, 0xc9); /* test rcx, rcx */
	uint8_t *zero = jmp8(e, 0x74), *minus1 = NULL;
	if (sign) {
		rex_w(e, word), PUT(e, 0x83, 0xf9, 0xff); /* cmp rcx, -1 */
		minus1 = jmp8(e, 0x74);
		rex_w(e, word), PUT(e, 0x99); /* cqo */
	} else {
		PUT(e, 0x31, 0xd2); /* xor edx, edx */
	}
	rex_w(e, word), PUT(e, 0xf7, sign ? 0xf9 : 0xf1); /* idiv / div rcx */
	if (rem)
		rex_w(e, word), PUT(e, 0x89, 0xd0); /* mov rax, rdx */
	uint8_t *done[2] = {jmp8(e, 0xeb), NULL};
	land8(e, zero);
	if (!rem)
		rex_w(e, word), PUT(e, 0x83, 0xc8, 0xff); /* or rax, -1 (a remainder: rs1) */
	if (sign) {
		done[1] = jmp8(e, 0xeb);
		land8(e, minus1);
		if (rem)
			PUT(e, 0x31, 0xc0); /* xor eax, eax */
		else
			rex_w(e, word), PUT(e, 0xf7, 0xd8); /* neg rax */
	}
	for (int i = 0; i < 2; i++)
		if (done[i])
			land8(e, done[i]);
	if (word)
		sext_rax(e);
}

/* ALU operations: rax = x[rs1], rcx = x[rs2], then these bytes, result in
 * rax. Shifts by register use cl, masked by the CPU as RISC-V masks them. */
static void emit_alu(struct emit *e, const struct dinsn *d, uint64_t pc)
{
	int32_t imm = d->imm;
	uint8_t ib = (uint8_t)imm;
	unsigned op = dinsn_op(d);
	if (op == D_LUI || op == D_AUIPC) {
		set_x(e, d->rd, op == D_LUI ? (uint64_t)(int64_t)imm : pc + (uint64_t)(int64_t)imm);
		return;
	}
	if (op >= D_ADD)
		load_x(e, RCX, d->rs2);
	load_x(e, RAX, d->rs1);
	switch (op) {
	case D_ADDI: add_rax(e, imm); break;
	case D_XORI: PUT(e, 0x48, 0x35), put32(e, (uint32_t)imm); break;
	case D_ORI: PUT(e, 0x48, 0x0d), put32(e, (uint32_t)imm); break;
	case D_ANDI: PUT(e, 0x48, 0x25), put32(e, (uint32_t)imm); break;
	case D_SLTI:
		PUT(e, 0x48, 0x3d), put32(e, (uint32_t)imm),
		    PUT(e, 0x0f, 0x9c, 0xc0, 0x0f, 0xb6, 0xc0);
		break;
	case D_SLTIU:
		PUT(e, 0x48, 0x3d), put32(e, (uint32_t)imm),
		    PUT(e, 0x0f, 0x92, 0xc0, 0x0f, 0xb6, 0xc0);
		break;
	case D_SLLI: PUT(e, 0x48, 0xc1, 0xe0, ib); break;
	case D_SRLI: PUT(e, 0x48, 0xc1, 0xe8, ib); break;
	case D_SRAI: PUT(e, 0x48, 0xc1, 0xf8, ib); break;
	case D_ADDIW: PUT(e, 0x05), put32(e, (uint32_t)imm), sext_rax(e); break;
	case D_SLLIW: PUT(e, 0xc1, 0xe0, ib), sext_rax(e); break;
	case D_SRLIW: PUT(e, 0xc1, 0xe8, ib), sext_rax(e); break;
	case D_SRAIW: PUT(e, 0xc1, 0xf8, ib), sext_rax(e); break;
	case D_ADD: PUT(e, 0x48, 0x01, 0xc8); break;
	case D_SUB: PUT(e, 0x48, 0x29, 0xc8); break;
	case D_SLL: PUT(e, 0x48, 0xd3, 0xe0); break;
	case D_SLT: PUT(e, 0x48, 0x39, 0xc8, 0x0f, 0x9c, 0xc0, 0x0f, 0xb6, 0xc0); break;
	case D_SLTU: PUT(e, 0x48, 0x39, 0xc8, 0x0f, 0x92, 0xc0, 0x0f, 0xb6, 0xc0); break;
	case D_XOR: PUT(e, 0x48, 0x31, 0xc8); break;
	case D_SRL: PUT(e, 0x48, 0xd3, 0xe8); break;
	case D_SRA: PUT(e, 0x48, 0xd3, 0xf8); break;
	case D_OR: PUT(e, 0x48, 0x09, 0xc8); break;
	case D_AND: PUT(e, 0x48, 0x21, 0xc8); break;
	case D_ADDW: PUT(e, 0x01, 0xc8), sext_rax(e); break;
	case D_SUBW: PUT(e, 0x29, 0xc8), sext_rax(e); break;
	case D_SLLW: PUT(e, 0xd3, 0xe0), sext_rax(e); break;
	case D_SRLW: PUT(e, 0xd3, 0xe8), sext_rax(e); break;
	case D_SRAW: PUT(e, 0xd3, 0xf8), sext_rax(e); break;
	case D_MUL: PUT(e, 0x48, 0x0f, 0xaf, 0xc1); break;
	case D_MULW: PUT(e, 0x0f, 0xaf, 0xc1), sext_rax(e); break;
	default: emit_muldiv(e, op); break;
	}
	store_x(e, d->rd, RAX);
}

/* A load or store: va in rax, the value to store in rcx, the site's offset
 * in the buffer in edx, then the operation's thunk; a load's value comes
 * back in rax. */
static void emit_mem(struct emit *e, const struct jit *j, const struct dinsn *d,
		     const struct jit_site *s)
{
	unsigned op = dinsn_op(d);
	if (is_store(op))
		load_x(e, RCX, d->rs2);
	load_x(e, RAX, d->rs1);
	add_rax(e, d->imm);
	e->rax = -1;
	PUT(e, 0xba), put32(e, (uint32_t)((const uint8_t *)s - j->buf)); /* mov edx, site */
	call_to(e, j->thunk[op - D_LB]);
	if (is_load(op))
		store_x(e, d->rd, RAX);
}

/* ---- the slow paths ---- */

static uint64_t load_extend(unsigned op, uint64_t v)
{
	switch (op) {
	case D_LB: return (uint64_t)(int64_t)(int8_t)v;
	case D_LH: return (uint64_t)(int64_t)(int16_t)v;
	case D_LW: return (uint64_t)(int64_t)(int32_t)v;
	default: return v;
	}
}

/* What jit_mem_slow and jit_csr answer, in rax and rdx: a value (a
 * load's, a CSR's old one), and whether to leave the block (jit_mem_slow)
 * or run the instruction through jit_generic (jit_csr). */
struct jit_answer {
	uint64_t value, flag;
};

/* The hart as the interpreter has it at site s: pc there, and the budget
 * without the rest of the block (charged up front). */
static void at_site(struct cpu *c, const struct jit_site *s)
{
	c->budget += s->rest;
	c->pc = s->pc;
}

/* Whether the block may go on after site s ran without trapping: the run
 * was not stopped and no decoded code changed since `epoch`. If so, the
 * rest of the block is charged again. */
static bool resume_after(struct cpu *c, const struct jit_site *s, uint64_t epoch)
{
	if (c->budget <= 0 || c->dc->epoch != epoch)
		return false;
	c->budget -= s->rest;
	return true;
}

/* A block's load or store that missed the soft TLB, done as the
 * interpreter does it, with pc and budget as the interpreter has them.
 * Leave the block when the access trapped (pc is the trap vector), the run
 * was stopped, or decoded code changed. */
static struct jit_answer jit_mem_slow(struct cpu *c, uint64_t va, const struct jit_site *s)
{
	uint64_t epoch = c->dc->epoch, v = 0;
	int size = mem_size(s->op);
	bool ok;
	at_site(c, s);
	if (is_store(s->op))
		ok = mmu_store_slow(c, va, size, c->x[s->rs2]);
	else
		ok = mmu_load_slow(c, va, size, &v);
	if (!ok)
		return (struct jit_answer){0, 1};
	v = load_extend(s->op, v);
	if (resume_after(c, s, epoch))
		return (struct jit_answer){v, 0};
	if (is_load(s->op))
		c->x[s->rd] = v;
	c->pc = s->pc + s->len;
	return (struct jit_answer){v, 1};
}

/* A D_GENERIC instruction of a block, run by the interpreter's executor
 * with pc and budget as the interpreter has them. Returns 1 to leave the
 * block: it trapped or jumped, the run was stopped, decoded code changed, or
 * the fetch mapping of this page is not the one the block was entered with
 * (a satp write, a flush): the interpreter would look it up again. */
static int jit_generic(struct cpu *c, const struct jit_site *s)
{
	uint64_t epoch = c->dc->epoch;
	const struct cpu_tlb_entry *x = c->tlb_x;
	at_site(c, s);
	c->raw_insn = s->raw;
	cpu_exec_other(c, s->insn, s->len);
	const struct cpu_tlb_entry *e = &c->tlb_x[tlb_vpn(s->pc) % CPU_TLB_SIZE];
	if (c->pc != s->pc + s->len || c->tlb_x != x || e->tag != tlb_vpn(s->pc) ||
	    e->addend != s->addend)
		return 1;
	return !resume_after(c, s, epoch);
}

/* A CSR instruction of a block (see csr_fast): the old value, or the flag
 * to run it through jit_generic instead. */
static struct jit_answer jit_csr(struct cpu *c, uint32_t insn, uint64_t src)
{
	uint64_t old = 0;
	bool done = csr_fast(c, insn, src, &old);
	return (struct jit_answer){old, !done};
}

/* A host function's entry (a D_HOST block, see emit_host): computed as the
 * interpreter computes it. Returns 1 to leave the block: the bus declined
 * (the guest's own instruction ran: it may have trapped) or the run was
 * stopped; else the block goes on to the return address in c->pc. */
static int jit_host(struct cpu *c, const struct jit_site *s)
{
	at_site(c, s);
	return !cpu_host_call(c, s->rd) || c->budget <= 0;
}

/* ---- the thunks ---- */

/* rdi = the soft-TLB entry of va (in rax) in the set at `set`, rcx = va's
 * vpn, and a jump on a tag miss, returned for patching. */
static uint8_t *emit_tlb_lookup(struct emit *e, uint32_t set)
{
	_Static_assert((CPU_TLB_SIZE & (CPU_TLB_SIZE - 1)) == 0 &&
			   sizeof(struct cpu_tlb_entry) == 32,
		       "the TLB lookup masks the vpn, 32-byte entries");
	PUT(e, 0x48, 0x89, 0xc1);			/* mov rcx, rax */
	PUT(e, 0x48, 0xc1, 0xe9, 0x0c);			/* shr rcx, 12: the vpn */
	PUT(e, 0x89, 0xce);				/* mov esi, ecx */
	PUT(e, 0x81, 0xe6), put32(e, CPU_TLB_SIZE - 1); /* and esi, size - 1: the set index */
	PUT(e, 0xc1, 0xe6, 0x05);			/* shl esi, 5 */
	load_c(e, RDI, set);
	PUT(e, 0x48, 0x01, 0xf7); /* add rdi, rsi: the entry */
	PUT(e, 0x48, 0x3b, 0x0f); /* cmp rcx, [rdi]: its tag */
	return jcc(e, 0x85);	  /* jne */
}

/* The thunk of memory operation op: va in rax, a store's value in rcx, the
 * site's offset in edx. The hit path of cpu_load/cpu_store on the current
 * regime's set; a miss calls jit_mem_slow and, to leave, returns from the
 * block itself. */
static void emit_thunk(struct emit *e, struct jit *j, unsigned op)
{
	int size = mem_size(op);
	if (is_store(op))
		PUT(e, 0x49, 0x89, 0xc8); /* mov r8, rcx */
	uint8_t *miss[2] = {emit_tlb_lookup(e, is_store(op) ? CPU_OFF(tlb_w) : CPU_OFF(tlb_r)),
			    NULL};
	if (size > 1) {
		PUT(e, 0x89, 0xc6);				      /* mov esi, eax */
		PUT(e, 0x81, 0xe6, 0xff, 0x0f, 0, 0);		      /* and esi, 0xfff */
		PUT(e, 0x81, 0xfe), put32(e, 4096u - (unsigned)size); /* cmp esi, 4096 - size */
		miss[1] = jcc(e, 0x87);				      /* ja */
	}
	PUT(e, 0x48, 0x03, 0x47, 0x08); /* add rax, [rdi + 8]: + addend */
	switch (op) {
	case D_LB: PUT(e, 0x48, 0x0f, 0xbe, 0x00); break; /* movsx rax, byte [rax] */
	case D_LBU: PUT(e, 0x0f, 0xb6, 0x00); break;
	case D_LH: PUT(e, 0x48, 0x0f, 0xbf, 0x00); break;
	case D_LHU: PUT(e, 0x0f, 0xb7, 0x00); break;
	case D_LW: PUT(e, 0x48, 0x63, 0x00); break;
	case D_LWU: PUT(e, 0x8b, 0x00); break;
	case D_LD: PUT(e, 0x48, 0x8b, 0x00); break;
	case D_SB: PUT(e, 0x44, 0x88, 0x00); break; /* mov [rax], r8b */
	case D_SH: PUT(e, 0x66, 0x44, 0x89, 0x00); break;
	case D_SW: PUT(e, 0x44, 0x89, 0x00); break;
	default: PUT(e, 0x4c, 0x89, 0x00); break;
	}
	PUT(e, 0xc3); /* ret */
	for (int i = 0; i < 2; i++)
		if (miss[i])
			patch_to(miss[i], e->p);
	PUT(e, 0x48, 0x83, 0xec, 0x08);			      /* sub rsp, 8: align for the call */
	PUT(e, 0x48, 0x8d, 0xbb), put32(e, (uint32_t)-XBIAS); /* lea rdi, [rbx - XBIAS]: c */
	PUT(e, 0x48, 0x89, 0xc6);			      /* mov rsi, rax: va */
	mov_imm64(e, RCX, (uint64_t)(uintptr_t)j->buf);
	PUT(e, 0x48, 0x01, 0xca); /* add rdx, rcx: the site */
	mov_imm64(e, RAX, (uint64_t)(uintptr_t)jit_mem_slow);
	PUT(e, 0xff, 0xd0);		/* call rax */
	PUT(e, 0x48, 0x83, 0xc4, 0x08); /* add rsp, 8 */
	PUT(e, 0x48, 0x85, 0xd2);	/* test rdx, rdx */
	PUT(e, 0x75, 0x01, 0xc3);	/* jnz +1; ret */
	PUT(e, 0x48, 0x83, 0xc4, 0x08); /* add rsp, 8: drop our return address */
	jmp_to(e, j->leave);
}

/* The thunk of an AMO of `size` bytes: va in rax; back in rax the host
 * address when the write set maps va's page and va is aligned (what
 * mmu_rmw_ptr's hit returns), else 0: the block then runs the AMO through
 * jit_generic, which traps or fills the TLB. */
static void emit_amo_thunk(struct emit *e, int size)
{
	uint8_t *miss[2];
	miss[0] = emit_tlb_lookup(e, CPU_OFF(tlb_w));
	PUT(e, 0xa8, (uint8_t)(size - 1)); /* test al, size - 1 */
	miss[1] = jcc(e, 0x85);		   /* jnz */
	PUT(e, 0x48, 0x03, 0x47, 0x08);	   /* add rax, [rdi + 8]: + addend */
	PUT(e, 0xc3);			   /* ret */
	for (int i = 0; i < 2; i++)
		patch_to(miss[i], e->p);
	PUT(e, 0x31, 0xc0, 0xc3); /* xor eax, eax; ret */
}

/* The thunk an indirect jump's block ends with, pc stored: the
 * dispatcher's hit path inline (the last-found table, the fetch TLB, the
 * page's generation), then into the target block's chain entry, which
 * checks the budget; any miss leaves for the dispatcher. */
static void emit_jump_thunk(struct emit *e, struct cpu *c)
{
	_Static_assert(
	    (JIT_HOT & (JIT_HOT - 1)) == 0 && DCACHE_PAGES == 4096 &&
		sizeof(struct jit_hot) == 32 && offsetof(struct jit_hot, pc) == 8 &&
		offsetof(struct jit_hot, gen) == 16 && offsetof(struct jit_hot, fn) == 24 &&
		(CPU_TLB_SIZE & (CPU_TLB_SIZE - 1)) == 0 && sizeof(struct cpu_tlb_entry) == 32 &&
		offsetof(struct cpu_tlb_entry, addend) == 8,
	    "the jump thunk's table and fetch TLB lookups");
	struct jit *j = c->jit;
	uint8_t *miss[5];
	load_c(e, RAX, CPU_OFF(pc));
	PUT(e, 0x48, 0x89, 0xc1);		   /* mov rcx, rax */
	PUT(e, 0x48, 0xc1, 0xe9, 0x0d);		   /* shr rcx, 13 */
	PUT(e, 0x48, 0x31, 0xc1);		   /* xor rcx, rax */
	PUT(e, 0x48, 0xd1, 0xe9);		   /* shr rcx, 1: hot_index() */
	PUT(e, 0x81, 0xe1), put32(e, JIT_HOT - 1); /* and ecx, JIT_HOT - 1 */
	PUT(e, 0x48, 0xc1, 0xe1, 0x05);		   /* shl rcx, 5 */
	mov_imm64(e, RDX, (uint64_t)(uintptr_t)j->hot);
	PUT(e, 0x48, 0x01, 0xca);	/* add rdx, rcx: the entry */
	PUT(e, 0x48, 0x3b, 0x42, 0x08); /* cmp rax, [rdx + 8]: pc */
	miss[0] = jcc(e, 0x85);
	PUT(e, 0x48, 0x89, 0xc6);			/* mov rsi, rax */
	PUT(e, 0x48, 0xc1, 0xee, 0x0c);			/* shr rsi, 12: the vpn */
	PUT(e, 0x89, 0xf1);				/* mov ecx, esi */
	PUT(e, 0x81, 0xe1), put32(e, CPU_TLB_SIZE - 1); /* and ecx, size - 1 */
	PUT(e, 0xc1, 0xe1, 0x05);			/* shl ecx, 5 */
	load_c(e, RDI, CPU_OFF(tlb_x));
	PUT(e, 0x48, 0x01, 0xcf); /* add rdi, rcx: the fetch entry */
	PUT(e, 0x48, 0x3b, 0x37); /* cmp rsi, [rdi] */
	miss[1] = jcc(e, 0x85);
	PUT(e, 0x48, 0x8b, 0x4f, 0x08); /* mov rcx, [rdi + 8] */
	PUT(e, 0x48, 0x01, 0xc1);	/* add rcx, rax: the host address */
	PUT(e, 0x48, 0x3b, 0x0a);	/* cmp rcx, [rdx]: host */
	miss[2] = jcc(e, 0x85);
	PUT(e, 0x48, 0xc1, 0xe9, 0x0c);	      /* shr rcx, 12 */
	PUT(e, 0x81, 0xe1, 0xff, 0x0f, 0, 0); /* and ecx, 4095: dcache_index */
	PUT(e, 0x48, 0xbe), put64(e, (uint64_t)(uintptr_t)c->dc->gen); /* mov rsi, gen */
	PUT(e, 0x48, 0x8b, 0x0c, 0xce);				       /* mov rcx, [rsi + rcx*8] */
	PUT(e, 0x48, 0x3b, 0x4a, 0x10); /* cmp rcx, [rdx + 16]: gen */
	miss[3] = jcc(e, 0x85);
	PUT(e, 0x48, 0x8b, 0x42, 0x18); /* mov rax, [rdx + 24]: fn */
	PUT(e, 0x48, 0x85, 0xc0);	/* test rax, rax */
	miss[4] = jcc(e, 0x84);
	PUT(e, 0xff, 0xe0); /* jmp rax */
	for (int i = 0; i < 5; i++)
		patch_to(miss[i], j->leave);
}

/* The frame every block runs in: enter (jit_run's, c in rdi and the
 * block in rsi) saves the callee-saved registers, points rbx at c and
 * loads the pins; leave (NULL) and leave_rax (the exit in rax) undo it.
 * Blocks run with rsp 16-aligned, as the thunks' calls into C want. */
static void emit_frame(struct emit *e, struct jit *j)
{
	j->leave = e->p;
	PUT(e, 0x31, 0xc0); /* xor eax, eax */
	j->leave_rax = e->p;
	PUT(e, 0x48, 0x83, 0xc4, 0x08);		    /* add rsp, 8 */
	PUT(e, 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d); /* pop r15; pop r14; pop r13 */
	PUT(e, 0x41, 0x5c, 0x5d, 0x5b, 0xc3);	    /* pop r12; pop rbp; pop rbx; ret */
	e->p += (size_t) - (uintptr_t)e->p & 15;
	j->enter = e->p;
	PUT(e, 0x53, 0x55, 0x41, 0x54);		    /* push rbx; push rbp; push r12 */
	PUT(e, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57); /* push r13; push r14; push r15 */
	PUT(e, 0x48, 0x83, 0xec, 0x08);		    /* sub rsp, 8 */
	PUT(e, 0x48, 0x8d, 0x9f), put32(e, XBIAS);  /* lea rbx, [rdi + XBIAS] */
	reload_pins(e);
	PUT(e, 0xff, 0xe6); /* jmp rsi */
}

static void emit_thunks(struct cpu *c)
{
	struct jit *j = c->jit;
	struct emit e = {j->buf, -1};
	emit_frame(&e, j);
	e.p += (size_t) - (uintptr_t)e.p & 7;
	j->call_generic = e.p;
	put64(&e, (uint64_t)(uintptr_t)jit_generic);
	j->call_csr = e.p;
	put64(&e, (uint64_t)(uintptr_t)jit_csr);
	j->call_host = e.p;
	put64(&e, (uint64_t)(uintptr_t)jit_host);
	for (unsigned op = D_LB; op <= D_SD; op++) {
		e.p += (size_t) - (uintptr_t)e.p & 15;
		j->thunk[op - D_LB] = e.p;
		emit_thunk(&e, j, op);
	}
	for (int i = 0; i < 2; i++) {
		e.p += (size_t) - (uintptr_t)e.p & 15;
		j->amo[i] = e.p;
		emit_amo_thunk(&e, 4 << i);
	}
	e.p += (size_t) - (uintptr_t)e.p & 15;
	j->jump = e.p;
	emit_jump_thunk(&e, c);
	j->base = j->used = (size_t)(e.p - j->buf + 15) & ~(size_t)15;
}

/* ---- blocks ---- */

/* The expanded 32-bit form of a D_GENERIC slot. */
static uint32_t generic_insn(const struct dinsn *d)
{
	return dinsn_len(d) == 2 ? rvc_lookup((uint16_t)d->imm) : (uint32_t)d->imm;
}

/* D_GENERIC instructions a block may hold: they go through the
 * interpreter's executor in place (jit_generic). Not the ones that change
 * privilege, flush, wait or trap on purpose (SYSTEM with funct3 0), the
 * doorbell, nor illegal opcodes: the block ends before those. */
static bool generic_in_block(uint32_t insn)
{
	switch (insn & 0x7f) {
	case 0x2f: /* AMO */
	case 0x0f: /* fences */
	case 0x07: /* F/D */
	case 0x27:
	case 0x43:
	case 0x47:
	case 0x4b:
	case 0x4f:
	case 0x53: return true;
	case 0x73: return ((insn >> 12) & 7) != 0 && ((insn >> 12) & 7) != 4; /* Zicsr */
	default: return false;
	}
}

static bool compiles(const struct dinsn *d)
{
	unsigned op = dinsn_op(d);
	if (op == D_GENERIC)
		return generic_in_block(generic_insn(d));
	return op >= D_LUI; /* every fast operation; not D_NONE or D_SLOW */
}

/* Decode (if needed) the slots of the block at pc and count them. */
static unsigned block_extent(struct cpu *c, struct dpage *code, uint64_t pc, const uint8_t *host)
{
	unsigned n = 0, off = pc & 0xfff;
	while (n < JIT_BLOCK_MAX && off < 4096) {
		struct dinsn *d = &code->slot[off >> 1];
		if (d->op == D_NONE)
			cpu_decode_slot(c, d, host + (off - (pc & 0xfff)), (pc & ~0xfffULL) | off);
		if (dinsn_op(d) == D_HOST) /* a host function's entry: a block of its own */
			return n ? n : 1;
		if (!compiles(d))
			break;
		n++;
		if (ends_block(dinsn_op(d)))
			break;
		off += dinsn_len(d);
	}
	return n;
}

static bool same_page(uint64_t a, uint64_t b)
{
	return (a ^ b) < 4096;
}

/* Leave the block for pc: chainable through rec when not NULL. */
static void emit_exit(struct emit *e, const struct jit *j, uint64_t pc, struct jit_exit *rec)
{
	if (rec)
		rec->jmp = rel32_at(e, (const uint8_t[]){0xe9}, 1), patch_to(rec->jmp, e->p);
	set_pc(e, pc);
	if (!rec) {
		jmp_to(e, j->leave);
		return;
	}
	lea_rip(e, RAX, rec);
	jmp_to(e, j->leave_rax);
}

/* The block-ending control transfers. exit[0] and exit[1] are the records
 * for the fixed targets (taken, and not taken or next). */
static void emit_jump(struct emit *e, const struct jit *j, const struct dinsn *d, uint64_t pc,
		      struct jit_exit *exit[2])
{
	static const uint8_t cc[] = {
	    [D_BEQ] = 0x84, [D_BNE] = 0x85,  [D_BLT] = 0x8c,
	    [D_BGE] = 0x8d, [D_BLTU] = 0x82, [D_BGEU] = 0x83,
	};
	unsigned op = dinsn_op(d), len = dinsn_len(d);
	uint64_t target = pc + (uint64_t)(int64_t)d->imm;
	switch (op) {
	case D_JAL:
		set_x(e, d->rd, pc + len);
		emit_exit(e, j, target, exit[0]);
		return;
	case D_JALR:
		load_x(e, RAX, d->rs1);
		add_rax(e, d->imm);
		PUT(e, 0x48, 0x83, 0xe0, 0xfe); /* and rax, ~1 */
		store_c(e, CPU_OFF(pc), RAX);
		set_x(e, d->rd, pc + len); /* after reading rs1: rd may be rs1 */
		jmp_to(e, j->jump);
		return;
	default: {
		load_x(e, RCX, d->rs2);
		load_x(e, RAX, d->rs1);
		PUT(e, 0x48, 0x39, 0xc8); /* cmp rax, rcx */
		uint8_t *taken = jcc(e, cc[op]);
		emit_exit(e, j, pc + len, exit[1]);
		patch_to(taken, e->p);
		emit_exit(e, j, target, exit[0]);
	}
	}
}

/* The records of the block's fixed exits (see emit_jump): page is NULL
 * for a target off the block's page. */
static void plan_exits(struct jit_exit *rec, const struct dinsn *last, uint64_t start, uint64_t pc,
		       const uint8_t *page, uint64_t gen, struct jit_exit *exit[2])
{
	unsigned op = dinsn_op(last);
	uint64_t to[2] = {pc + (uint64_t)(int64_t)last->imm,
			  ends_block(op) ? pc + dinsn_len(last) : pc};
	bool fixed = ends_block(op) && op != D_JALR;
	exit[0] = fixed ? &rec[0] : NULL;
	exit[1] = !ends_block(op) || (fixed && op != D_JAL) ? &rec[1] : NULL;
	for (int i = 0; i < 2; i++)
		if (exit[i])
			*exit[i] = (struct jit_exit){.page = same_page(to[i], start) ? page : NULL,
						     .gen = gen};
}

/* A call of the C function in pointer slot `slot` with (c, site s), which
 * returns nonzero to leave the block: the jump to patch to the block's
 * leave is returned; on going on, the pins are loaded again, since C may
 * have written a register in c->x. */
static uint8_t *emit_site_call(struct emit *e, const uint8_t *slot, const struct jit_site *s)
{
	PUT(e, 0x48, 0x8d, 0xbb), put32(e, (uint32_t)-XBIAS); /* lea rdi, [rbx - XBIAS]: c */
	lea_rip(e, RSI, s);
	patch_to(rel32_at(e, (const uint8_t[]){0xff, 0x15}, 2), slot); /* call [rip + slot] */
	PUT(e, 0x85, 0xc0);					       /* test eax, eax */
	e->rax = -1;
	uint8_t *leave = jcc(e, 0x85); /* jnz leave */
	reload_pins(e);
	return leave;
}

/* The instruction at site s through jit_generic. */
static uint8_t *emit_generic(struct emit *e, const struct jit *j, const struct jit_site *s)
{
	return emit_site_call(e, j->call_generic, s);
}

/* raw_insn = insn, as the interpreter records every D_GENERIC one: it is
 * part of the hart's state. */
static void set_raw_insn(struct emit *e, uint32_t insn)
{
	PUT(e, 0xc7, 0x83), put32(e, CPU_OFF(raw_insn)), put32(e, insn);
}

/* The AMOs that read, compute and write back (not LR/SC), .w or .d. */
static bool amo_inline(uint32_t insn)
{
	unsigned f5 = insn >> 27, f3 = (insn >> 12) & 7;
	return (insn & 0x7f) == 0x2f && (f3 == 2 || f3 == 3) && amo_rmw_known(f5);
}

/* An AMO inline, as exec_amo does it on a hit of the write set (the AMO
 * thunk); returns the jump taken otherwise, to the jit_generic path. With
 * rdx = the old value and rcx = x[rs2], rcx becomes the new one. */
static uint8_t *emit_amo(struct emit *e, const struct jit *j, uint32_t insn)
{
	static const uint8_t cmov[] = {[0x10 / 4] = 0x4c,
				       [0x14 / 4] = 0x4f, /* cmovl, cmovg */
				       [0x18 / 4] = 0x42,
				       [0x1c / 4] = 0x47}; /* cmovb, cmova */
	unsigned f5 = insn >> 27, rd = (insn >> 7) & 31;
	bool d = ((insn >> 12) & 7) == 3;
	set_raw_insn(e, insn);
	load_x(e, RAX, (insn >> 15) & 31);
	call_to(e, j->amo[d]);
	e->rax = -1;
	PUT(e, 0x48, 0x85, 0xc0); /* test rax, rax */
	uint8_t *slow = jcc(e, 0x84);
	load_x(e, RCX, (insn >> 20) & 31);
	if (d)
		PUT(e, 0x48);
	PUT(e, 0x8b, 0x10); /* mov (r/e)dx, [rax]: the old value */
	if (f5 != 0x01 && d)
		PUT(e, 0x48);
	switch (f5) {
	case 0x00: PUT(e, 0x01, 0xd1); break; /* add ecx, edx */
	case 0x01: break;		      /* swap: rs2 as it is */
	case 0x04: PUT(e, 0x31, 0xd1); break; /* xor */
	case 0x08: PUT(e, 0x09, 0xd1); break; /* or */
	case 0x0c: PUT(e, 0x21, 0xd1); break; /* and */
	default:			      /* cmp edx, ecx; cmovcc ecx, edx: the old one if cc */
		PUT(e, 0x39, 0xca);
		if (d)
			PUT(e, 0x48);
		PUT(e, 0x0f, cmov[f5 / 4], 0xca);
	}
	if (d)
		PUT(e, 0x48);
	PUT(e, 0x89, 0x08); /* mov [rax], (r/e)cx */
	if (rd) {
		if (!d)
			PUT(e, 0x48, 0x63, 0xd2); /* movsxd rdx, edx */
		store_x(e, (int)rd, RDX);
	}
	return slow;
}

/* A Zicsr instruction (csrrw/csrrs/csrrc or an immediate form) through
 * jit_csr: csr_fast knows which CSRs it serves, and answers "not here" for
 * the rest, which then take the returned jump to the jit_generic path. */
static uint8_t *emit_csr(struct emit *e, const struct jit *j, uint32_t insn)
{
	unsigned rs1 = (insn >> 15) & 31, rd = (insn >> 7) & 31;
	set_raw_insn(e, insn);
	if (insn & (4u << 12))
		PUT(e, 0xba), put32(e, rs1); /* mov edx, uimm */
	else
		load_x(e, RDX, (int)rs1);
	PUT(e, 0x48, 0x8d, 0xbb), put32(e, (uint32_t)-XBIAS); /* lea rdi, [rbx - XBIAS]: c */
	PUT(e, 0xbe), put32(e, insn);			      /* mov esi, insn */
	patch_to(rel32_at(e, (const uint8_t[]){0xff, 0x15}, 2),
		 j->call_csr); /* call [rip + slot] */
	e->rax = -1;
	PUT(e, 0x48, 0x85, 0xd2); /* test rdx, rdx */
	uint8_t *slow = jcc(e, 0x85);
	if (rd)
		store_x(e, (int)rd, RAX);
	return slow;
}

/* One instruction of a block's body (not its last jump). */
static void emit_insn(struct emit *e, struct jit *j, const struct jit_block *b,
		      const struct dinsn *d, uint64_t pc, struct jit_site *s, uint8_t **leave_at)
{
	unsigned op = dinsn_op(d);
	if (is_load(op) || is_store(op)) {
		emit_mem(e, j, d, s);
	} else if (op == D_GENERIC && (generic_insn(d) & 0x707f) <= 0x100f &&
		   (generic_insn(d) & 0x7f) == 0x0f) {
		/* fence, fence.i: no-ops, as in cpu_exec_other (one hart, and a
		 * store to code leaves the block through its generation); only
		 * raw_insn, part of the hart's state, records them */
		set_raw_insn(e, (uint32_t)d->imm);
	} else if (op == D_GENERIC) {
		s->raw = (uint32_t)d->imm, s->insn = generic_insn(d);
		s->addend = (uintptr_t)b->host - b->pc;
		uint8_t *slow = NULL;
		if (amo_inline(s->insn))
			slow = emit_amo(e, j, s->insn);
		else if ((s->insn & 0x7f) == 0x73 && ((s->insn >> 12) & 3) != 0)
			slow = emit_csr(e, j, s->insn);
		uint8_t *done = slow ? rel32_at(e, (const uint8_t[]){0xe9}, 1) : NULL;
		if (slow)
			patch_to(slow, e->p);
		*leave_at = emit_generic(e, j, s);
		if (done)
			patch_to(done, e->p);
	} else {
		emit_alu(e, d, pc);
	}
}

/* A block of one host function's entry (D_HOST): jit_host, then on to
 * the return address through the jump thunk, as a jalr goes; chained
 * exits enter it like any block, so calls of memset, memcpy and the CRCs
 * stay in compiled code. */
static void emit_host(struct emit *e, const struct jit *j, const struct jit_site *s)
{
	patch_to(emit_site_call(e, j->call_host, s), j->leave); /* a0 holds its answer */
	jmp_to(e, j->jump);
}

/* Compile block b (n instructions at pc) at the end of the buffer. Layout:
 * its sites and exit records, then the code:
 *   fn:    sub budget, n; jl short       (where jit_run and chained exits enter)
 *   body:  the instructions, the exits
 *   short: add budget, n; pc = b->pc; leave */
static void compile(struct jit *j, struct dpage *code, struct jit_block *b, unsigned n,
		    struct jit_site *sites, struct jit_exit *rec, uint8_t *start)
{
	struct emit e = {start, -1};
	struct jit_exit *exit[2];
	uint64_t pc = b->pc;
	const struct dinsn *d = NULL;
	b->fn = e.p;
	PUT(&e, 0x48, 0x83, 0xab), put32(&e, CPU_OFF(budget)),
	    PUT(&e, (uint8_t)n);	   /* sub budget, n */
	uint8_t *short_of = jcc(&e, 0x8c); /* jl */
	for (unsigned i = 0; i < n; i++) {
		d = &code->slot[(pc & 0xfff) >> 1];
		unsigned op = dinsn_op(d);
		sites[i] = (struct jit_site){.pc = pc,
					     .rest = n - 1 - i,
					     .op = (uint8_t)op,
					     .rd = d->rd,
					     .rs2 = d->rs2,
					     .len = (uint8_t)dinsn_len(d)};
		if (i + 1 == n && ends_block(op))
			break;
		if (op == D_HOST) {
			emit_host(&e, j, &sites[i]);
			break;
		}
		uint8_t *leave_at = NULL;
		emit_insn(&e, j, b, d, pc, &sites[i], &leave_at);
		if (leave_at)
			patch_to(leave_at, j->leave);
		pc += dinsn_len(d);
	}
	const uint8_t *page = (const uint8_t *)((uintptr_t)b->host & ~(uintptr_t)0xfff);
	if (dinsn_op(d) != D_HOST) {
		plan_exits(rec, d, b->pc, pc, page, b->gen, exit);
		if (ends_block(dinsn_op(d)))
			emit_jump(&e, j, d, pc, exit);
		else
			emit_exit(&e, j, pc, exit[1]);
	}
	patch_to(short_of, e.p);
	PUT(&e, 0x48, 0x83, 0x83), put32(&e, CPU_OFF(budget)),
	    PUT(&e, (uint8_t)n); /* add budget, n */
	set_pc(&e, b->pc);
	jmp_to(&e, j->leave);
	j->used = (size_t)(e.p - j->buf + 15) & ~(size_t)15;
}

static void jit_flush(struct jit *j)
{
	memset(j->hot, 0, sizeof(j->hot));
	memset(j->table, 0, sizeof(j->table));
	j->used = j->base;
}

static struct jit_block **bucket_of(struct jit *j, uint64_t pc)
{
	return &j->table[(pc * 0x9e3779b97f4a7c15ULL) >> (64 - 16)];
}

/* The block in the table, dropping from its chain the stale ones met. */
static struct jit_block *table_find(struct cpu *c, const uint8_t *host, uint64_t pc, uint64_t gen)
{
	struct jit_block **link = bucket_of(c->jit, pc), *b;
	while ((b = *link)) {
		if (b->host == host && b->pc == pc && b->gen == gen)
			return b;
		if (b->gen != dcache_gen(c->dc, b->host))
			*link = b->next;
		else
			link = &b->next;
	}
	return NULL;
}

static struct jit_block *new_block(struct cpu *c, struct dpage *code, uint64_t pc,
				   const uint8_t *host, uint64_t gen)
{
	struct jit *j = c->jit;
	c->events[CPU_EV_COMPILE]++;
	unsigned n = block_extent(c, code, pc, host);
	struct jit_site *sites = (struct jit_site *)(j->buf + j->used);
	struct jit_exit *rec = (struct jit_exit *)(sites + n);
	struct jit_block *b = (struct jit_block *)(rec + 2), **bucket = bucket_of(j, pc);
	*b = (struct jit_block){.host = host, .pc = pc, .gen = gen, .next = *bucket};
	j->used = (size_t)((uint8_t *)(b + 1) - j->buf + 15) & ~(size_t)15;
	if (n)
		compile(j, code, b, n, sites, rec, j->buf + j->used);
	*bucket = b;
	return b;
}

/* The guard of an exit to another page, in front of the target block's
 * chain entry: the dispatcher's checks inline (the fetch TLB still maps
 * the target's page to the host page it was compiled from, and that
 * page's generation is unchanged); when one fails, it leaves with pc set. */
static uint8_t *emit_guard(struct cpu *c, uint64_t pc, const uint8_t *host, uint64_t gen, jit_fn fn)
{
	struct jit *j = c->jit;
	struct emit e = {j->buf + j->used, -1};
	uint8_t *guard = e.p, *miss[3];
	uint32_t at = (uint32_t)(tlb_vpn(pc) % CPU_TLB_SIZE * sizeof(struct cpu_tlb_entry));
	load_c(&e, RSI, CPU_OFF(tlb_x));
	PUT(&e, 0x48, 0x8b, 0x86), put32(&e, at); /* mov rax, [rsi + at]: the tag */
	mov_imm64(&e, RDX, tlb_vpn(pc));
	PUT(&e, 0x48, 0x39, 0xd0); /* cmp rax, rdx */
	miss[0] = jcc(&e, 0x85);
	PUT(&e, 0x48, 0x8b, 0x86), put32(&e, at + 8); /* mov rax, [rsi + at + 8]: the addend */
	mov_imm64(&e, RDX, (uint64_t)((uintptr_t)host - pc));
	PUT(&e, 0x48, 0x39, 0xd0);
	miss[1] = jcc(&e, 0x85);
	mov_imm64(&e, RAX, (uint64_t)(uintptr_t)&c->dc->gen[dcache_index(host)]);
	PUT(&e, 0x48, 0x8b, 0x00); /* mov rax, [rax] */
	mov_imm64(&e, RDX, gen);
	PUT(&e, 0x48, 0x39, 0xd0);
	miss[2] = jcc(&e, 0x85);
	jmp_to(&e, fn);
	for (int i = 0; i < 3; i++)
		patch_to(miss[i], e.p);
	set_pc(&e, pc);
	jmp_to(&e, j->leave);
	j->used = (size_t)(e.p - j->buf + 15) & ~(size_t)15;
	return guard;
}

/* Chain the exit `from` to block fn at pc: directly in one page and one
 * generation (the jump stays valid exactly as long as both blocks do),
 * through a guard from another page. */
static void chain(struct cpu *c, struct jit_exit *from, uint64_t pc, const uint8_t *host,
		  uint64_t gen, jit_fn fn)
{
	if (from->page == host - (pc & 0xfff) && from->gen == gen)
		patch_to(from->jmp, fn);
	else if (!from->page && c->jit->used + 256 <= JIT_BUF_BYTES)
		patch_to(from->jmp, emit_guard(c, pc, host, gen, fn));
}

/* Where block pc goes in hot[]: the pc's halfword index with the bits
 * above 8 KiB folded in, since hot kernel code is spread over megabytes. */
static unsigned hot_index(uint64_t pc)
{
	return (unsigned)(((pc >> 13) ^ pc) >> 1) % JIT_HOT;
}

jit_fn jit_block_at(struct cpu *c, struct dpage *code, uint64_t pc, const uint8_t *host,
		    struct jit_exit *from)
{
	struct jit *j = c->jit;
	uint64_t gen = dcache_gen(c->dc, host);
	struct jit_hot *h = &j->hot[hot_index(pc)];
	if (h->host != host || h->pc != pc || h->gen != gen) {
		struct jit_block *b = table_find(c, host, pc, gen);
		if (!b) {
			if (j->used + JIT_ROOM > JIT_BUF_BYTES) {
				jit_flush(j);
				from = NULL; /* its block is gone */
			}
			b = new_block(c, code, pc, host, gen);
		}
		*h = (struct jit_hot){host, pc, gen, b->fn};
	}
	if (from && h->fn)
		chain(c, from, pc, host, gen, h->fn);
	return h->fn;
}

struct jit_exit *jit_run(struct cpu *c, jit_fn fn)
{
	struct jit_exit *(*enter)(struct cpu *, jit_fn) =
	    (struct jit_exit * (*)(struct cpu *, jit_fn)) c->jit->enter;
	return enter(c, fn);
}

int jit_init(struct cpu *c)
{
	struct jit *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->buf = mmap(NULL, JIT_BUF_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (j->buf == MAP_FAILED) { /* no executable memory here: interpret */
		free(j);
		return 0;
	}
	c->jit = j;
	emit_thunks(c);
	return 0;
}

void jit_free(struct cpu *c)
{
	if (!c->jit)
		return;
	munmap(c->jit->buf, JIT_BUF_BYTES);
	free(c->jit);
	c->jit = NULL;
}

#else /* not x86-64: the hart interprets */

int jit_init(struct cpu *c)
{
	(void)c;
	return 0;
}

void jit_free(struct cpu *c)
{
	(void)c;
}

jit_fn jit_block_at(struct cpu *c, struct dpage *code, uint64_t pc, const uint8_t *host,
		    struct jit_exit *from)
{
	(void)c, (void)code, (void)pc, (void)host, (void)from;
	return NULL;
}

struct jit_exit *jit_run(struct cpu *c, jit_fn fn)
{
	(void)c, (void)fn;
	return NULL;
}

#endif
