/* u_rv64f.S: the RV64F single-precision instructions (32-bit encodings).
 * - mstatus.FS = Off makes FP instructions and fflags/fcsr accesses raise
 *   illegal instruction (cause 2); then FS is turned on.
 * - fmv.x.w / fmv.w.x (sign extension, NaN-boxing), flw / fsw (incl.
 *   negative offsets and misaligned addresses).
 * - NaN-boxing: an operand whose upper 32 bits are not all ones is the
 *   canonical NaN for every operation except the transfers fmv.x.w / fsw.
 * - fadd, fsub, fmul, fdiv, fsqrt, fmadd, fmsub, fnmsub, fnmadd: exact and
 *   inexact results, signed zeros, infinities, overflow, underflow
 *   (tininess detected after rounding), NaN inputs giving the canonical
 *   NaN 0x7fc00000, invalid operations, fused single rounding.
 * - fmin / fmax (-0 < +0, NaN operands), fsgnj / fsgnjn / fsgnjx, feq /
 *   flt / fle (quiet vs signalling), fclass of all ten classes.
 * - fcvt.{w,wu,l,lu}.s and fcvt.s.{w,wu,l,lu}: rounding, saturation of
 *   out-of-range / infinite / NaN inputs, sign extension of 32-bit results,
 *   the low 32 bits of the source used by the W forms.
 * - every result is checked for the exact bits (NaN-boxed in the f
 *   register) and for the exact fflags; fflags accumulate (NX, UF, OF, DZ,
 *   NV, read through fflags and fcsr), frm, the static rounding modes rne,
 *   rtz, rdn, rup, rmm on operations whose results differ, dynamic rounding
 *   through frm, reserved rounding modes (static 5/6, frm 5/6/7 with dyn)
 *   raising illegal instruction.
 *
 * Implementation-defined behaviour pinned to QEMU 7.2:
 * - misaligned flw/fsw are performed, not trapped.
 * - fmin/fmax follow the 2.2+ spec (IEEE 754-2019 minimumNumber: a
 *   signalling NaN operand still returns the other operand, with NV).
 * - an illegal instruction's mtval is not checked. */
#include "u_test.h"
	.option norvc

/* Check frm-dependent results of the dynamic-rounding sub-test: 1 + half
 * ulp, -1 - half ulp, fcvt.w.s(-2.5), all with rm = dyn. */
#define U_DYN_S(n, mode, r1, r2, r3)                                           \
	U_NUM(n)                                                               \
	li t0, mode;                                                           \
	fsrm t0;                                                               \
	U_LDS(f1, 0x3f800000)                                                  \
	U_LDS(f2, 0x33800000)                                                  \
	fadd.s f3, f1, f2, dyn;                                                \
	fmv.x.d a0, f3;                                                        \
	U_CHECKR(a0, U_BOX(r1))                                                \
	fneg.s f1, f1;                                                         \
	fneg.s f2, f2;                                                         \
	fadd.s f3, f1, f2, dyn;                                                \
	fmv.x.d a0, f3;                                                        \
	U_CHECKR(a0, U_BOX(r2))                                                \
	U_LDS(f1, 0xc0200000)                                                  \
	fcvt.w.s a0, f1, dyn;                                                  \
	U_CHECKR(a0, r3)                                                       \
	frrm a0;                                                               \
	U_CHECKR(a0, mode)

RVTEST_BEGIN

	/* ---- FS = Off: FP instructions and FP CSRs are illegal ---- */
	U_TRAP_ARM
	li t0, 0x6000
	csrc mstatus, t0
	U_TRAP_BEGIN(1)
1:	fadd.s f1, f2, f3
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(2)
	la a1, u_fdat
1:	flw f1, 0(a1)
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(3)
	li a0, 0x55
1:	fmv.x.w a0, f1
	U_TRAP_CHECK(2, 1b)
	U_CHECKR(a0, 0x55)
	U_TRAP_BEGIN(4)
