/* Extra scaffolding for the per-extension ISA tests (u_*.S): checked
 * sub-test numbers, a recording trap handler and floating-point helpers.
 * Builds on test.h (TESTNUM = gp, fail_common, pass_common, tohost).
 *
 * Registers used by these macros: t0, t2, a0, a1, a2, a3 (scratch), f1..f4
 * (FP operands/results); the recording trap handler writes s10 (mcause),
 * s11 (mepc), s9 (mtval) and clobbers t5, t6. */
#ifndef THEMIS_ISA_U_TEST_H
#define THEMIS_ISA_U_TEST_H

#include "test.h"

/* Start sub-test n. n must be a literal in 1..255: QEMU's exit status is
 * (tohost >> 1) & 0xff, so sub-test 256 would fail as "0" = pass. Each
 * number may be used only once per file (.equiv rejects a second use). */
#define U_NUM(n)                                                               \
	.equiv u_subtest_##n, 1;                                               \
	.if ((n) < 1) || ((n) > 255);                                          \
	.error "sub-test number must be in 1..255";                            \
	.endif;                                                                \
	li TESTNUM, n;

/* Check reg == expect inside the running sub-test (no new number). */
#define U_CHECKR(reg, expect)                                                  \
	li t2, expect;                                                         \
	bne reg, t2, fail_common;

/* New sub-test n that checks reg == expect. */
#define U_CHECK(n, reg, expect)                                                \
	U_NUM(n)                                                               \
	U_CHECKR(reg, expect)

/* rd = inst(a, b) / inst(a, imm) must equal expect. */
#define U_RR(n, inst, expect, va, vb)                                          \
	U_NUM(n)                                                               \
	li a1, va;                                                             \
	li a2, vb;                                                             \
	inst a0, a1, a2;                                                       \
	U_CHECKR(a0, expect)

#define U_RI(n, inst, expect, va, imm)                                         \
	U_NUM(n)                                                               \
	li a1, va;                                                             \
	inst a0, a1, imm;                                                      \
	U_CHECKR(a0, expect)

/* ---- traps ------------------------------------------------------------- */

/* The recording handler: stores mcause in s10, mepc in s11, mtval in s9,
 * and resumes after the trapping instruction (2 or 4 bytes, judged from
 * the low bits of the instruction at mepc). Place it once per file, outside
 * the straight-line code (e.g. right before RVTEST_END, after PASS). */
#define U_TRAP_HANDLER                                                         \
	.balign 4;                                                             \
	u_trap:                                                                \
	csrr s10, mcause;                                                      \
	csrr s11, mepc;                                                        \
	csrr s9, mtval;                                                        \
	lhu t6, 0(s11);                                                        \
	andi t6, t6, 3;                                                        \
	addi t6, t6, -3;                                                       \
	addi t5, s11, 2;                                                       \
	bnez t6, 1f;                                                           \
	addi t5, t5, 2;                                                        \
	1: csrw mepc, t5;                                                      \
	mret;

/* Route traps to the recording handler / back to trap_unexpected. */
#define U_TRAP_ARM                                                             \
	la t0, u_trap;                                                         \
	csrw mtvec, t0;

#define U_TRAP_DISARM                                                          \
	la t0, trap_unexpected;                                                \
	csrw mtvec, t0;

/* Begin sub-test n that expects a trap: clears the records. */
#define U_TRAP_BEGIN(n)                                                        \
	U_NUM(n)                                                               \
	li s10, -1;                                                            \
	li s11, -1;

/* The instruction at label lab must have trapped with cause c. */
#define U_TRAP_CHECK(c, lab)                                                   \
	U_CHECKR(s10, c)                                                       \
	la t2, lab;                                                            \
	bne s11, t2, fail_common;

/* No trap was recorded since U_TRAP_BEGIN. */
#define U_NO_TRAP                                                              \
	U_CHECKR(s10, -1)

/* ---- floating point ----------------------------------------------------- */

#define U_NX 0x01
#define U_UF 0x02
#define U_OF 0x04
#define U_DZ 0x08
#define U_NV 0x10

/* A 32-bit pattern NaN-boxed in a 64-bit f register. */
#define U_BOX(x) (0xffffffff00000000 | (x))

/* Enable the FPU (mstatus.FS = Dirty). */
#define U_FP_ENABLE                                                            \
	li t0, 0x6000;                                                         \
	csrs mstatus, t0;

/* f register freg must hold (NaN-boxed) single bits res; fflags == flags. */
#define U_FCHK_S(freg, res, flags)                                             \
	frflags a1;                                                            \
	fmv.x.d a0, freg;                                                      \
	U_CHECKR(a0, U_BOX(res))                                               \
	U_CHECKR(a1, flags)

#define U_FCHK_D(freg, res, flags)                                             \
	frflags a1;                                                            \
	fmv.x.d a0, freg;                                                      \
	U_CHECKR(a0, res)                                                      \
	U_CHECKR(a1, flags)

/* Integer result a0 == res and fflags == flags. */
#define U_XCHK(res, flags)                                                     \
	frflags a1;                                                            \
	U_CHECKR(a0, res)                                                      \
	U_CHECKR(a1, flags)

#define U_LDS(freg, bits)                                                      \
	li t0, bits;                                                           \
	fmv.w.x freg, t0;

#define U_LDD(freg, bits)                                                      \
	li t0, bits;                                                           \
	fmv.d.x freg, t0;

/* Single precision: f3 = inst(f1 [, f2 [, f4]]) with rounding mode rm. */
#define U_FOP1_S(n, inst, rm, res, flags, a)                                   \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, rm;                                                       \
	U_FCHK_S(f3, res, flags)

