/* jit.c - see jit.h. The code generator is a template per operation: the
 * guest registers stay in c->x (rbx holds c), each operation loads its
 * sources into rax and rcx, computes, and stores rd back. Loads and stores
 * inline the soft TLB's hit path of cpu_load/cpu_store (cpu_internal.h)
 * and keep their misses in stubs after the block's code. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cpu_internal.h"
#include "dcache.h"
#include "jit.h"

#if defined(__x86_64__)

#define JIT_BUF_BYTES (64u << 20)
#define JIT_HOT	      (1u << 12) /* the blocks last found, by pc: 32 KiB, stays in cache */
#define JIT_TABLE     (1u << 16) /* every block, hashed, chained */
#define JIT_ROOM      (JIT_BLOCK_MAX * 160 + 4096) /* the most one block can take */

/* What a memory operation's slow path needs to redo it as the interpreter
 * would: kept in the buffer, next to the block that uses it. */
struct jit_site {
	uint64_t pc;
	uint32_t rest; /* instructions of the block after this one */
	uint8_t op, rd, rs2, len;
};

/* A block's exit to a fixed pc in its own page: the jump at `jmp` starts
 * out going on to "set pc, return this record" and is patched to the
 * target block's chain entry once the dispatcher has found that block. */
struct jit_exit {
	uint8_t *jmp;
	const uint8_t *page; /* the host page of both blocks */
	uint64_t gen;	     /* its generation when compiled */
};

/* Blocks live in the buffer, each header just before its code. */
struct jit {
	uint8_t *buf;
	size_t used;
	struct jit_block *hot[JIT_HOT];
	struct jit_block *table[JIT_TABLE];
};

/* ---- the emitter ---- */

struct emit {
	uint8_t *p;
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

enum { RAX = 0, RCX = 1, RDX = 2, RSI = 6 };

#define OFF_X(r) ((uint32_t)(offsetof(struct cpu, x) + 8u * (r)))

/* mov reg, [rbx + off] / mov [rbx + off], reg (64-bit, reg below r8). */
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
}

/* add rax, imm32 (sign-extended), nothing for 0 */
static void add_rax(struct emit *e, int32_t imm)
{
	if (imm) {
		PUT(e, 0x48, 0x05);
		put32(e, (uint32_t)imm);
	}
}

static void sext_rax(struct emit *e)
{
	PUT(e, 0x48, 0x63, 0xc0); /* movsxd rax, eax */
}

/* A 32-bit displacement to patch later: returns where it is. */
static uint8_t *jcc_fwd(struct emit *e, uint8_t cc)
{
	PUT(e, 0x0f, cc);
	uint8_t *at = e->p;
	put32(e, 0);
	return at;
}

static void patch_to(uint8_t *at, const uint8_t *target)
{
	int32_t rel = (int32_t)(target - (at + 4));
	memcpy(at, &rel, 4);
}

/* ---- operations ---- */

/* ALU operations: rax = x[rs1], rcx = x[rs2], then these bytes, result in
 * rax. Shifts by register use cl, masked by the CPU as RISC-V masks them. */
static bool emit_alu(struct emit *e, const struct dinsn *d, uint64_t pc)
{
	int32_t imm = d->imm;
	uint8_t ib = (uint8_t)imm;
	unsigned op = dinsn_op(d);
	bool two = op >= D_ADD; /* register-register: rs2 in rcx */
	if (op != D_LUI && op != D_AUIPC)
		load_c(e, RAX, OFF_X(d->rs1));
	if (two)
		load_c(e, RCX, OFF_X(d->rs2));
	switch (op) {
	case D_LUI:
		PUT(e, 0x48, 0xc7, 0xc0);
		put32(e, (uint32_t)imm);
		break;
	case D_AUIPC: mov_imm64(e, RAX, pc + (uint64_t)(int64_t)imm); break;
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
	default: return false;
	}
	store_c(e, OFF_X(d->rd), RAX);
	return true;
}

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

