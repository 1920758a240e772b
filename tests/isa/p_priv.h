/* Helpers shared by the privileged-architecture tests (tests/isa/p_*.S):
 * CSR field constants, mode switching, trap recorders and field checks.
 *
 * Register conventions used by every p_*.S program:
 *   gp (TESTNUM)   number of the running sub-test (test.h)
 *   s1             where the M-mode trap recorder resumes (in M-mode)
 *   s2..s5         mcause, mepc, mtval, mstatus captured by m_trap
 *   s7..s10        scause, sepc, stval, sstatus captured by s_trap
 *   s6             slot number written by the vectored-table entries
 * ARM() presets s2..s5 and s7..s10 to -1 so "no trap happened" is visible.
 * The recorders clobber nothing else, so tests may keep values in a*, t3-t6
 * and s11 across a trap.
 *
 * Constants are written without spaces so they can be passed through the
 * preprocessor into assembler operands safely. */
#ifndef THEMIS_ISA_P_PRIV_H
#define THEMIS_ISA_P_PRIV_H

#include "test.h"

/* mstatus / sstatus fields */
#define MSTATUS_SIE 0x2
#define MSTATUS_MIE 0x8
#define MSTATUS_SPIE 0x20
#define MSTATUS_MPIE 0x80
#define MSTATUS_SPP 0x100
#define MSTATUS_MPP 0x1800
#define MSTATUS_MPP_S 0x800
#define MSTATUS_MPP_M 0x1800
#define MSTATUS_MPRV 0x20000
#define MSTATUS_SUM 0x40000
#define MSTATUS_MXR 0x80000
#define MSTATUS_TVM 0x100000
#define MSTATUS_TW 0x200000
#define MSTATUS_TSR 0x400000
/* The trap-stack fields checked after every trap and xRET. */
#define XFIELDS 0x19aa

/* Exception causes */
#define CAUSE_FETCH_ACCESS 1
#define CAUSE_ILLEGAL 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_LOAD_MISALIGNED 4
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_STORE_MISALIGNED 6
#define CAUSE_STORE_ACCESS 7
#define CAUSE_ECALL_U 8
#define CAUSE_ECALL_S 9
#define CAUSE_ECALL_M 11
#define CAUSE_FETCH_PAGE 12
#define CAUSE_LOAD_PAGE 13
#define CAUSE_STORE_PAGE 15

/* Interrupt causes (mcause/scause values) and mip/mie bits */
#define INT_SSI 0x8000000000000001
#define INT_MSI 0x8000000000000003
#define INT_STI 0x8000000000000005
#define INT_MTI 0x8000000000000007
#define INT_SEI 0x8000000000000009
#define MIP_SSIP 0x2
#define MIP_MSIP 0x8
#define MIP_STIP 0x20
#define MIP_MTIP 0x80
#define MIP_SEIP 0x200
#define MIP_MEIP 0x800
/* The standard S-level interrupt bits (SSI, STI, SEI). */
#define S_INTS 0x222

/* CLINT (QEMU spike/virt and the Themis board) */
#define CLINT_MSIP 0x2000000
#define CLINT_MTIMECMP 0x2004000
#define CLINT_MTIME 0x200bff8

/* satp */
#define SATP_SV39 0x8000000000000000

/* Sv39 PTE bits */
#define PTE_V 0x1
#define PTE_R 0x2
#define PTE_W 0x4
#define PTE_X 0x8
#define PTE_U 0x10
#define PTE_G 0x20
#define PTE_A 0x40
#define PTE_D 0x80

/* Physical addresses that are unmapped both on QEMU -M spike and on the
 * Themis board (docs/bare-machine.md): far above RAM, and below RAM. */
#define UNMAPPED_HIGH 0x1000000000
#define UNMAPPED_LOW 0x70000000

/* Open PMP so that S and U can reach all memory (QEMU needs it). */
#define PMP_OPEN                                                               \
	li t0, -1;                                                             \
	csrw pmpaddr0, t0;                                                     \
	li t0, 0x1f;                                                           \
	csrw pmpcfg0, t0;