1:	csrr a0, fflags
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(5)
1:	csrw fcsr, x0
	U_TRAP_CHECK(2, 1b)
	U_TRAP_DISARM
	U_FP_ENABLE
	U_NUM(6)
	csrr a0, mstatus
	li t0, 0x6000
	and a0, a0, t0
	U_CHECKR(a0, 0x6000)
	csrw fcsr, x0

	/* ---- fmv.x.w / fmv.w.x ---- */
	U_NUM(7)
	li a0, 0xbf800000
	fmv.w.x f1, a0
	fmv.x.w a1, f1
	U_CHECKR(a1, 0xffffffffbf800000)
	fmv.x.d a1, f1
	U_CHECKR(a1, 0xffffffffbf800000)
	U_NUM(8)
	/* fmv.w.x uses the low 32 bits and NaN-boxes them */
	li a0, 0x123456783f800000
	fmv.w.x f1, a0
	fmv.x.d a1, f1
	U_CHECKR(a1, 0xffffffff3f800000)
	fmv.x.w a1, f1
	U_CHECKR(a1, 0x3f800000)
	U_NUM(9)
	/* fmv.x.w of an fadd.s result sign-extends */
	U_LDS(f1, 0xbf800000)
	fadd.s f2, f1, f1
	fmv.x.w a0, f2
	U_CHECKR(a0, 0xffffffffc0000000)
	fmv.w.x f5, x0
	fmv.x.d a0, f5
	U_CHECKR(a0, 0xffffffff00000000)

	/* ---- flw / fsw ---- */
	U_NUM(10)
	la a1, u_fdat
	flw f1, 0(a1)
	fmv.x.d a0, f1
	U_CHECKR(a0, 0xffffffffbf800000)
	flw f2, 4(a1)
	fmv.x.d a0, f2
	U_CHECKR(a0, 0xffffffff40490fdb)
	U_NUM(11)
	la a1, u_fbuf
	li t0, 0xaaaaaaaaaaaaaaaa
	sd t0, 0(a1)
	sd t0, 8(a1)
	fsw f1, 4(a1)
	ld a0, 0(a1)
	U_CHECKR(a0, 0xbf800000aaaaaaaa)
	ld a0, 8(a1)
	U_CHECKR(a0, 0xaaaaaaaaaaaaaaaa)
	U_NUM(12)
	/* negative offsets */
	addi a2, a1, 16
	fsw f2, -8(a2)
	ld a0, 8(a1)
	U_CHECKR(a0, 0xaaaaaaaa40490fdb)
	flw f3, -12(a2)
	fmv.x.d a0, f3
	U_CHECKR(a0, 0xffffffffbf800000)
	U_NUM(13)
	/* misaligned flw: bytes 00 80 bf db */
	la a1, u_fdat
	flw f3, 1(a1)
	fmv.x.d a0, f3
	U_CHECKR(a0, 0xffffffffdbbf8000)
	U_NUM(14)
	/* misaligned fsw across a dword */
	la a1, u_fbuf
	li t0, 0xaaaaaaaaaaaaaaaa
	sd t0, 0(a1)
	sd t0, 8(a1)
	fsw f2, 6(a1)
	ld a0, 0(a1)
	U_CHECKR(a0, 0x0fdbaaaaaaaaaaaa)
	ld a0, 8(a1)
	U_CHECKR(a0, 0xaaaaaaaaaaaa4049)

	/* ---- NaN-boxing: improperly boxed operands are the canonical NaN */
	U_NUM(15)
	U_LDD(f1, 0x000000003f800000)	/* 1.0f, not boxed */
	fsflags x0
	fadd.s f3, f1, f1
	U_FCHK_S(f3, 0x7fc00000, 0)
	U_NUM(16)
	U_LDD(f1, 0xfffffffe3f800000)	/* one upper bit clear */
	fmul.s f3, f1, f1
	U_FCHK_S(f3, 0x7fc00000, 0)
	U_NUM(17)
	/* sign injection from a boxed value into the canonical NaN */
	U_LDD(f1, 0x000000003f800000)
	U_LDS(f2, 0xbf800000)
	fsgnj.s f3, f1, f2
	U_FCHK_S(f3, 0xffc00000, 0)
	U_NUM(18)
	/* sign taken from an unboxed rs2 = the canonical NaN's (positive) */
	U_LDS(f2, 0x40000000)
	fsgnjn.s f3, f2, f1
	U_FCHK_S(f3, 0xc0000000, 0)
	U_NUM(19)
	U_LDS(f2, 0xc0000000)
	fsgnj.s f3, f2, f1
	U_FCHK_S(f3, 0x40000000, 0)
	U_NUM(20)
	fclass.s a0, f1
	U_CHECKR(a0, 0x200)
	U_NUM(21)
	feq.s a0, f1, f1
	U_XCHK(0, 0)
	flt.s a0, f2, f1
	U_XCHK(0, U_NV)
	U_NUM(22)
	fsflags x0
	fcvt.w.s a0, f1
	U_XCHK(0x7fffffff, U_NV)
	U_NUM(23)
	fsflags x0
	U_LDS(f2, 0x40000000)
	fmin.s f3, f1, f2
	U_FCHK_S(f3, 0x40000000, 0)
	U_NUM(24)
	fmadd.s f3, f2, f2, f1
	U_FCHK_S(f3, 0x7fc00000, 0)
	U_NUM(25)
	/* the transfers ignore the boxing: fmv.x.w and fsw use bits 31:0 */
	U_LDD(f1, 0x00000000bf800000)
	fmv.x.w a0, f1
	U_CHECKR(a0, 0xffffffffbf800000)
	la a1, u_fbuf
	sd x0, 0(a1)
	fsw f1, 0(a1)
	ld a0, 0(a1)
	U_CHECKR(a0, 0xbf800000)
	U_NUM(26)
	/* a double loaded with fld is not a boxed single */
	la a1, u_ddat
	fld f1, 0(a1)
	fsflags x0
	fsqrt.s f3, f1
	U_FCHK_S(f3, 0x7fc00000, 0)

	/* ---- fadd / fsub ---- */
	U_FOP2_S(27, fadd.s, rne, 0x40400000, 0, 0x3f800000, 0x40000000) /* 1 + 2 */
	U_FOP2_S(28, fadd.s, rne, 0x00000000, 0, 0x3f800000, 0xbf800000) /* 1 + -1 = +0 */
	U_FOP2_S(29, fadd.s, rdn, 0x80000000, 0, 0x3f800000, 0xbf800000) /* 1 + -1 = -0 when rounding down */
	U_FOP2_S(30, fadd.s, rne, 0x80000000, 0, 0x80000000, 0x80000000) /* -0 + -0 = -0 */
	U_FOP2_S(31, fadd.s, rne, 0x00000000, 0, 0x80000000, 0x00000000) /* -0 + +0 = +0 */
	U_FOP2_S(32, fadd.s, rne, 0x7f800000, 0, 0x7f800000, 0xbf800000) /* inf + -1 */
	U_FOP2_S(33, fadd.s, rne, 0x7fc00000, U_NV, 0x7f800000, 0xff800000) /* inf + -inf: invalid */
	U_FOP2_S(34, fadd.s, rne, 0x3f800000, U_NX, 0x3f800000, 0x33800000) /* 1 + half ulp: tie to even */
	U_FOP2_S(35, fadd.s, rne, 0x3f800001, U_NX, 0x3f800000, 0x33c00000) /* 1 + 3/4 ulp: rounds up */
	U_FOP2_S(36, fadd.s, rne, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x7f7fffff) /* overflow */
	U_FOP2_S(37, fadd.s, rne, 0x00000001, 0, 0x00800000, 0x807fffff) /* min normal - max subnormal = min subnormal */
	U_FOP2_S(38, fadd.s, rne, 0x7fc00000, 0, 0x3f800000, 0x7fc12345) /* NaN payload is not propagated */
	U_FOP2_S(39, fadd.s, rne, 0x7fc00000, U_NV, 0x7f800001, 0x3f800000) /* sNaN in: invalid */
	U_FOP2_S(40, fsub.s, rne, 0x40000000, 0, 0x40400000, 0x3f800000) /* 3 - 1 */
	U_FOP2_S(41, fsub.s, rne, 0x00000000, 0, 0x3f800000, 0x3f800000) /* 1 - 1 = +0 */
	U_FOP2_S(42, fsub.s, rdn, 0x80000000, 0, 0x3f800000, 0x3f800000) /* 1 - 1 = -0 when rounding down */
	U_FOP2_S(43, fsub.s, rne, 0x80000000, 0, 0x80000000, 0x00000000) /* -0 - +0 = -0 */
	U_FOP2_S(44, fsub.s, rne, 0x7fc00000, U_NV, 0x7f800000, 0x7f800000) /* inf - inf: invalid */
	U_FOP2_S(45, fsub.s, rne, 0xff800000, U_OF|U_NX, 0xff7fffff, 0x7f7fffff) /* negative overflow */
	U_FOP2_S(46, fsub.s, rne, 0x7fc00000, U_NV, 0xffc12345, 0x7f800001) /* sNaN in: invalid, canonical NaN out */
	/* ---- fmul ---- */
	U_FOP2_S(47, fmul.s, rne, 0x40c00000, 0, 0x40000000, 0x40400000) /* 2 * 3 */
	U_FOP2_S(48, fmul.s, rne, 0xc0c00000, 0, 0xc0000000, 0x40400000) /* -2 * 3 */
	U_FOP2_S(49, fmul.s, rne, 0x80000000, 0, 0x80000000, 0x40400000) /* -0 * 3 = -0 */
	U_FOP2_S(50, fmul.s, rne, 0x7fc00000, U_NV, 0x00000000, 0x7f800000) /* 0 * inf: invalid */
	U_FOP2_S(51, fmul.s, rne, 0x7f800000, 0, 0xff800000, 0xc0000000) /* -inf * -2 = inf */
	U_FOP2_S(52, fmul.s, rne, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x40000000) /* overflow */
	U_FOP2_S(53, fmul.s, rne, 0x00000000, U_UF|U_NX, 0x0d800000, 0x0d800000) /* underflow to zero */
	U_FOP2_S(54, fmul.s, rne, 0x00080000, 0, 0x1f000000, 0x1f000000) /* exact subnormal result: no flags */
	U_FOP2_S(55, fmul.s, rne, 0x00800000, U_NX, 0x3f800001, 0x007fffff) /* tiny before rounding, not after: NX only (tininess after rounding) */
	U_FOP2_S(56, fmul.s, rne, 0x00800000, U_UF|U_NX, 0x3f7fffff, 0x00800000) /* tiny after rounding and inexact: UF */
	U_FOP2_S(57, fmul.s, rne, 0x3f800000, U_NX, 0x3f800001, 0x3f7ffffe) /* (1+ulp)(1-ulp) = 1-ulp^2 rounds to 1 */
	/* ---- fdiv ---- */
	U_FOP2_S(58, fdiv.s, rne, 0x3eaaaaab, U_NX, 0x3f800000, 0x40400000) /* 1 / 3: inexact */
	U_FOP2_S(59, fdiv.s, rne, 0xbeaaaaab, U_NX, 0xbf800000, 0x40400000) /* -1 / 3 */
	U_FOP2_S(60, fdiv.s, rne, 0x7f800000, U_DZ, 0x3f800000, 0x00000000) /* 1 / 0: divide by zero */
	U_FOP2_S(61, fdiv.s, rne, 0xff800000, U_DZ, 0xbf800000, 0x00000000) /* -1 / +0 = -inf */
	U_FOP2_S(62, fdiv.s, rne, 0xff800000, U_DZ, 0x3f800000, 0x80000000) /* 1 / -0 = -inf */
	U_FOP2_S(63, fdiv.s, rne, 0x7fc00000, U_NV, 0x00000000, 0x00000000) /* 0 / 0: invalid, not DZ */
	U_FOP2_S(64, fdiv.s, rne, 0x7fc00000, U_NV, 0x7f800000, 0xff800000) /* inf / -inf: invalid */
	U_FOP2_S(65, fdiv.s, rne, 0x7f800000, 0, 0x7f800000, 0x00000000) /* inf / 0 = inf, no DZ */
	U_FOP2_S(66, fdiv.s, rne, 0x80000000, 0, 0x3f800000, 0xff800000) /* 1 / -inf = -0 */
	U_FOP2_S(67, fdiv.s, rne, 0x80000000, 0, 0x00000000, 0xc0a00000) /* 0 / -5 = -0 */
	U_FOP2_S(68, fdiv.s, rne, 0x00000000, U_UF|U_NX, 0x00800000, 0x4c000000) /* underflow to zero */
	U_FOP2_S(69, fdiv.s, rne, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x3f000000) /* overflow */
	U_FOP2_S(70, fdiv.s, rne, 0x7fc00000, 0, 0x7fc00000, 0x00000000) /* qNaN / 0: no DZ */
	/* ---- fsqrt ---- */
	U_FOP1_S(71, fsqrt.s, rne, 0x40000000, 0, 0x40800000) /* sqrt 4 */
	U_FOP1_S(72, fsqrt.s, rne, 0x3fb504f3, U_NX, 0x40000000) /* sqrt 2 */
	U_FOP1_S(73, fsqrt.s, rne, 0x80000000, 0, 0x80000000) /* sqrt -0 = -0 */
	U_FOP1_S(74, fsqrt.s, rne, 0x7f800000, 0, 0x7f800000) /* sqrt inf */
	U_FOP1_S(75, fsqrt.s, rne, 0x7fc00000, U_NV, 0xbf800000) /* sqrt -1: invalid */
	U_FOP1_S(76, fsqrt.s, rne, 0x7fc00000, U_NV, 0xff800000) /* sqrt -inf: invalid */
	U_FOP1_S(77, fsqrt.s, rne, 0x1a800000, 0, 0x00000002) /* sqrt of a subnormal (exact) */
	U_FOP1_S(78, fsqrt.s, rne, 0x7fc00000, 0, 0x7fc12345) /* sqrt qNaN */
	U_FOP1_S(79, fsqrt.s, rne, 0x7fc00000, U_NV, 0x7f800001) /* sqrt sNaN */
	/* ---- fused multiply-add ---- */
	U_FOP3_S(80, fmadd.s, rne, 0x40e00000, 0, 0x40000000, 0x40400000, 0x3f800000) /* 2*3+1 */
	U_FOP3_S(81, fmsub.s, rne, 0x40a00000, 0, 0x40000000, 0x40400000, 0x3f800000) /* 2*3-1 */
	U_FOP3_S(82, fnmsub.s, rne, 0xc0a00000, 0, 0x40000000, 0x40400000, 0x3f800000) /* -(2*3)+1 */
	U_FOP3_S(83, fnmadd.s, rne, 0xc0e00000, 0, 0x40000000, 0x40400000, 0x3f800000) /* -(2*3)-1 */
	U_FOP3_S(84, fmadd.s, rne, 0xa8800000, 0, 0x3f800001, 0x3f7ffffe, 0xbf800000) /* fused: one rounding */
	U_FOP3_S(85, fmsub.s, rne, 0xa8800000, 0, 0x3f800001, 0x3f7ffffe, 0x3f800000) /* fused: one rounding */
	U_FOP3_S(86, fnmadd.s, rne, 0x28800000, 0, 0x3f800001, 0x3f7ffffe, 0xbf800000) /* fused: one rounding */
	U_FOP3_S(87, fnmsub.s, rne, 0x28800000, 0, 0x3f800001, 0x3f7ffffe, 0x3f800000) /* fused: one rounding */
	U_FOP3_S(88, fmadd.s, rne, 0x00000000, 0, 0x3f800000, 0x3f800000, 0xbf800000) /* 1*1-1 = +0 */
	U_FOP3_S(89, fmadd.s, rdn, 0x80000000, 0, 0x3f800000, 0x3f800000, 0xbf800000) /* 1*1-1 = -0 rounding down */
	U_FOP3_S(90, fnmadd.s, rne, 0x00000000, 0, 0x3f800000, 0x3f800000, 0xbf800000) /* -(1*1)-(-1) = +0 */
	U_FOP3_S(91, fmadd.s, rne, 0x80000000, 0, 0x80000000, 0x3f800000, 0x80000000) /* -0*1 + -0 = -0 */
	U_FOP3_S(92, fmadd.s, rne, 0x7fc00000, U_NV, 0x7f800000, 0x00000000, 0x7fc00000) /* inf*0 + qNaN: invalid anyway */
	U_FOP3_S(93, fmadd.s, rne, 0x7fc00000, U_NV, 0x00000000, 0xff800000, 0x3f800000) /* 0*-inf + 1: invalid */
	U_FOP3_S(94, fmadd.s, rne, 0x7fc00000, U_NV, 0x7f800000, 0x3f800000, 0xff800000) /* inf*1 - inf: invalid */
	U_FOP3_S(95, fmsub.s, rne, 0x7fc00000, U_NV, 0x7f800000, 0x3f800000, 0x7f800000) /* inf*1 - inf: invalid */
	U_FOP3_S(96, fmadd.s, rne, 0x7fc00000, 0, 0x3f800000, 0x40000000, 0x7fc12345) /* NaN addend: canonical */
	U_FOP3_S(97, fnmsub.s, rne, 0x7fc00000, U_NV, 0x7f800001, 0x3f800000, 0x3f800000) /* sNaN: invalid */
	U_FOP3_S(98, fmadd.s, rne, 0x7f7fffff, 0, 0x7f7fffff, 0x40000000, 0xff7fffff) /* intermediate product is not rounded */
	U_FOP3_S(99, fmadd.s, rne, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x7f7fffff, 0x3f800000) /* overflow */
	/* ---- fmin / fmax (IEEE 754-2019 minimumNumber/maximumNumber) ---- */
	U_FOP2N_S(100, fmin.s, 0x3f800000, 0, 0x3f800000, 0x40000000)
	U_FOP2N_S(101, fmin.s, 0xbf800000, 0, 0x40000000, 0xbf800000)
	U_FOP2N_S(102, fmax.s, 0x40000000, 0, 0x3f800000, 0x40000000)
	U_FOP2N_S(103, fmax.s, 0x40000000, 0, 0x40000000, 0xbf800000)
	U_FOP2N_S(104, fmin.s, 0x80000000, 0, 0x80000000, 0x00000000) /* -0 < +0 */
	U_FOP2N_S(105, fmin.s, 0x80000000, 0, 0x00000000, 0x80000000) /* -0 < +0 */
	U_FOP2N_S(106, fmax.s, 0x00000000, 0, 0x80000000, 0x00000000) /* -0 < +0 */
	U_FOP2N_S(107, fmax.s, 0x00000000, 0, 0x00000000, 0x80000000) /* -0 < +0 */
	U_FOP2N_S(108, fmin.s, 0x3f800000, 0, 0x7fc12345, 0x3f800000) /* one NaN: the other operand */
	U_FOP2N_S(109, fmax.s, 0x3f800000, 0, 0x3f800000, 0x7fc00000) /* one NaN: the other operand */
	U_FOP2N_S(110, fmin.s, 0x3f800000, U_NV, 0x7f800001, 0x3f800000) /* sNaN: the other operand, invalid */
	U_FOP2N_S(111, fmax.s, 0xbf800000, U_NV, 0xbf800000, 0x7f800001) /* sNaN: the other operand, invalid */
	U_FOP2N_S(112, fmin.s, 0x7fc00000, 0, 0x7fc12345, 0x7fc12345) /* both NaN: canonical NaN */
	U_FOP2N_S(113, fmax.s, 0x7fc00000, U_NV, 0x7f800001, 0x7fc00000) /* both NaN, one signalling */
	U_FOP2N_S(114, fmax.s, 0x7f800000, 0, 0xff800000, 0x7f800000)
	/* ---- sign injection (never canonicalises, never raises) ---- */
	U_FOP2N_S(115, fsgnj.s, 0xbf800000, 0, 0x3f800000, 0xc0000000)
	U_FOP2N_S(116, fsgnj.s, 0x3f800000, 0, 0xbf800000, 0x40000000)
	U_FOP2N_S(117, fsgnjn.s, 0x3f800000, 0, 0x3f800000, 0xc0000000)
	U_FOP2N_S(118, fsgnjn.s, 0xbf800000, 0, 0x3f800000, 0x40000000)
	U_FOP2N_S(119, fsgnjx.s, 0x3f800000, 0, 0xbf800000, 0xc0000000)
	U_FOP2N_S(120, fsgnjx.s, 0xbf800000, 0, 0xbf800000, 0x40000000)
	U_FOP2N_S(121, fsgnj.s, 0xffc12345, 0, 0x7fc12345, 0xbf800000) /* NaN payload kept */
	U_FOP2N_S(122, fsgnjn.s, 0xff800001, 0, 0x7f800001, 0x3f800000) /* sNaN kept, no flag */
	U_FOP2N_S(123, fsgnjx.s, 0x7fc12345, 0, 0xffc12345, 0x80000000)
	/* ---- comparisons ---- */
	U_FCMP_S(124, feq.s, 1, 0, 0x3f800000, 0x3f800000)
	U_FCMP_S(125, feq.s, 0, 0, 0x3f800000, 0x40000000)
	U_FCMP_S(126, feq.s, 1, 0, 0x80000000, 0x00000000) /* -0 == +0 */
	U_FCMP_S(127, feq.s, 0, 0, 0x7fc00000, 0x7fc00000) /* quiet NaN: no flag */
	U_FCMP_S(128, feq.s, 0, U_NV, 0x7f800001, 0x3f800000) /* sNaN: invalid */
	U_FCMP_S(129, flt.s, 1, 0, 0x3f800000, 0x40000000)
	U_FCMP_S(130, flt.s, 0, 0, 0x40000000, 0x3f800000)
	U_FCMP_S(131, flt.s, 0, 0, 0x80000000, 0x00000000) /* -0 < +0 is false */
	U_FCMP_S(132, flt.s, 0, U_NV, 0x7fc00000, 0x3f800000) /* any NaN: invalid */
	U_FCMP_S(133, fle.s, 1, 0, 0x3f800000, 0x3f800000)
	U_FCMP_S(134, fle.s, 0, 0, 0x40000000, 0x3f800000)
	U_FCMP_S(135, fle.s, 1, 0, 0x00000000, 0x80000000) /* +0 <= -0 */
	U_FCMP_S(136, fle.s, 0, U_NV, 0x3f800000, 0x7fc12345) /* any NaN: invalid */
	U_FCMP_S(137, fle.s, 0, U_NV, 0x7f800001, 0x7f800001)
	/* ---- fclass: all ten classes ---- */
	U_FCLASS_S(138, 0x1, 0xff800000) /* -inf */
	U_FCLASS_S(139, 0x2, 0xbf800000) /* negative normal */
	U_FCLASS_S(140, 0x4, 0x807fffff) /* negative subnormal */
	U_FCLASS_S(141, 0x8, 0x80000000) /* -0 */
	U_FCLASS_S(142, 0x10, 0x00000000) /* +0 */
	U_FCLASS_S(143, 0x20, 0x00000001) /* positive subnormal */
	U_FCLASS_S(144, 0x40, 0x00800000) /* positive normal */
	U_FCLASS_S(145, 0x80, 0x7f800000) /* +inf */
	U_FCLASS_S(146, 0x100, 0x7f800001) /* signalling NaN */
	U_FCLASS_S(147, 0x100, 0xffbfffff) /* signalling NaN, sign set, all payload bits */
	U_FCLASS_S(148, 0x200, 0x7fc00000) /* quiet NaN */
	/* ---- fcvt to integer: rounding, saturation, NaN, sign extension ---- */
	U_FCVT_XS(149, fcvt.w.s, rne, 0xfffffffffffffff9, 0, 0xc0e00000) /* -7 */
	U_FCVT_XS(150, fcvt.w.s, rtz, 0xfffffffffffffffd, U_NX, 0xc0600000) /* -3.5 rtz */
	U_FCVT_XS(151, fcvt.w.s, rne, 0x2, U_NX, 0x40200000) /* 2.5 rne: tie to even */
	U_FCVT_XS(152, fcvt.w.s, rne, 0x7fffffff, U_NV, 0x4f000000) /* 2^31: out of range */
	U_FCVT_XS(153, fcvt.w.s, rne, 0xffffffff80000000, 0, 0xcf000000) /* -2^31: in range */
	U_FCVT_XS(154, fcvt.w.s, rtz, 0xffffffff80000000, U_NV, 0xcf000001) /* below -2^31 */
	U_FCVT_XS(155, fcvt.w.s, rne, 0x7fffffff, U_NV, 0x7f800000) /* +inf */
	U_FCVT_XS(156, fcvt.w.s, rne, 0xffffffff80000000, U_NV, 0xff800000) /* -inf */
	U_FCVT_XS(157, fcvt.w.s, rne, 0x7fffffff, U_NV, 0x7fc00000) /* NaN: largest positive */
	U_FCVT_XS(158, fcvt.w.s, rne, 0x7fffffff, U_NV, 0xffc12345) /* negative NaN: largest positive too */
	U_FCVT_XS(159, fcvt.w.s, rne, 0x0, 0, 0x80000000) /* -0 */
	U_FCVT_XS(160, fcvt.w.s, rtz, 0x0, U_NX, 0x00000001) /* subnormal: inexact 0 */
	U_FCVT_XS(161, fcvt.wu.s, rne, 0xffffffffc0000000, 0, 0x4f400000) /* 3*2^30: result sign-extended from bit 31 */
	U_FCVT_XS(162, fcvt.wu.s, rtz, 0xffffffffffffff00, 0, 0x4f7fffff) /* largest in range */
	U_FCVT_XS(163, fcvt.wu.s, rne, 0xffffffffffffffff, U_NV, 0x4f800000) /* 2^32: out of range */
	U_FCVT_XS(164, fcvt.wu.s, rne, 0x0, U_NV, 0xbf800000) /* -1: out of range, 0 */
	U_FCVT_XS(165, fcvt.wu.s, rtz, 0x0, U_NX, 0xbf000000) /* -0.5 rtz: 0, inexact only */
	U_FCVT_XS(166, fcvt.wu.s, rne, 0x0, U_NX, 0xbf000000) /* -0.5 rne: 0, inexact only */
	U_FCVT_XS(167, fcvt.wu.s, rdn, 0x0, U_NV, 0xbf000000) /* -0.5 rdn: -1 is out of range */
	U_FCVT_XS(168, fcvt.wu.s, rne, 0x0, U_NV, 0xff800000) /* -inf: 0 */
	U_FCVT_XS(169, fcvt.wu.s, rne, 0xffffffffffffffff, U_NV, 0x7f800000) /* +inf: all ones */
	U_FCVT_XS(170, fcvt.wu.s, rne, 0xffffffffffffffff, U_NV, 0x7fc00000) /* NaN: all ones */
	U_FCVT_XS(171, fcvt.l.s, rne, 0xffffff0000000000, 0, 0xd3800000) /* large negative */
	U_FCVT_XS(172, fcvt.l.s, rne, 0x7fffffffffffffff, U_NV, 0x5f000000) /* 2^63: out of range */
	U_FCVT_XS(173, fcvt.l.s, rne, 0x8000000000000000, 0, 0xdf000000) /* -2^63: in range */
	U_FCVT_XS(174, fcvt.l.s, rne, 0x8000000000000000, U_NV, 0xff800000) /* -inf */
	U_FCVT_XS(175, fcvt.l.s, rne, 0x7fffffffffffffff, U_NV, 0x7fc12345) /* NaN */
	U_FCVT_XS(176, fcvt.lu.s, rne, 0xffffff0000000000, 0, 0x5f7fffff) /* largest in range */
	U_FCVT_XS(177, fcvt.lu.s, rne, 0xffffffffffffffff, U_NV, 0x5f800000) /* 2^64: out of range */
	U_FCVT_XS(178, fcvt.lu.s, rne, 0x0, U_NV, 0xc9800000) /* negative: 0 */
	U_FCVT_XS(179, fcvt.lu.s, rmm, 0x3, U_NX, 0x40200000) /* 2.5 rmm */
	U_FCVT_XS(180, fcvt.lu.s, rne, 0xffffffffffffffff, U_NV, 0x7f800001) /* sNaN */
	/* ---- fcvt from integer ---- */
	U_FCVT_SX(181, fcvt.s.w, rne, 0x00000000, 0, 0x0) /* 0 -> +0 */
	U_FCVT_SX(182, fcvt.s.w, rne, 0xc0e00000, 0, 0xfffffffffffffff9) /* -7 */
	U_FCVT_SX(183, fcvt.s.w, rne, 0x41200000, 0, 0x123456780000000a) /* only the low 32 bits are used */
	U_FCVT_SX(184, fcvt.s.w, rne, 0xcf000000, 0, 0x80000000) /* INT32_MIN */
	U_FCVT_SX(185, fcvt.s.w, rne, 0x4f000000, U_NX, 0x7fffffff) /* INT32_MAX: inexact for single */
	U_FCVT_SX(186, fcvt.s.wu, rne, 0x4f800000, U_NX, 0xffffffff) /* UINT32_MAX */
	U_FCVT_SX(187, fcvt.s.wu, rne, 0x4f000000, 0, 0xffffffff80000000) /* low 32 bits, unsigned: 2^31 */
	U_FCVT_SX(188, fcvt.s.l, rne, 0xbf800000, 0, 0xffffffffffffffff) /* -1 */
	U_FCVT_SX(189, fcvt.s.l, rne, 0xdf000000, 0, 0x8000000000000000) /* INT64_MIN */
	U_FCVT_SX(190, fcvt.s.l, rne, 0x5f000000, U_NX, 0x7fffffffffffffff) /* INT64_MAX */
	U_FCVT_SX(191, fcvt.s.l, rne, 0x4b800000, U_NX, 0x1000001) /* 2^p + 1: tie to even */
	U_FCVT_SX(192, fcvt.s.l, rne, 0x4b800002, U_NX, 0x1000003) /* 2^p + 3: tie to even (up) */
	U_FCVT_SX(193, fcvt.s.lu, rne, 0x5f800000, U_NX, 0xffffffffffffffff) /* UINT64_MAX */
	U_FCVT_SX(194, fcvt.s.lu, rdn, 0x5f7fffff, U_NX, 0xffffffffffffffff) /* UINT64_MAX rdn */
	U_FCVT_SX(195, fcvt.s.lu, rne, 0x5f000000, 0, 0x8000000000000000) /* 2^63 */
	/* ---- static rounding modes: results differ between modes ---- */
	U_FOP2_S(196, fadd.s, rne, 0x3f800000, U_NX, 0x3f800000, 0x33800000) /* 1 + half ulp (a tie) */
	U_FOP2_S(197, fadd.s, rtz, 0x3f800000, U_NX, 0x3f800000, 0x33800000) /* 1 + half ulp (a tie) */
	U_FOP2_S(198, fadd.s, rdn, 0x3f800000, U_NX, 0x3f800000, 0x33800000) /* 1 + half ulp (a tie) */
	U_FOP2_S(199, fadd.s, rup, 0x3f800001, U_NX, 0x3f800000, 0x33800000) /* 1 + half ulp (a tie) */
	U_FOP2_S(200, fadd.s, rmm, 0x3f800001, U_NX, 0x3f800000, 0x33800000) /* 1 + half ulp (a tie) */
	U_FOP2_S(201, fadd.s, rne, 0xbf800000, U_NX, 0xbf800000, 0xb3800000) /* -1 - half ulp (a tie) */
	U_FOP2_S(202, fadd.s, rtz, 0xbf800000, U_NX, 0xbf800000, 0xb3800000) /* -1 - half ulp (a tie) */
	U_FOP2_S(203, fadd.s, rdn, 0xbf800001, U_NX, 0xbf800000, 0xb3800000) /* -1 - half ulp (a tie) */
	U_FOP2_S(204, fadd.s, rup, 0xbf800000, U_NX, 0xbf800000, 0xb3800000) /* -1 - half ulp (a tie) */
	U_FOP2_S(205, fadd.s, rmm, 0xbf800001, U_NX, 0xbf800000, 0xb3800000) /* -1 - half ulp (a tie) */
	U_FOP2_S(206, fdiv.s, rne, 0xbeaaaaab, U_NX, 0xbf800000, 0x40400000) /* -1/3 */
	U_FOP2_S(207, fdiv.s, rtz, 0xbeaaaaaa, U_NX, 0xbf800000, 0x40400000) /* -1/3 */
	U_FOP2_S(208, fdiv.s, rdn, 0xbeaaaaab, U_NX, 0xbf800000, 0x40400000) /* -1/3 */
	U_FOP2_S(209, fdiv.s, rup, 0xbeaaaaaa, U_NX, 0xbf800000, 0x40400000) /* -1/3 */
	U_FOP2_S(210, fdiv.s, rmm, 0xbeaaaaab, U_NX, 0xbf800000, 0x40400000) /* -1/3 */
	U_FOP2_S(211, fmul.s, rne, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x40000000) /* overflow: inf or the largest finite */
	U_FOP2_S(212, fmul.s, rtz, 0x7f7fffff, U_OF|U_NX, 0x7f7fffff, 0x40000000) /* overflow: inf or the largest finite */
	U_FOP2_S(213, fmul.s, rdn, 0x7f7fffff, U_OF|U_NX, 0x7f7fffff, 0x40000000) /* overflow: inf or the largest finite */
	U_FOP2_S(214, fmul.s, rup, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x40000000) /* overflow: inf or the largest finite */
	U_FOP2_S(215, fmul.s, rmm, 0x7f800000, U_OF|U_NX, 0x7f7fffff, 0x40000000) /* overflow: inf or the largest finite */
	U_FOP3_S(216, fmadd.s, rtz, 0x34800000, U_NX, 0x3f800001, 0x3f800001, 0xbf800000) /* 2 ulp + ulp^2 */
	U_FOP3_S(217, fmadd.s, rdn, 0x34800000, U_NX, 0x3f800001, 0x3f800001, 0xbf800000) /* 2 ulp + ulp^2 */
	U_FOP3_S(218, fmadd.s, rup, 0x34800001, U_NX, 0x3f800001, 0x3f800001, 0xbf800000) /* 2 ulp + ulp^2 */
	U_FOP3_S(219, fmadd.s, rmm, 0x34800001, U_NX, 0x3f800001, 0x3f800001, 0xbf800000) /* 2 ulp + ulp^2 */
	U_FCVT_XS(220, fcvt.w.s, rne, 0xfffffffffffffffe, U_NX, 0xc0200000) /* -2.5 */
	U_FCVT_XS(221, fcvt.w.s, rtz, 0xfffffffffffffffe, U_NX, 0xc0200000) /* -2.5 */
	U_FCVT_XS(222, fcvt.w.s, rdn, 0xfffffffffffffffd, U_NX, 0xc0200000) /* -2.5 */
	U_FCVT_XS(223, fcvt.w.s, rup, 0xfffffffffffffffe, U_NX, 0xc0200000) /* -2.5 */
	U_FCVT_XS(224, fcvt.w.s, rmm, 0xfffffffffffffffd, U_NX, 0xc0200000) /* -2.5 */
	U_FCVT_XS(225, fcvt.l.s, rtz, 0xffffffffffffffff, U_NX, 0xbfe00000) /* -1.75 */
	U_FCVT_XS(226, fcvt.l.s, rdn, 0xfffffffffffffffe, U_NX, 0xbfe00000) /* -1.75 */
	U_FCVT_XS(227, fcvt.l.s, rup, 0xffffffffffffffff, U_NX, 0xbfe00000) /* -1.75 */
	U_FCVT_XS(228, fcvt.l.s, rmm, 0xfffffffffffffffe, U_NX, 0xbfe00000) /* -1.75 */
	U_FCVT_SX(229, fcvt.s.l, rtz, 0x4b800000, U_NX, 0x1000001) /* 2^p + 1 (a tie) */
	U_FCVT_SX(230, fcvt.s.l, rdn, 0x4b800000, U_NX, 0x1000001) /* 2^p + 1 (a tie) */
	U_FCVT_SX(231, fcvt.s.l, rup, 0x4b800001, U_NX, 0x1000001) /* 2^p + 1 (a tie) */
	U_FCVT_SX(232, fcvt.s.l, rmm, 0x4b800001, U_NX, 0x1000001) /* 2^p + 1 (a tie) */

	/* ---- fflags accumulate; fcsr = frm << 5 | fflags ---- */
	fsflags x0
	U_NUM(233)
	U_LDS(f1, 0x3f800000)
	U_LDS(f2, 0x40400000)
	fdiv.s f3, f1, f2	/* NX */
	frflags a0
	U_CHECKR(a0, U_NX)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX)
	U_NUM(234)
	U_LDS(f1, 0x0d800000)
	fmul.s f3, f1, f1	/* UF | NX */
	frflags a0
	U_CHECKR(a0, U_NX|U_UF)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX|U_UF)
	U_NUM(235)
	U_LDS(f1, 0x7f7fffff)
	fadd.s f3, f1, f1	/* OF | NX */
	frflags a0
	U_CHECKR(a0, U_NX|U_UF|U_OF)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX|U_UF|U_OF)
	U_NUM(236)
	U_LDS(f1, 0x3f800000)
	fmv.w.x f2, x0
	fdiv.s f3, f1, f2	/* DZ */
	frflags a0
	U_CHECKR(a0, U_NX|U_UF|U_OF|U_DZ)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX|U_UF|U_OF|U_DZ)
	U_NUM(237)
	U_LDS(f1, 0xbf800000)
	fsqrt.s f3, f1		/* NV */
	frflags a0
	U_CHECKR(a0, 0x1f)
	csrr a0, fcsr
	U_CHECKR(a0, 0x1f)
	U_NUM(238)
	/* an exact operation clears nothing */
	U_LDS(f1, 0x3f800000)
	fadd.s f3, f1, f1
	frflags a0
	U_CHECKR(a0, 0x1f)
	U_NUM(239)
	/* fsflags swaps; csrrsi / csrrci set and clear single flags */
	li t0, 0x3
	fsflags a0, t0
	U_CHECKR(a0, 0x1f)
	csrrsi a0, fflags, U_DZ
	U_CHECKR(a0, 0x3)
	csrrci a0, fflags, U_NX
	U_CHECKR(a0, 0xb)
	frflags a0
	U_CHECKR(a0, 0xa)
	li t0, 2
	fsrm t0
	csrr a0, fcsr
	U_CHECKR(a0, 0x4a)
	fsflags x0
	fsrm x0
	csrr a0, fcsr
	U_CHECKR(a0, 0)

	/* ---- dynamic rounding through frm ---- */
	U_NUM(240)
	li t0, 3
	fsrm a0, t0
	U_CHECKR(a0, 0)
	frrm a0
	U_CHECKR(a0, 3)
	csrr a0, fcsr
	U_CHECKR(a0, 0x60)
	/* mode, 1+half ulp, -1-half ulp, fcvt.w.s(-2.5) */
	U_DYN_S(241, 0, 0x3f800000, 0xbf800000, -2)
	U_DYN_S(242, 1, 0x3f800000, 0xbf800000, -2)
	U_DYN_S(243, 2, 0x3f800000, 0xbf800001, -3)
	U_DYN_S(244, 3, 0x3f800001, 0xbf800000, -2)
	U_DYN_S(245, 4, 0x3f800001, 0xbf800001, -3)
	/* a static mode overrides frm */
	U_NUM(246)
	U_LDS(f1, 0x3f800000)
	U_LDS(f2, 0x33800000)
	fadd.s f3, f1, f2, rup
	fmv.x.d a0, f3
	U_CHECKR(a0, U_BOX(0x3f800001))
	li t0, 3
	fsrm t0
	fadd.s f3, f1, f2, rne
	fmv.x.d a0, f3
	U_CHECKR(a0, U_BOX(0x3f800000))

	/* ---- invalid rounding modes are illegal instructions ---- */
	U_TRAP_ARM
	li t0, 5
	fsrm t0
	U_TRAP_BEGIN(247)