/* rax = x[rs1] + imm, then the soft-TLB hit test of cpu_load/cpu_store on
 * `set` (tlb_r or tlb_w): jumps to the slow stub (patched later, via
 * miss[0..1]) on a miss; on a hit rax is the host address. */
static void emit_tlb(struct emit *e, const struct dinsn *d, uint32_t set, int size,
		     uint8_t *miss[2])
{
	_Static_assert(CPU_TLB_SIZE == 256 && sizeof(struct cpu_tlb_entry) == 24,
		       "the inline TLB lookup indexes by one byte of the vpn, 24-byte entries");
	load_c(e, RAX, OFF_X(d->rs1));
	add_rax(e, d->imm);
	PUT(e, 0x48, 0x89, 0xc2);	/* mov rdx, rax */
	PUT(e, 0x48, 0xc1, 0xea, 0x0c); /* shr rdx, 12: the vpn */
	PUT(e, 0x0f, 0xb6, 0xca);	/* movzx ecx, dl: the set index */
	PUT(e, 0x48, 0x8d, 0x0c, 0x49); /* lea rcx, [rcx + rcx*2] */
	load_c(e, RSI, set);
	PUT(e, 0x48, 0x8d, 0x34, 0xce); /* lea rsi, [rsi + rcx*8]: the entry */
	PUT(e, 0x48, 0x3b, 0x16);	/* cmp rdx, [rsi]: its tag */
	miss[0] = jcc_fwd(e, 0x85);	/* jne */
	miss[1] = NULL;
	if (size > 1) {
		PUT(e, 0x89, 0xc1);				      /* mov ecx, eax */
		PUT(e, 0x81, 0xe1, 0xff, 0x0f, 0, 0);		      /* and ecx, 0xfff */
		PUT(e, 0x81, 0xf9), put32(e, 4096u - (unsigned)size); /* cmp ecx, 4096 - size */
		miss[1] = jcc_fwd(e, 0x87);			      /* ja */
	}
	PUT(e, 0x48, 0x03, 0x46, 0x08); /* add rax, [rsi + 8]: + addend */
}

static void emit_load_op(struct emit *e, const struct dinsn *d)
{
	switch (dinsn_op(d)) {
	case D_LB: PUT(e, 0x48, 0x0f, 0xbe, 0x00); break;
	case D_LBU: PUT(e, 0x0f, 0xb6, 0x00); break;
	case D_LH: PUT(e, 0x48, 0x0f, 0xbf, 0x00); break;
	case D_LHU: PUT(e, 0x0f, 0xb7, 0x00); break;
	case D_LW: PUT(e, 0x48, 0x63, 0x00); break;
	case D_LWU: PUT(e, 0x8b, 0x00); break;
	default: PUT(e, 0x48, 0x8b, 0x00); break;
	}
	store_c(e, OFF_X(d->rd), RAX);
}

static void emit_store_op(struct emit *e, const struct dinsn *d)
{
	load_c(e, RCX, OFF_X(d->rs2));
	switch (dinsn_op(d)) {
	case D_SB: PUT(e, 0x88, 0x08); break;
	case D_SH: PUT(e, 0x66, 0x89, 0x08); break;
	case D_SW: PUT(e, 0x89, 0x08); break;
	default: PUT(e, 0x48, 0x89, 0x08); break;
	}
}

static void emit_set_pc(struct emit *e, uint64_t pc)
{
	mov_imm64(e, RAX, pc);
	store_c(e, offsetof(struct cpu, pc), RAX);
}

static void emit_jmp(struct emit *e, const uint8_t *target)
{
	PUT(e, 0xe9);
	uint8_t *at = e->p;
	put32(e, 0);
	patch_to(at, target);
}

/* Leave the block with nothing to chain: return NULL. */
static void emit_return_null(struct emit *e)
{
	PUT(e, 0x31, 0xc0, 0x5b, 0xc3); /* xor eax, eax; pop rbx; ret */
}

