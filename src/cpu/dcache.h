/* dcache.h - the decoded-instruction cache: per 4 KiB page of guest RAM
 * holding code, one pre-decoded slot per 2-byte offset, filled lazily the
 * first time the hart executes there.
 *
 * Invariants (checked by tests/isa/u_zifencei.S and the fuzz test):
 *  1. A page with decoded slots is never in the write TLB: every store to it
 *     takes the slow path, which calls dcache_store() to undecode the slots
 *     the store overlaps. So code is coherent without fence.i.
 *  2. A fetch-TLB entry's `code` pointer is valid until dcache evicts a page,
 *     which flushes the whole fetch TLB first.
 *  3. The cache is keyed by host page, i.e. by physical page: two virtual
 *     mappings of one page share one decoded page.
 * Like the TLB it is a cache of RAM contents, not machine state: whoever
 * changes RAM behind the hart's back (a restore, DMA) must call
 * cpu_flush_code() or cpu_code_written(). */
#ifndef THEMIS_DCACHE_H
#define THEMIS_DCACHE_H

#include <stdint.h>

struct cpu;

/* Operations with a fast path in the executor; everything else is
 * D_GENERIC (the full decoder in exec) or D_SLOW (a 32-bit instruction that
 * straddles two pages: fetched and executed the slow way every time). */
enum dop {
	D_NONE = 0,
	D_SLOW,
	D_GENERIC,
	D_HOST, /* the entry of a function the machine computes (cpu.host_fn): rd says which */
	D_LUI,
	D_AUIPC,
	D_JAL,
	D_JALR,
	D_BEQ,
	D_BNE,
	D_BLT,
	D_BGE,
	D_BLTU,
	D_BGEU,
	D_LB,
	D_LH,
	D_LW,
	D_LD,
	D_LBU,
	D_LHU,
	D_LWU,
	D_SB,
	D_SH,
	D_SW,
	D_SD,
	D_ADDI,
	D_SLTI,
	D_SLTIU,
	D_XORI,
	D_ORI,
	D_ANDI,
	D_SLLI,
	D_SRLI,
	D_SRAI,
	D_ADDIW,
	D_SLLIW,
	D_SRLIW,
	D_SRAIW,
	D_ADD,
	D_SUB,
	D_SLL,
	D_SLT,
	D_SLTU,
	D_XOR,
	D_SRL,
	D_SRA,
	D_OR,
	D_AND,
	D_ADDW,
	D_SUBW,
	D_SLLW,
	D_SRLW,
	D_SRAW,
	D_MUL,
	D_MULH, /* D_MUL + funct3 through D_REMU: OP with funct7 1 */
	D_MULHSU,
	D_MULHU,
	D_DIV,
	D_DIVU,
	D_REM,
	D_REMU,
	D_MULW,
	D_DIVW, /* D_DIVW + funct3 - 4 through D_REMUW: OP-32 with funct7 1 */
	D_DIVUW,
	D_REMW,
	D_REMUW,
};

/* A decoded instruction, 8 bytes so that a page of kernel code decodes
 * into 16 KiB of host cache, not 32. op is the enum dop, with DINSN_C set
 * for a 16-bit instruction; 0 means "not decoded yet". D_GENERIC keeps
 * the instruction as fetched (16 or 32 bits) in imm. */
struct dinsn {
	uint8_t op, rd, rs1, rs2;
	int32_t imm;
};

#define DINSN_C 0x80
_Static_assert(sizeof(struct dinsn) == 8, "a decoded instruction is 8 bytes");

static inline unsigned dinsn_op(const struct dinsn *d)
{
	return d->op & ~DINSN_C;
}

static inline unsigned dinsn_len(const struct dinsn *d)
{
	return d->op & DINSN_C ? 2 : 4;
}

#define DPAGE_SLOTS 2048

struct dpage {
	struct dinsn slot[DPAGE_SLOTS];
};

#define DCACHE_PAGES 4096 /* direct-mapped: 1024 thrashed on kernel code (-24% speed) */

/* gen[i] changes whenever page[i]'s decoded contents may have (a store, a
 * new page, a drop); epoch counts every such change. The translation cache
 * (jit.h) keys its blocks on them. */
struct dcache {
	struct dpage *page[DCACHE_PAGES];
	/* The RAM page page[i] decodes, NULL if none: apart from the pages,
	 * so that a lookup reads one hot array, not a cold line of a page. */
	const uint8_t *host[DCACHE_PAGES];
	uint64_t gen[DCACHE_PAGES];
	uint64_t epoch;
};

/* Allocate / free the cache of a hart. 0 or -ENOMEM. */
int dcache_init(struct cpu *c);
void dcache_free(struct cpu *c);

/* The decoded page of host page `host`, or NULL. */
struct dpage *dcache_find(struct cpu *c, const uint8_t *host);
/* The same, creating it (and write-protecting the page) if needed; NULL
 * only when out of memory. */
struct dpage *dcache_get(struct cpu *c, const uint8_t *host);
/* A store of `size` bytes at offset `off` of host page `host`. */
void dcache_store(struct cpu *c, const uint8_t *host, unsigned off, unsigned size);
static inline unsigned dcache_index(const uint8_t *host)
{
	return (unsigned)(((uintptr_t)host >> 12) % DCACHE_PAGES);
}

/* The generation of the decoded page of host page `host` (see above). */
static inline uint64_t dcache_gen(const struct dcache *dc, const uint8_t *host)
{
	return dc->gen[dcache_index(host)];
}
/* Decode the instruction at `code` (at page offset `off`) into d; one that
 * straddles the page end becomes D_SLOW. */
void dcache_decode(struct dinsn *d, const uint8_t *code, unsigned off);
/* Decode a fetched instruction (16 bits in the low half, or 32 bits). */
void dcache_decode_insn(struct dinsn *d, uint32_t insn);

#endif
