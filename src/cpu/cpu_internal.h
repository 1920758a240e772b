/* cpu_internal.h - what the files of the hart share and nobody else sees:
 * the inline fast paths of the soft TLB, and the entry points of mmu.c,
 * csr.c, fpu.c and rvc.c that cpu.c's executor calls. */
#ifndef THEMIS_CPU_INTERNAL_H
#define THEMIS_CPU_INTERNAL_H

#include <string.h>

#include "cpu.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the soft TLB hands out host pointers into little-endian guest RAM"
#endif

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

enum { ACC_R = 0, ACC_W = 1, ACC_X = 2 };

/* mstatus fields */
#define MSTATUS_SIE  (1ULL << 1)
#define MSTATUS_MIE  (1ULL << 3)
#define MSTATUS_SPIE (1ULL << 5)
#define MSTATUS_MPIE (1ULL << 7)
#define MSTATUS_SPP  (1ULL << 8)
#define MSTATUS_MPP  (3ULL << 11)
#define MSTATUS_FS   (3ULL << 13)
#define MSTATUS_MPRV (1ULL << 17)
#define MSTATUS_SUM  (1ULL << 18)
#define MSTATUS_MXR  (1ULL << 19)
#define MSTATUS_TVM  (1ULL << 20)
#define MSTATUS_TW   (1ULL << 21)
#define MSTATUS_TSR  (1ULL << 22)
#define MSTATUS_SD   (1ULL << 63)

/* ---- mmu.c: translation, TLB fills, and the slow paths ---- */

/* Point tlb_r/tlb_w/tlb_x at the sets of the current translation regime
 * (after a change of privilege, MPRV, MPP or SUM). */
void mmu_select(struct cpu *c);
/* Drop the fetch entries of every regime (decoded pages moved). */
void mmu_flush_fetch(struct cpu *c);
/* Drop the write entries of every regime that map host page `host`. */
void mmu_unmap_writable(struct cpu *c, const uint8_t *host);
/* Translate `va` for an access of kind `acc`; on failure raise the page or
 * access fault and return false. */
bool mmu_translate(struct cpu *c, uint64_t va, int acc, uint64_t *pa);
bool mmu_load_slow(struct cpu *c, uint64_t va, int size, uint64_t *val);
bool mmu_store_slow(struct cpu *c, uint64_t va, int size, uint64_t val);
/* Fill the fetch TLB for pc's page: 1 when it now maps it; 0 when the page
 * is not cached (not plain RAM: fetch it the slow way); -1 when the
 * translation faulted (raised, as a fetch of pc would). */
int mmu_fill_fetch(struct cpu *c, uint64_t pc);
/* Fetch the instruction at pc (16 or 32 bits, low half first). */
bool mmu_fetch_slow(struct cpu *c, uint64_t pc, uint32_t *insn);
/* Host pointer for a read-modify-write of `size` bytes at `va` (AMO, SC):
 * translated for writing; NULL (fault raised) when not plain RAM. */
uint8_t *mmu_rmw_ptr(struct cpu *c, uint64_t va, int size);

static inline uint64_t tlb_vpn(uint64_t va)
{
	return va >> 12;
}

static inline bool tlb_fits(uint64_t va, int size)
{
	return (va & 0xfff) <= (uint64_t)(4096 - size);
}

/* Host memory access of a power-of-two size, with constant-size copies the
 * compiler turns into single moves. */
static inline uint64_t host_read(const void *p, int size)
{
	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
}

static inline void host_write(void *p, int size, uint64_t val)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)val; break;
	case 2: {
		uint16_t v = (uint16_t)val;
		memcpy(p, &v, 2);
		break;
	}
	case 4: {
		uint32_t v = (uint32_t)val;
		memcpy(p, &v, 4);
		break;
	}
	default: memcpy(p, &val, 8); break;
	}
}