/* Put the mode number (0 U, 1 S, 3 M) into mstatus.MPP. Clobbers t0. */
#define SET_MPP(mode)                                                          \
	li t0, MSTATUS_MPP;                                                    \
	csrc mstatus, t0;                                                      \
	li t0, ((mode) << 11);                                                 \
	csrs mstatus, t0;

/* mret into mode at label. Clobbers t0. */
#define ENTER(mode, label)                                                     \
	SET_MPP(mode)                                                          \
	la t0, label;                                                          \
	csrw mepc, t0;                                                         \
	mret;

/* Start sub-test n, expecting (or not) a trap that m_trap resumes from at
 * label resume. */
#define ARM(n, resume)                                                         \
	li TESTNUM, n;                                                         \
	la s1, resume;                                                         \
	li s2, -1;                                                             \
	li s3, -1;                                                             \
	li s4, -1;                                                             \
	li s5, -1;                                                             \
	li s7, -1;                                                             \
	li s8, -1;                                                             \
	li s9, -1;                                                             \
	li s10, -1;

/* reg == reg2 */
#define CHECKR(n, reg, reg2)                                                   \
	li TESTNUM, n;                                                         \
	bne reg, reg2, fail_common;

/* reg == address of label + off */
#define CHECKA(n, reg, label, off)                                             \
	li TESTNUM, n;                                                         \
	la t2, label;                                                          \
	addi t2, t2, off;                                                      \
	bne reg, t2, fail_common;

/* (reg & mask) == value */
#define CHECKM(n, reg, mask, value)                                            \
	li TESTNUM, n;                                                         \
	li t1, mask;                                                           \
	and t1, reg, t1;                                                       \
	li t2, value;                                                          \
	bne t1, t2, fail_common;

/* reg == the 32-bit instruction stored at label (zero-extended) */
#define CHECK_INSN32(n, reg, label)                                            \
	li TESTNUM, n;                                                         \
	la t2, label;                                                          \
	lwu t2, 0(t2);                                                         \
	bne reg, t2, fail_common;

/* reg == the 16-bit instruction stored at label (zero-extended) */
#define CHECK_INSN16(n, reg, label)                                            \
	li TESTNUM, n;                                                         \
	la t2, label;                                                          \
	lhu t2, 0(t2);                                                         \
	bne reg, t2, fail_common;

/* The trap recorders. m_trap runs in M-mode, captures the trap CSRs and
 * continues in M-mode at s1. s_trap runs in S-mode, captures the S trap
 * CSRs and leaves through ecall (cause 9 when not delegated), so m_trap
 * resumes at s1 afterwards. Place PRIV_HANDLERS after the test body. */
#define PRIV_HANDLERS                                                          \
	.align 2;                                                              \
	m_trap:                                                                \
	csrr s2, mcause;                                                       \
	csrr s3, mepc;                                                         \
	csrr s4, mtval;                                                        \
	csrr s5, mstatus;                                                      \
	jr s1;                                                                 \
	.align 2;                                                              \
	s_trap:                                                                \
	csrr s7, scause;                                                       \
	csrr s8, sepc;                                                         \
	csrr s9, stval;                                                        \
	csrr s10, sstatus;                                                     \
	ecall;                                                                 \
	j fail_common;

/* Common start: trap vector, PMP open, nothing delegated or enabled,
 * bare translation, clean mstatus trap fields. */
#define PRIV_BEGIN                                                             \
	RVTEST_BEGIN                                                           \
	la t0, m_trap;                                                         \
	csrw mtvec, t0;                                                        \
	la t0, s_trap;                                                         \
	csrw stvec, t0;                                                        \
	PMP_OPEN                                                               \
	csrw medeleg, zero;                                                    \
	csrw mideleg, zero;                                                    \
	csrw mie, zero;                                                        \
	csrw satp, zero;                                                       \
	li t0, 0x7e19aa;                                                       \
	csrc mstatus, t0;

#endif