1:	fadd.s f3, f1, f2, dyn
	U_TRAP_CHECK(2, 1b)
	li t0, 6
	fsrm t0
	U_TRAP_BEGIN(248)
1:	fcvt.w.s a0, f1, dyn
	U_TRAP_CHECK(2, 1b)
	li t0, 7
	fsrm t0
	U_TRAP_BEGIN(249)
1:	fmul.s f3, f1, f2, dyn
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(250)
	/* with frm invalid: instructions without rounding, static modes ok */
	fsgnj.s f3, f1, f2
	fmin.s f3, f1, f2
	feq.s a0, f1, f2
	fclass.s a0, f1
	fmv.x.w a0, f1
	fadd.s f3, f1, f2, rtz
	U_NO_TRAP
	/* static rm 5 and 6 are reserved: fadd.s f3, f1, f2 with rm = 5/6 */
	U_TRAP_BEGIN(251)
1:	.insn r 0x53, 5, 0x00, f3, f1, f2
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(252)
1:	.insn r 0x53, 6, 0x00, f3, f1, f2
	U_TRAP_CHECK(2, 1b)
	U_TRAP_DISARM
	fsrm x0

	PASS
U_TRAP_HANDLER
RVTEST_END

	.data
	.balign 8
u_fdat:
	.word 0xbf800000, 0x40490fdb
u_ddat:
	.dword 0x3ff0000000000000
u_fbuf:
	.dword 0, 0