#define U_FOP2_S(n, inst, rm, res, flags, a, b)                                \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	U_LDS(f2, b)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, f2, rm;                                                   \
	U_FCHK_S(f3, res, flags)

/* Two operands, no rounding mode (fmin, fmax, fsgnj*). */
#define U_FOP2N_S(n, inst, res, flags, a, b)                                   \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	U_LDS(f2, b)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, f2;                                                       \
	U_FCHK_S(f3, res, flags)

#define U_FOP3_S(n, inst, rm, res, flags, a, b, c)                             \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	U_LDS(f2, b)                                                           \
	U_LDS(f4, c)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, f2, f4, rm;                                               \
	U_FCHK_S(f3, res, flags)

/* Comparisons: a0 = inst(f1, f2). */
#define U_FCMP_S(n, inst, res, flags, a, b)                                    \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	U_LDS(f2, b)                                                           \
	fsflags x0;                                                            \
	inst a0, f1, f2;                                                       \
	U_XCHK(res, flags)

#define U_FCLASS_S(n, res, a)                                                  \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	fsflags x0;                                                            \
	fclass.s a0, f1;                                                       \
	U_XCHK(res, 0)

/* FP -> integer: a0 = inst(f1, rm). */
#define U_FCVT_XS(n, inst, rm, res, flags, a)                                  \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	fsflags x0;                                                            \
	inst a0, f1, rm;                                                       \
	U_XCHK(res, flags)

/* integer -> single: f3 = inst(x, rm). */
#define U_FCVT_SX(n, inst, rm, res, flags, x)                                  \
	U_NUM(n)                                                               \
	li a2, x;                                                              \
	fsflags x0;                                                            \
	inst f3, a2, rm;                                                       \
	U_FCHK_S(f3, res, flags)

/* Double precision versions. */
#define U_FOP1_D(n, inst, rm, res, flags, a)                                   \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, rm;                                                       \
	U_FCHK_D(f3, res, flags)

#define U_FOP2_D(n, inst, rm, res, flags, a, b)                                \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	U_LDD(f2, b)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, f2, rm;                                                   \
	U_FCHK_D(f3, res, flags)

#define U_FOP2N_D(n, inst, res, flags, a, b)                                   \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	U_LDD(f2, b)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, f2;                                                       \
	U_FCHK_D(f3, res, flags)

#define U_FOP3_D(n, inst, rm, res, flags, a, b, c)                             \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	U_LDD(f2, b)                                                           \
	U_LDD(f4, c)                                                           \
	fsflags x0;                                                            \
	inst f3, f1, f2, f4, rm;                                               \
	U_FCHK_D(f3, res, flags)

#define U_FCMP_D(n, inst, res, flags, a, b)                                    \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	U_LDD(f2, b)                                                           \
	fsflags x0;                                                            \
	inst a0, f1, f2;                                                       \
	U_XCHK(res, flags)

#define U_FCLASS_D(n, res, a)                                                  \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	fsflags x0;                                                            \
	fclass.d a0, f1;                                                       \
	U_XCHK(res, 0)

#define U_FCVT_XD(n, inst, rm, res, flags, a)                                  \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	fsflags x0;                                                            \
	inst a0, f1, rm;                                                       \
	U_XCHK(res, flags)

#define U_FCVT_DX(n, inst, rm, res, flags, x)                                  \
	U_NUM(n)                                                               \
	li a2, x;                                                              \
	fsflags x0;                                                            \
	inst f3, a2, rm;                                                       \
	U_FCHK_D(f3, res, flags)

/* ---- loads, stores, branches ------------------------------------------- */

/* a0 = inst off(lab) must equal expect. */
#define U_LD(n, inst, expect, lab, off)                                        \
	U_NUM(n)                                                               \
	la a1, lab;                                                            \
	inst a0, off(a1);                                                      \
	U_CHECKR(a0, expect)

/* Fill the 24 bytes at buf with 0xaa, store val with inst at buf+8+off,
 * then the three dwords of buf must be e0, e1, e2. */
#define U_ST(n, inst, buf, val, off, e0, e1, e2)                               \
	U_NUM(n)                                                               \
	la a1, buf;                                                            \
	li t0, 0xaaaaaaaaaaaaaaaa;                                             \
	sd t0, 0(a1);                                                          \
	sd t0, 8(a1);                                                          \
	sd t0, 16(a1);                                                         \
	addi a3, a1, 8;                                                        \
	li a2, val;                                                            \
	inst a2, off(a3);                                                      \
	ld a0, 0(a1);                                                          \
	U_CHECKR(a0, e0)                                                       \
	ld a0, 8(a1);                                                          \
	U_CHECKR(a0, e1)                                                       \
	ld a0, 16(a1);                                                         \
	U_CHECKR(a0, e2)

/* Branch inst on (a, b) must be taken / not taken. */
#define U_BR_T(n, inst, va, vb)                                                \
	U_NUM(n)                                                               \
	li a1, va;                                                             \
	li a2, vb;                                                             \
	inst a1, a2, 1f;                                                       \
	j fail_common;                                                         \
	1:

#define U_BR_N(n, inst, va, vb)                                                \
	U_NUM(n)                                                               \
	li a1, va;                                                             \
	li a2, vb;                                                             \
	inst a1, a2, 1f;                                                       \
	j 2f;                                                                  \
	1: j fail_common;                                                      \
	2:

/* integer -> double without a rounding-mode operand (fcvt.d.w/wu, exact). */
#define U_FCVT_DXN(n, inst, res, flags, x)                                     \
	U_NUM(n)                                                               \
	li a2, x;                                                              \
	fsflags x0;                                                            \
	inst f3, a2;                                                           \
	U_FCHK_D(f3, res, flags)

#endif