/* Leave the block for pc, chainable when rec is not NULL (same page). */
static void emit_exit(struct emit *e, uint64_t pc, struct jit_exit *rec)
{
	if (rec) {
		rec->jmp = e->p + 1;
		emit_jmp(e, e->p + 5); /* patched by chain() */
	}
	emit_set_pc(e, pc);
	if (!rec) {
		emit_return_null(e);
		return;
	}
	mov_imm64(e, RAX, (uint64_t)(uintptr_t)rec);
	PUT(e, 0x5b, 0xc3); /* pop rbx; ret */
}

/* The block-ending control transfers. exit[0] and exit[1] are the records
 * for the fixed targets (taken, and not taken or next), NULL for a target
 * off the page. */
static void emit_jump(struct emit *e, const struct dinsn *d, uint64_t pc, struct jit_exit *exit[2])
{
	static const uint8_t jcc[] = {
	    [D_BEQ] = 0x84, [D_BNE] = 0x85,  [D_BLT] = 0x8c,
	    [D_BGE] = 0x8d, [D_BLTU] = 0x82, [D_BGEU] = 0x83,
	};
	unsigned op = dinsn_op(d), len = dinsn_len(d);
	uint64_t target = pc + (uint64_t)(int64_t)d->imm;
	switch (op) {
	case D_JAL:
		mov_imm64(e, RAX, pc + len);
		store_c(e, OFF_X(d->rd), RAX);
		emit_exit(e, target, exit[0]);
		return;
	case D_JALR:
		load_c(e, RAX, OFF_X(d->rs1));
		add_rax(e, d->imm);
		PUT(e, 0x48, 0x83, 0xe0, 0xfe); /* and rax, ~1 */
		store_c(e, offsetof(struct cpu, pc), RAX);
		mov_imm64(e, RAX, pc + len); /* after reading rs1: rd may be rs1 */
		store_c(e, OFF_X(d->rd), RAX);
		emit_return_null(e);
		return;
	default: {
		load_c(e, RAX, OFF_X(d->rs1));
		load_c(e, RCX, OFF_X(d->rs2));
		PUT(e, 0x48, 0x39, 0xc8); /* cmp rax, rcx */
		uint8_t *taken = jcc_fwd(e, jcc[op]);
		emit_exit(e, pc + len, exit[1]);
		patch_to(taken, e->p);
		emit_exit(e, target, exit[0]);
	}
	}
}

static bool ends_block(unsigned op)
{
	return op >= D_JAL && op <= D_BGEU;
}

static bool compiles(unsigned op)
{
	return op >= D_LUI; /* every fast operation; not D_NONE/SLOW/GENERIC */
}

/* ---- the slow path ---- */

static uint64_t load_extend(unsigned op, uint64_t v)
{
	switch (op) {
	case D_LB: return (uint64_t)(int64_t)(int8_t)v;
	case D_LH: return (uint64_t)(int64_t)(int16_t)v;
	case D_LW: return (uint64_t)(int64_t)(int32_t)v;
	default: return v;
	}
}

/* A block's load or store that missed the inline TLB, done as the
 * interpreter does it, with pc and budget as the interpreter has them.
 * Returns 1 to leave the block: the access trapped (pc is the trap
 * vector), the run was stopped, or decoded code changed; 0 to go on. */
static int jit_mem_slow(struct cpu *c, uint64_t va, const struct jit_site *s)
{
	uint64_t epoch = c->dc->epoch, v;
	int size = mem_size(s->op);
	bool ok;
	c->budget += s->rest;
	c->pc = s->pc;
	if (is_store(s->op)) {
		ok = mmu_store_slow(c, va, size, c->x[s->rs2]);
	} else {
		ok = mmu_load_slow(c, va, size, &v);
		if (ok)
			c->x[s->rd] = load_extend(s->op, v);
	}
	if (!ok)
		return 1;
	if (c->budget <= 0 || c->dc->epoch != epoch) {
		c->pc = s->pc + s->len;
		return 1;
	}
	c->budget -= s->rest;
	return 0;
}

/* ---- blocks ---- */

struct pending {
	uint8_t *miss[2], *resume;
	struct jit_site *site;
};

/* The slow stub of one memory operation: call jit_mem_slow(c, va, site)
 * with va still in rax, then leave or go back. */