/* Read `size` bytes (1, 2, 4, 8) zero-extended. */
static inline bool cpu_load(struct cpu *c, uint64_t va, int size, uint64_t *val)
{
	const struct cpu_tlb_entry *e = &c->tlb_r[tlb_vpn(va) % CPU_TLB_SIZE];
	if (likely(e->tag == tlb_vpn(va) && tlb_fits(va, size))) {
		*val = host_read((const void *)(e->addend + va), size);
		return true;
	}
	return mmu_load_slow(c, va, size, val);
}

static inline bool cpu_store(struct cpu *c, uint64_t va, int size, uint64_t val)
{
	const struct cpu_tlb_entry *e = &c->tlb_w[tlb_vpn(va) % CPU_TLB_SIZE];
	if (likely(e->tag == tlb_vpn(va) && tlb_fits(va, size))) {
		host_write((void *)(e->addend + va), size, val);
		return true;
	}
	return mmu_store_slow(c, va, size, val);
}

/* The read-modify-write AMOs by funct5 (not LR 0x02 / SC 0x03): swap, add,
 * xor, or, and, min, max, minu, maxu. */
static inline bool amo_rmw_known(unsigned funct5)
{
	return funct5 == 0x01 || (funct5 % 4 == 0 && funct5 <= 0x1c);
}

/* ---- cpu.c ---- */

/* Execute an instruction the decoder left D_GENERIC (insn expanded to 32
 * bits, len its length, raw_insn as fetched): sets pc past it, or traps. */
void cpu_exec_other(struct cpu *c, uint32_t insn, int len);
/* Take a synchronous exception at the current pc. */
void cpu_exception(struct cpu *c, uint64_t cause, uint64_t tval);
/* Any write that can unmask an interrupt ends the run so it is seen. */
void cpu_recheck_irq(struct cpu *c);
/* Whether the hart would take an interrupt before its next instruction. */
bool cpu_irq_takeable(const struct cpu *c);

/* ---- csr.c ---- */

/* Execute a Zicsr instruction; false if it trapped. */
bool csr_exec(struct cpu *c, uint32_t insn);
/* A Zicsr instruction (insn; src: x[rs1] or the immediate) from S-mode on
 * sstatus, sscratch, sepc, scause or stval, as csr_exec runs it, when it
 * neither traps, flushes (an MXR change) nor makes an interrupt takeable:
 * the CSR as it was in *old (for rd) and true. Otherwise false with the
 * hart untouched, for csr_exec to run it. Compiled blocks take this path
 * for the CSRs of every lock, user access and trap, without ending the
 * block; it never reads the counters (a block charges its budget up
 * front, so they are right only at a site: see jit_generic). */
bool csr_fast(struct cpu *c, uint32_t insn, uint64_t src, uint64_t *old);
/* Privilege-changing instructions (mret, sret, wfi, sfence.vma) and ecall/ebreak. */
bool csr_system(struct cpu *c, uint32_t insn);
bool csr_fs_enabled(const struct cpu *c);
void csr_reset(struct cpu *c);
void csr_fs_dirty(struct cpu *c);

/* ---- fpu.c ---- */

/* Execute an F/D instruction (loads, stores, arithmetic); false if it trapped. */
bool fpu_exec(struct cpu *c, uint32_t insn);

/* ---- rvc.c ---- */

/* Expand a 16-bit instruction to its 32-bit equivalent; 0 if illegal. */
uint32_t rvc_expand(uint16_t ci);
/* The same through a table of all 65536 expansions, built on first use (a
 * memo of a pure function: no machine state lives there). */
uint32_t rvc_lookup(uint16_t ci);

/* ---- cpu.c: decoding a slot ---- */

/* Decode slot d for the instruction at guest pc (its bytes at code): a
 * host function's entry (cpu.host_fn) decodes as D_HOST, whatever it
 * holds. Every lazy decode goes through here. */
struct dinsn;
void cpu_decode_slot(struct cpu *c, struct dinsn *d, const uint8_t *code, uint64_t pc);

/* Run the host function `which` at its entry, c->pc (a D_HOST slot): the
 * bus computes it and the hart returns as from the guest's function; if
 * the bus declines, the instruction the slot stands for runs instead.
 * True when the host computed it. */
bool cpu_host_call(struct cpu *c, int which);

#endif