static void emit_stub(struct emit *e, const struct pending *m, const uint8_t *leave)
{
	for (int i = 0; i < 2; i++)
		if (m->miss[i])
			patch_to(m->miss[i], e->p);
	PUT(e, 0x48, 0x89, 0xdf); /* mov rdi, rbx */
	PUT(e, 0x48, 0x89, 0xc6); /* mov rsi, rax */
	mov_imm64(e, RDX, (uint64_t)(uintptr_t)m->site);
	mov_imm64(e, RAX, (uint64_t)(uintptr_t)jit_mem_slow);
	PUT(e, 0xff, 0xd0); /* call rax */
	PUT(e, 0x85, 0xc0); /* test eax, eax */
	patch_to(jcc_fwd(e, 0x85), leave);
	emit_jmp(e, m->resume);
}

/* Decode (if needed) the slots of the block at pc and count them: n
 * instructions, and whether the last one ends it. */
static unsigned block_extent(struct dpage *code, uint64_t pc, const uint8_t *host)
{
	unsigned n = 0, off = pc & 0xfff;
	while (n < JIT_BLOCK_MAX && off < 4096) {
		struct dinsn *d = &code->slot[off >> 1];
		if (d->op == D_NONE)
			dcache_decode(d, host + (off - (pc & 0xfff)), off);
		if (!compiles(dinsn_op(d)))
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

/* The records of the block's fixed exits in its page (see emit_jump). */
static void plan_exits(struct jit_exit *rec, const struct dinsn *last, uint64_t start, uint64_t pc,
		       const uint8_t *page, uint64_t gen, struct jit_exit *exit[2])
{
	unsigned op = dinsn_op(last);
	uint64_t next = ends_block(op) ? pc + dinsn_len(last) : pc;
	uint64_t target = pc + (uint64_t)(int64_t)last->imm;
	bool fixed = ends_block(op) && op != D_JALR;
	exit[0] = fixed && same_page(target, start) ? &rec[0] : NULL;
	exit[1] =
	    (!ends_block(op) || (fixed && op != D_JAL)) && same_page(next, start) ? &rec[1] : NULL;
	for (int i = 0; i < 2; i++)
		if (exit[i])
			exit[i]->page = page, exit[i]->gen = gen;
}

/* The chain entry of a block of n instructions at pc: what a patched exit
 * of another block jumps to. It charges the budget as the dispatcher does,
 * or, when the budget does not cover the block, leaves with pc set. */
static void emit_chain_entry(struct emit *e, uint64_t pc, unsigned n, uint8_t **body_jmp)
{
	load_c(e, RAX, offsetof(struct cpu, budget));
	PUT(e, 0x48, 0x2d), put32(e, n);      /* sub rax, n */
	uint8_t *short_of = jcc_fwd(e, 0x8c); /* jl */
	store_c(e, offsetof(struct cpu, budget), RAX);
	PUT(e, 0xe9);
	*body_jmp = e->p;
	put32(e, 0);
	patch_to(short_of, e->p);
	emit_set_pc(e, pc);
	emit_return_null(e);
}

/* Compile the n instructions at pc into the buffer: fills b's entries. */
static void compile(struct jit *j, struct dpage *code, struct jit_block *b)
{
	struct jit_site *sites = (struct jit_site *)(j->buf + j->used);
	struct jit_exit *rec = (struct jit_exit *)(sites + b->n);
	struct pending mem[JIT_BLOCK_MAX];
	struct jit_exit *exit[2];
	unsigned nmem = 0, n = b->n;
	struct emit e = {(uint8_t *)(rec + 2)};
	const struct dinsn *d = NULL;
	uint64_t pc = b->pc;
	uint8_t *body_jmp;
	b->chain = e.p;
	emit_chain_entry(&e, pc, n, &body_jmp);
	b->fn = (struct jit_exit * (*)(struct cpu *)) e.p;
	PUT(&e, 0x53);		   /* push rbx */
	PUT(&e, 0x48, 0x89, 0xfb); /* mov rbx, rdi */
	patch_to(body_jmp, e.p);
	for (unsigned i = 0; i < n; i++) {
		d = &code->slot[(pc & 0xfff) >> 1];
		unsigned op = dinsn_op(d);
		if (is_load(op) || is_store(op)) {
			struct pending *m = &mem[nmem++];
			m->site = &sites[i];
			*m->site = (struct jit_site){pc,    n - 1 - i, (uint8_t)op,
						     d->rd, d->rs2,    (uint8_t)dinsn_len(d)};
			emit_tlb(&e, d,
				 is_load(op) ? offsetof(struct cpu, tlb_r)
					     : offsetof(struct cpu, tlb_w),
				 mem_size(op), m->miss);
			if (is_load(op))
				emit_load_op(&e, d);
			else
				emit_store_op(&e, d);
			m->resume = e.p;
		} else if (!ends_block(op)) {
			emit_alu(&e, d, pc);
		}
		if (i + 1 < n || !ends_block(op))
			pc += dinsn_len(d);
	}
	const uint8_t *page = (const uint8_t *)((uintptr_t)b->host & ~(uintptr_t)0xfff);
	plan_exits(rec, d, b->pc, pc, page, b->gen, exit);
	if (ends_block(dinsn_op(d)))
		emit_jump(&e, d, pc, exit);
	else
		emit_exit(&e, pc, exit[1]);
	uint8_t *leave = e.p;
	emit_return_null(&e);
	for (unsigned i = 0; i < nmem; i++)
		emit_stub(&e, &mem[i], leave);
	j->used = (size_t)(e.p - j->buf + 15) & ~(size_t)15;
}

static void jit_flush(struct jit *j)
{
	memset(j->hot, 0, sizeof(j->hot));
	memset(j->table, 0, sizeof(j->table));
	j->used = 0;
}

static bool block_is(const struct jit_block *b, const uint8_t *host, uint64_t pc, uint64_t gen)
{
	return b && b->host == host && b->pc == pc && b->gen == gen;
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
		if (block_is(b, host, pc, gen))
			return b;
		if (b->gen != dcache_gen(c->dc, b->host))
			*link = b->next;
		else
			link = &b->next;
	}
	return NULL;
}

static struct jit_block *new_block(struct jit *j, struct dpage *code, uint64_t pc,
				   const uint8_t *host, uint64_t gen)
{
	struct jit_block *b = (struct jit_block *)(j->buf + j->used), **bucket = bucket_of(j, pc);
	*b = (struct jit_block){
	    .host = host, .pc = pc, .gen = gen, .n = block_extent(code, pc, host)};
	j->used += (sizeof(*b) + 15) & ~(size_t)15;
	if (b->n)
		compile(j, code, b);
	b->next = *bucket;
	*bucket = b;
	return b;
}

const struct jit_block *jit_block_at(struct cpu *c, struct dpage *code, uint64_t pc,
				     const uint8_t *host, struct jit_exit *from)
{
	struct jit *j = c->jit;
	uint64_t gen = dcache_gen(c->dc, host);
	struct jit_block **hot = &j->hot[(pc >> 1) % JIT_HOT], *b = *hot;
	if (!block_is(b, host, pc, gen)) {
		b = table_find(c, host, pc, gen);
		if (!b) {
			if (j->used + JIT_ROOM > JIT_BUF_BYTES) {
				jit_flush(j);
				from = NULL; /* its block is gone */
			}
			b = new_block(j, code, pc, host, gen);
		}
		*hot = b;
	}
	/* Chain the exit that led here: same page, same generation, so the
	 * jump stays valid exactly as long as both blocks do. */
	if (from && b->n && from->gen == gen && from->page == host - (pc & 0xfff))
		patch_to(from->jmp, b->chain);
	return b;
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

const struct jit_block *jit_block_at(struct cpu *c, struct dpage *code, uint64_t pc,
				     const uint8_t *host, struct jit_exit *from)
{
	(void)c, (void)code, (void)pc, (void)host, (void)from;
	return NULL;
}

#endif
