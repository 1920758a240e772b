/* u_rv64d.S: the RV64D double-precision instructions (32-bit encodings).
 * - mstatus.FS = Off makes D instructions raise illegal instruction (2).
 * - fmv.x.d / fmv.d.x, fld / fsd (incl. negative offsets and misaligned
 *   addresses).
 * - fadd, fsub, fmul, fdiv, fsqrt, fmadd, fmsub, fnmsub, fnmadd: exact and
 *   inexact results, signed zeros, infinities, overflow, underflow
 *   (tininess detected after rounding), NaN inputs giving the canonical
 *   NaN 0x7ff8000000000000, invalid operations, fused single rounding.
 * - fmin / fmax (-0 < +0, NaN operands), fsgnj / fsgnjn / fsgnjx, feq /
 *   flt / fle (quiet vs signalling), fclass of all ten classes.
 * - fcvt.{w,wu,l,lu}.d and fcvt.d.{w,wu,l,lu}: rounding, saturation of
 *   out-of-range / infinite / NaN inputs, sign extension of 32-bit results,
 *   the low 32 bits of the source used by the W forms.
 * - fcvt.s.d (rounding in every mode, overflow, underflow, NaNs) and
 *   fcvt.d.s (exact, NaNs, an improperly NaN-boxed single is the canonical
 *   NaN), single results NaN-boxed.
 * - every result checked for the exact bits and the exact fflags; fflags
 *   accumulation (read through fflags and fcsr), static rounding modes on
 *   operations whose results differ, dynamic rounding through frm, an
 *   invalid frm with a dynamic-rounding D instruction is illegal.
 *
 * Implementation-defined behaviour pinned to QEMU 7.2:
 * - misaligned fld/fsd are performed, not trapped.
 * - fmin/fmax follow the 2.2+ spec (IEEE 754-2019 minimumNumber). */
#include "u_test.h"
	.option norvc

/* f3 = fcvt.s.d(f1 = a, rm): single bits res, NaN-boxed. */
#define U_CVT_SD(n, rm, res, flags, a)                                         \
	U_NUM(n)                                                               \
	U_LDD(f1, a)                                                           \
	fsflags x0;                                                            \
	fcvt.s.d f3, f1, rm;                                                   \
	U_FCHK_S(f3, res, flags)

/* f3 = fcvt.d.s(f1 = single a, NaN-boxed). */
#define U_CVT_DS(n, res, flags, a)                                             \
	U_NUM(n)                                                               \
	U_LDS(f1, a)                                                           \
	fsflags x0;                                                            \
	fcvt.d.s f3, f1;                                                       \
	U_FCHK_D(f3, res, flags)

/* Dynamic rounding: 1 + half ulp and -1 - half ulp with rm = dyn. */
#define U_DYN_D(n, mode, r1, r2)                                               \
	U_NUM(n)                                                               \
	li t0, mode;                                                           \
	fsrm t0;                                                               \
	U_LDD(f1, 0x3ff0000000000000)                                          \
	U_LDD(f2, 0x3ca0000000000000)                                          \
	fadd.d f3, f1, f2, dyn;                                                \
	fmv.x.d a0, f3;                                                        \
	U_CHECKR(a0, r1)                                                       \
	fneg.d f1, f1;                                                         \
	fneg.d f2, f2;                                                         \
	fadd.d f3, f1, f2, dyn;                                                \
	fmv.x.d a0, f3;                                                        \
	U_CHECKR(a0, r2)

RVTEST_BEGIN

	/* ---- FS = Off: D instructions are illegal ---- */
	U_TRAP_ARM
	li t0, 0x6000
	csrc mstatus, t0
	U_TRAP_BEGIN(1)
1:	fadd.d f1, f2, f3
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(2)
	la a1, u_ddat
1:	fld f1, 0(a1)
	U_TRAP_CHECK(2, 1b)
	U_TRAP_BEGIN(3)
	li a0, 0x55
1:	fmv.x.d a0, f1
	U_TRAP_CHECK(2, 1b)
	U_CHECKR(a0, 0x55)
	U_TRAP_BEGIN(4)
1:	fcvt.d.s f1, f2
	U_TRAP_CHECK(2, 1b)
	U_TRAP_DISARM
	U_FP_ENABLE
	U_NUM(5)
	csrr a0, mstatus
	li t0, 0x6000
	and a0, a0, t0
	U_CHECKR(a0, 0x6000)
	csrw fcsr, x0

	/* ---- fmv.x.d / fmv.d.x ---- */
	U_NUM(6)
	li a0, 0x8123456789abcdef
	fmv.d.x f1, a0
	fmv.x.d a1, f1
	U_CHECKR(a1, 0x8123456789abcdef)
	U_NUM(7)
	/* fmv.x.w of a double: bits 31:0, sign-extended */
	fmv.x.w a1, f1
	U_CHECKR(a1, 0xffffffff89abcdef)
	fmv.d.x f2, x0
	fmv.x.d a1, f2
	U_CHECKR(a1, 0)

	/* ---- fld / fsd ---- */
	U_NUM(8)
	la a1, u_ddat
	fld f1, 0(a1)
	fmv.x.d a0, f1
	U_CHECKR(a0, 0x400921fb54442d18)
	fld f2, 8(a1)
	fmv.x.d a0, f2
	U_CHECKR(a0, 0xbff0000000000000)
	U_NUM(9)
	la a1, u_dbuf
	li t0, 0xaaaaaaaaaaaaaaaa
	sd t0, 0(a1)
	sd t0, 8(a1)
	sd t0, 16(a1)
	fsd f1, 8(a1)
	ld a0, 0(a1)
	U_CHECKR(a0, 0xaaaaaaaaaaaaaaaa)
	ld a0, 8(a1)
	U_CHECKR(a0, 0x400921fb54442d18)
	ld a0, 16(a1)
	U_CHECKR(a0, 0xaaaaaaaaaaaaaaaa)
	U_NUM(10)
	/* negative offsets */
	addi a2, a1, 24
	fsd f2, -8(a2)
	ld a0, 16(a1)
	U_CHECKR(a0, 0xbff0000000000000)
	fld f3, -16(a2)
	fmv.x.d a0, f3
	U_CHECKR(a0, 0x400921fb54442d18)
	U_NUM(11)
	/* misaligned fld: bytes 3..10 of u_ddat */
	la a1, u_ddat
	fld f3, 3(a1)
	fmv.x.d a0, f3
	U_CHECKR(a0, 0x000000400921fb54)
	U_NUM(12)
	/* misaligned fsd across a dword */
	la a1, u_dbuf
	li t0, 0xaaaaaaaaaaaaaaaa
	sd t0, 0(a1)
	sd t0, 8(a1)
	fsd f1, 5(a1)
	ld a0, 0(a1)
	U_CHECKR(a0, 0x442d18aaaaaaaaaa)
	ld a0, 8(a1)
	U_CHECKR(a0, 0xaaaaaa400921fb54)

	/* ---- NaN-boxing across the formats ---- */
	U_NUM(13)
	/* fcvt.d.s of a single that is not NaN-boxed: canonical NaN, no NV */
	U_LDD(f1, 0x000000003f800000)
	fsflags x0
	fcvt.d.s f3, f1
	U_FCHK_D(f3, 0x7ff8000000000000, 0)
	U_NUM(14)
	/* a boxed single seen as a double is a NaN (upper bits all ones) */
	la a1, u_ddat
	flw f1, 16(a1)
	fadd.d f3, f1, f1
	U_FCHK_D(f3, 0x7ff8000000000000, 0)
	fmv.x.d a0, f1
	U_CHECKR(a0, 0xffffffff3f800000)
	fclass.d a0, f1
	U_CHECKR(a0, 0x200)

	/* ---- fadd / fsub ---- */
	U_FOP2_D(15, fadd.d, rne, 0x4008000000000000, 0, 0x3ff0000000000000, 0x4000000000000000) /* 1 + 2 */
	U_FOP2_D(16, fadd.d, rne, 0x0000000000000000, 0, 0x3ff0000000000000, 0xbff0000000000000) /* 1 + -1 = +0 */
	U_FOP2_D(17, fadd.d, rdn, 0x8000000000000000, 0, 0x3ff0000000000000, 0xbff0000000000000) /* 1 + -1 = -0 when rounding down */
	U_FOP2_D(18, fadd.d, rne, 0x8000000000000000, 0, 0x8000000000000000, 0x8000000000000000) /* -0 + -0 = -0 */
	U_FOP2_D(19, fadd.d, rne, 0x0000000000000000, 0, 0x8000000000000000, 0x0000000000000000) /* -0 + +0 = +0 */
	U_FOP2_D(20, fadd.d, rne, 0x7ff0000000000000, 0, 0x7ff0000000000000, 0xbff0000000000000) /* inf + -1 */
	U_FOP2_D(21, fadd.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000000, 0xfff0000000000000) /* inf + -inf: invalid */
	U_FOP2_D(22, fadd.d, rne, 0x3ff0000000000000, U_NX, 0x3ff0000000000000, 0x3ca0000000000000) /* 1 + half ulp: tie to even */
	U_FOP2_D(23, fadd.d, rne, 0x3ff0000000000001, U_NX, 0x3ff0000000000000, 0x3ca8000000000000) /* 1 + 3/4 ulp: rounds up */
	U_FOP2_D(24, fadd.d, rne, 0x7ff0000000000000, U_OF|U_NX, 0x7fefffffffffffff, 0x7fefffffffffffff) /* overflow */
	U_FOP2_D(25, fadd.d, rne, 0x0000000000000001, 0, 0x0010000000000000, 0x800fffffffffffff) /* min normal - max subnormal = min subnormal */
	U_FOP2_D(26, fadd.d, rne, 0x7ff8000000000000, 0, 0x3ff0000000000000, 0x7ff8000000012345) /* NaN payload is not propagated */
	U_FOP2_D(27, fadd.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000001, 0x3ff0000000000000) /* sNaN in: invalid */
	U_FOP2_D(28, fsub.d, rne, 0x4000000000000000, 0, 0x4008000000000000, 0x3ff0000000000000) /* 3 - 1 */
	U_FOP2_D(29, fsub.d, rne, 0x0000000000000000, 0, 0x3ff0000000000000, 0x3ff0000000000000) /* 1 - 1 = +0 */
	U_FOP2_D(30, fsub.d, rdn, 0x8000000000000000, 0, 0x3ff0000000000000, 0x3ff0000000000000) /* 1 - 1 = -0 when rounding down */
	U_FOP2_D(31, fsub.d, rne, 0x8000000000000000, 0, 0x8000000000000000, 0x0000000000000000) /* -0 - +0 = -0 */
	U_FOP2_D(32, fsub.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000000, 0x7ff0000000000000) /* inf - inf: invalid */
	U_FOP2_D(33, fsub.d, rne, 0xfff0000000000000, U_OF|U_NX, 0xffefffffffffffff, 0x7fefffffffffffff) /* negative overflow */
	U_FOP2_D(34, fsub.d, rne, 0x7ff8000000000000, U_NV, 0xfff8000000012345, 0x7ff0000000000001) /* sNaN in: invalid, canonical NaN out */
	/* ---- fmul ---- */
	U_FOP2_D(35, fmul.d, rne, 0x4018000000000000, 0, 0x4000000000000000, 0x4008000000000000) /* 2 * 3 */
	U_FOP2_D(36, fmul.d, rne, 0xc018000000000000, 0, 0xc000000000000000, 0x4008000000000000) /* -2 * 3 */
	U_FOP2_D(37, fmul.d, rne, 0x8000000000000000, 0, 0x8000000000000000, 0x4008000000000000) /* -0 * 3 = -0 */
	U_FOP2_D(38, fmul.d, rne, 0x7ff8000000000000, U_NV, 0x0000000000000000, 0x7ff0000000000000) /* 0 * inf: invalid */
	U_FOP2_D(39, fmul.d, rne, 0x7ff0000000000000, 0, 0xfff0000000000000, 0xc000000000000000) /* -inf * -2 = inf */
	U_FOP2_D(40, fmul.d, rne, 0x7ff0000000000000, U_OF|U_NX, 0x7fefffffffffffff, 0x4000000000000000) /* overflow */
	U_FOP2_D(41, fmul.d, rne, 0x3370000000000000, 0, 0x39b0000000000000, 0x39b0000000000000) /* underflow to zero */
	U_FOP2_D(42, fmul.d, rne, 0x0001000000000000, 0, 0x1fe0000000000000, 0x1fe0000000000000) /* exact subnormal result: no flags */
	U_FOP2_D(43, fmul.d, rne, 0x0010000000000000, U_NX, 0x3ff0000000000001, 0x000fffffffffffff) /* tiny before rounding, not after: NX only (tininess after rounding) */
	U_FOP2_D(44, fmul.d, rne, 0x0010000000000000, U_UF|U_NX, 0x3fefffffffffffff, 0x0010000000000000) /* tiny after rounding and inexact: UF */
	U_FOP2_D(45, fmul.d, rne, 0x3ff0000000000000, U_NX, 0x3ff0000000000001, 0x3feffffffffffffe) /* (1+ulp)(1-ulp) = 1-ulp^2 rounds to 1 */
	/* ---- fdiv ---- */
	U_FOP2_D(46, fdiv.d, rne, 0x3fd5555555555555, U_NX, 0x3ff0000000000000, 0x4008000000000000) /* 1 / 3: inexact */
	U_FOP2_D(47, fdiv.d, rne, 0xbfd5555555555555, U_NX, 0xbff0000000000000, 0x4008000000000000) /* -1 / 3 */
	U_FOP2_D(48, fdiv.d, rne, 0x7ff0000000000000, U_DZ, 0x3ff0000000000000, 0x0000000000000000) /* 1 / 0: divide by zero */
	U_FOP2_D(49, fdiv.d, rne, 0xfff0000000000000, U_DZ, 0xbff0000000000000, 0x0000000000000000) /* -1 / +0 = -inf */
	U_FOP2_D(50, fdiv.d, rne, 0xfff0000000000000, U_DZ, 0x3ff0000000000000, 0x8000000000000000) /* 1 / -0 = -inf */
	U_FOP2_D(51, fdiv.d, rne, 0x7ff8000000000000, U_NV, 0x0000000000000000, 0x0000000000000000) /* 0 / 0: invalid, not DZ */
	U_FOP2_D(52, fdiv.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000000, 0xfff0000000000000) /* inf / -inf: invalid */
	U_FOP2_D(53, fdiv.d, rne, 0x7ff0000000000000, 0, 0x7ff0000000000000, 0x0000000000000000) /* inf / 0 = inf, no DZ */
	U_FOP2_D(54, fdiv.d, rne, 0x8000000000000000, 0, 0x3ff0000000000000, 0xfff0000000000000) /* 1 / -inf = -0 */
	U_FOP2_D(55, fdiv.d, rne, 0x8000000000000000, 0, 0x0000000000000000, 0xc014000000000000) /* 0 / -5 = -0 */
	U_FOP2_D(56, fdiv.d, rne, 0x0000000000000000, U_UF|U_NX, 0x0010000000000000, 0x4350000000000000) /* underflow to zero */
	U_FOP2_D(57, fdiv.d, rne, 0x7ff0000000000000, U_OF|U_NX, 0x7fefffffffffffff, 0x3fe0000000000000) /* overflow */
	U_FOP2_D(58, fdiv.d, rne, 0x7ff8000000000000, 0, 0x7ff8000000000000, 0x0000000000000000) /* qNaN / 0: no DZ */
	/* ---- fsqrt ---- */
	U_FOP1_D(59, fsqrt.d, rne, 0x4000000000000000, 0, 0x4010000000000000) /* sqrt 4 */
	U_FOP1_D(60, fsqrt.d, rne, 0x3ff6a09e667f3bcd, U_NX, 0x4000000000000000) /* sqrt 2 */
	U_FOP1_D(61, fsqrt.d, rne, 0x8000000000000000, 0, 0x8000000000000000) /* sqrt -0 = -0 */
	U_FOP1_D(62, fsqrt.d, rne, 0x7ff0000000000000, 0, 0x7ff0000000000000) /* sqrt inf */
	U_FOP1_D(63, fsqrt.d, rne, 0x7ff8000000000000, U_NV, 0xbff0000000000000) /* sqrt -1: invalid */
	U_FOP1_D(64, fsqrt.d, rne, 0x7ff8000000000000, U_NV, 0xfff0000000000000) /* sqrt -inf: invalid */
	U_FOP1_D(65, fsqrt.d, rne, 0x1e66a09e667f3bcd, U_NX, 0x0000000000000002) /* sqrt of a subnormal (exact) */
	U_FOP1_D(66, fsqrt.d, rne, 0x7ff8000000000000, 0, 0x7ff8000000012345) /* sqrt qNaN */
	U_FOP1_D(67, fsqrt.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000001) /* sqrt sNaN */
	/* ---- fused multiply-add ---- */
	U_FOP3_D(68, fmadd.d, rne, 0x401c000000000000, 0, 0x4000000000000000, 0x4008000000000000, 0x3ff0000000000000) /* 2*3+1 */
	U_FOP3_D(69, fmsub.d, rne, 0x4014000000000000, 0, 0x4000000000000000, 0x4008000000000000, 0x3ff0000000000000) /* 2*3-1 */
	U_FOP3_D(70, fnmsub.d, rne, 0xc014000000000000, 0, 0x4000000000000000, 0x4008000000000000, 0x3ff0000000000000) /* -(2*3)+1 */
	U_FOP3_D(71, fnmadd.d, rne, 0xc01c000000000000, 0, 0x4000000000000000, 0x4008000000000000, 0x3ff0000000000000) /* -(2*3)-1 */
	U_FOP3_D(72, fmadd.d, rne, 0xb970000000000000, 0, 0x3ff0000000000001, 0x3feffffffffffffe, 0xbff0000000000000) /* fused: one rounding */
	U_FOP3_D(73, fmsub.d, rne, 0xb970000000000000, 0, 0x3ff0000000000001, 0x3feffffffffffffe, 0x3ff0000000000000) /* fused: one rounding */
	U_FOP3_D(74, fnmadd.d, rne, 0x3970000000000000, 0, 0x3ff0000000000001, 0x3feffffffffffffe, 0xbff0000000000000) /* fused: one rounding */
	U_FOP3_D(75, fnmsub.d, rne, 0x3970000000000000, 0, 0x3ff0000000000001, 0x3feffffffffffffe, 0x3ff0000000000000) /* fused: one rounding */
	U_FOP3_D(76, fmadd.d, rne, 0x0000000000000000, 0, 0x3ff0000000000000, 0x3ff0000000000000, 0xbff0000000000000) /* 1*1-1 = +0 */
	U_FOP3_D(77, fmadd.d, rdn, 0x8000000000000000, 0, 0x3ff0000000000000, 0x3ff0000000000000, 0xbff0000000000000) /* 1*1-1 = -0 rounding down */
	U_FOP3_D(78, fnmadd.d, rne, 0x0000000000000000, 0, 0x3ff0000000000000, 0x3ff0000000000000, 0xbff0000000000000) /* -(1*1)-(-1) = +0 */
	U_FOP3_D(79, fmadd.d, rne, 0x8000000000000000, 0, 0x8000000000000000, 0x3ff0000000000000, 0x8000000000000000) /* -0*1 + -0 = -0 */
	U_FOP3_D(80, fmadd.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000000, 0x0000000000000000, 0x7ff8000000000000) /* inf*0 + qNaN: invalid anyway */
	U_FOP3_D(81, fmadd.d, rne, 0x7ff8000000000000, U_NV, 0x0000000000000000, 0xfff0000000000000, 0x3ff0000000000000) /* 0*-inf + 1: invalid */
	U_FOP3_D(82, fmadd.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000000, 0x3ff0000000000000, 0xfff0000000000000) /* inf*1 - inf: invalid */
	U_FOP3_D(83, fmsub.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000000, 0x3ff0000000000000, 0x7ff0000000000000) /* inf*1 - inf: invalid */
	U_FOP3_D(84, fmadd.d, rne, 0x7ff8000000000000, 0, 0x3ff0000000000000, 0x4000000000000000, 0x7ff8000000012345) /* NaN addend: canonical */
	U_FOP3_D(85, fnmsub.d, rne, 0x7ff8000000000000, U_NV, 0x7ff0000000000001, 0x3ff0000000000000, 0x3ff0000000000000) /* sNaN: invalid */
	U_FOP3_D(86, fmadd.d, rne, 0x7fefffffffffffff, 0, 0x7fefffffffffffff, 0x4000000000000000, 0xffefffffffffffff) /* intermediate product is not rounded */
	U_FOP3_D(87, fmadd.d, rne, 0x7ff0000000000000, U_OF|U_NX, 0x7fefffffffffffff, 0x7fefffffffffffff, 0x3ff0000000000000) /* overflow */
	/* ---- fmin / fmax (IEEE 754-2019 minimumNumber/maximumNumber) ---- */
	U_FOP2N_D(88, fmin.d, 0x3ff0000000000000, 0, 0x3ff0000000000000, 0x4000000000000000)
	U_FOP2N_D(89, fmin.d, 0xbff0000000000000, 0, 0x4000000000000000, 0xbff0000000000000)
	U_FOP2N_D(90, fmax.d, 0x4000000000000000, 0, 0x3ff0000000000000, 0x4000000000000000)
	U_FOP2N_D(91, fmax.d, 0x4000000000000000, 0, 0x4000000000000000, 0xbff0000000000000)
	U_FOP2N_D(92, fmin.d, 0x8000000000000000, 0, 0x8000000000000000, 0x0000000000000000) /* -0 < +0 */
	U_FOP2N_D(93, fmin.d, 0x8000000000000000, 0, 0x0000000000000000, 0x8000000000000000) /* -0 < +0 */
	U_FOP2N_D(94, fmax.d, 0x0000000000000000, 0, 0x8000000000000000, 0x0000000000000000) /* -0 < +0 */
	U_FOP2N_D(95, fmax.d, 0x0000000000000000, 0, 0x0000000000000000, 0x8000000000000000) /* -0 < +0 */
	U_FOP2N_D(96, fmin.d, 0x3ff0000000000000, 0, 0x7ff8000000012345, 0x3ff0000000000000) /* one NaN: the other operand */
	U_FOP2N_D(97, fmax.d, 0x3ff0000000000000, 0, 0x3ff0000000000000, 0x7ff8000000000000) /* one NaN: the other operand */
	U_FOP2N_D(98, fmin.d, 0x3ff0000000000000, U_NV, 0x7ff0000000000001, 0x3ff0000000000000) /* sNaN: the other operand, invalid */
	U_FOP2N_D(99, fmax.d, 0xbff0000000000000, U_NV, 0xbff0000000000000, 0x7ff0000000000001) /* sNaN: the other operand, invalid */
	U_FOP2N_D(100, fmin.d, 0x7ff8000000000000, 0, 0x7ff8000000012345, 0x7ff8000000012345) /* both NaN: canonical NaN */
	U_FOP2N_D(101, fmax.d, 0x7ff8000000000000, U_NV, 0x7ff0000000000001, 0x7ff8000000000000) /* both NaN, one signalling */
	U_FOP2N_D(102, fmax.d, 0x7ff0000000000000, 0, 0xfff0000000000000, 0x7ff0000000000000)
	/* ---- sign injection (never canonicalises, never raises) ---- */
	U_FOP2N_D(103, fsgnj.d, 0xbff0000000000000, 0, 0x3ff0000000000000, 0xc000000000000000)
	U_FOP2N_D(104, fsgnj.d, 0x3ff0000000000000, 0, 0xbff0000000000000, 0x4000000000000000)
	U_FOP2N_D(105, fsgnjn.d, 0x3ff0000000000000, 0, 0x3ff0000000000000, 0xc000000000000000)
	U_FOP2N_D(106, fsgnjn.d, 0xbff0000000000000, 0, 0x3ff0000000000000, 0x4000000000000000)
	U_FOP2N_D(107, fsgnjx.d, 0x3ff0000000000000, 0, 0xbff0000000000000, 0xc000000000000000)
	U_FOP2N_D(108, fsgnjx.d, 0xbff0000000000000, 0, 0xbff0000000000000, 0x4000000000000000)
	U_FOP2N_D(109, fsgnj.d, 0xfff8000000012345, 0, 0x7ff8000000012345, 0xbff0000000000000) /* NaN payload kept */
	U_FOP2N_D(110, fsgnjn.d, 0xfff0000000000001, 0, 0x7ff0000000000001, 0x3ff0000000000000) /* sNaN kept, no flag */
	U_FOP2N_D(111, fsgnjx.d, 0x7ff8000000012345, 0, 0xfff8000000012345, 0x8000000000000000)
	/* ---- comparisons ---- */
	U_FCMP_D(112, feq.d, 1, 0, 0x3ff0000000000000, 0x3ff0000000000000)
	U_FCMP_D(113, feq.d, 0, 0, 0x3ff0000000000000, 0x4000000000000000)
	U_FCMP_D(114, feq.d, 1, 0, 0x8000000000000000, 0x0000000000000000) /* -0 == +0 */
	U_FCMP_D(115, feq.d, 0, 0, 0x7ff8000000000000, 0x7ff8000000000000) /* quiet NaN: no flag */
	U_FCMP_D(116, feq.d, 0, U_NV, 0x7ff0000000000001, 0x3ff0000000000000) /* sNaN: invalid */
	U_FCMP_D(117, flt.d, 1, 0, 0x3ff0000000000000, 0x4000000000000000)
	U_FCMP_D(118, flt.d, 0, 0, 0x4000000000000000, 0x3ff0000000000000)
	U_FCMP_D(119, flt.d, 0, 0, 0x8000000000000000, 0x0000000000000000) /* -0 < +0 is false */
	U_FCMP_D(120, flt.d, 0, U_NV, 0x7ff8000000000000, 0x3ff0000000000000) /* any NaN: invalid */
	U_FCMP_D(121, fle.d, 1, 0, 0x3ff0000000000000, 0x3ff0000000000000)
	U_FCMP_D(122, fle.d, 0, 0, 0x4000000000000000, 0x3ff0000000000000)
	U_FCMP_D(123, fle.d, 1, 0, 0x0000000000000000, 0x8000000000000000) /* +0 <= -0 */
	U_FCMP_D(124, fle.d, 0, U_NV, 0x3ff0000000000000, 0x7ff8000000012345) /* any NaN: invalid */
	U_FCMP_D(125, fle.d, 0, U_NV, 0x7ff0000000000001, 0x7ff0000000000001)
	/* ---- fclass: all ten classes ---- */
	U_FCLASS_D(126, 0x1, 0xfff0000000000000) /* -inf */
	U_FCLASS_D(127, 0x2, 0xbff0000000000000) /* negative normal */
	U_FCLASS_D(128, 0x4, 0x800fffffffffffff) /* negative subnormal */
	U_FCLASS_D(129, 0x8, 0x8000000000000000) /* -0 */
	U_FCLASS_D(130, 0x10, 0x0000000000000000) /* +0 */
	U_FCLASS_D(131, 0x20, 0x0000000000000001) /* positive subnormal */
	U_FCLASS_D(132, 0x40, 0x0010000000000000) /* positive normal */
	U_FCLASS_D(133, 0x80, 0x7ff0000000000000) /* +inf */
	U_FCLASS_D(134, 0x100, 0x7ff0000000000001) /* signalling NaN */
	U_FCLASS_D(135, 0x100, 0xfff7ffffffffffff) /* signalling NaN, sign set, all payload bits */
	U_FCLASS_D(136, 0x200, 0x7ff8000000000000) /* quiet NaN */
	/* ---- fcvt to integer: rounding, saturation, NaN, sign extension ---- */
	U_FCVT_XD(137, fcvt.w.d, rne, 0xfffffffffffffff9, 0, 0xc01c000000000000) /* -7 */
	U_FCVT_XD(138, fcvt.w.d, rtz, 0xfffffffffffffffd, U_NX, 0xc00c000000000000) /* -3.5 rtz */
	U_FCVT_XD(139, fcvt.w.d, rne, 0x2, U_NX, 0x4004000000000000) /* 2.5 rne: tie to even */
	U_FCVT_XD(140, fcvt.w.d, rne, 0x7fffffff, U_NV, 0x41e0000000000000) /* 2^31: out of range */
	U_FCVT_XD(141, fcvt.w.d, rne, 0xffffffff80000000, 0, 0xc1e0000000000000) /* -2^31: in range */
	U_FCVT_XD(142, fcvt.w.d, rtz, 0xffffffff80000000, U_NV, 0xc1e0000000200000) /* below -2^31 */
	U_FCVT_XD(143, fcvt.w.d, rne, 0x7fffffff, U_NV, 0x7ff0000000000000) /* +inf */
	U_FCVT_XD(144, fcvt.w.d, rne, 0xffffffff80000000, U_NV, 0xfff0000000000000) /* -inf */
	U_FCVT_XD(145, fcvt.w.d, rne, 0x7fffffff, U_NV, 0x7ff8000000000000) /* NaN: largest positive */
	U_FCVT_XD(146, fcvt.w.d, rne, 0x7fffffff, U_NV, 0xfff8000000012345) /* negative NaN: largest positive too */
	U_FCVT_XD(147, fcvt.w.d, rne, 0x0, 0, 0x8000000000000000) /* -0 */
	U_FCVT_XD(148, fcvt.w.d, rtz, 0x0, U_NX, 0x0000000000000001) /* subnormal: inexact 0 */
	U_FCVT_XD(149, fcvt.wu.d, rne, 0xffffffffc0000000, 0, 0x41e8000000000000) /* 3*2^30: result sign-extended from bit 31 */
	U_FCVT_XD(150, fcvt.wu.d, rtz, 0xffffffffffffffff, 0, 0x41efffffffe00000) /* largest in range */
	U_FCVT_XD(151, fcvt.wu.d, rne, 0xffffffffffffffff, U_NV, 0x41f0000000000000) /* 2^32: out of range */
	U_FCVT_XD(152, fcvt.wu.d, rne, 0x0, U_NV, 0xbff0000000000000) /* -1: out of range, 0 */
	U_FCVT_XD(153, fcvt.wu.d, rtz, 0x0, U_NX, 0xbfe0000000000000) /* -0.5 rtz: 0, inexact only */
	U_FCVT_XD(154, fcvt.wu.d, rne, 0x0, U_NX, 0xbfe0000000000000) /* -0.5 rne: 0, inexact only */
	U_FCVT_XD(155, fcvt.wu.d, rdn, 0x0, U_NV, 0xbfe0000000000000) /* -0.5 rdn: -1 is out of range */
	U_FCVT_XD(156, fcvt.wu.d, rne, 0x0, U_NV, 0xfff0000000000000) /* -inf: 0 */
	U_FCVT_XD(157, fcvt.wu.d, rne, 0xffffffffffffffff, U_NV, 0x7ff0000000000000) /* +inf: all ones */
	U_FCVT_XD(158, fcvt.wu.d, rne, 0xffffffffffffffff, U_NV, 0x7ff8000000000000) /* NaN: all ones */
	U_FCVT_XD(159, fcvt.l.d, rne, 0xfffffeffffffffff, 0, 0xc270000000001000) /* large negative */
	U_FCVT_XD(160, fcvt.l.d, rne, 0x7fffffffffffffff, U_NV, 0x43e0000000000000) /* 2^63: out of range */
	U_FCVT_XD(161, fcvt.l.d, rne, 0x8000000000000000, 0, 0xc3e0000000000000) /* -2^63: in range */
	U_FCVT_XD(162, fcvt.l.d, rne, 0x8000000000000000, U_NV, 0xfff0000000000000) /* -inf */
	U_FCVT_XD(163, fcvt.l.d, rne, 0x7fffffffffffffff, U_NV, 0x7ff8000000012345) /* NaN */
	U_FCVT_XD(164, fcvt.lu.d, rne, 0xfffffffffffff800, 0, 0x43efffffffffffff) /* largest in range */
	U_FCVT_XD(165, fcvt.lu.d, rne, 0xffffffffffffffff, U_NV, 0x43f0000000000000) /* 2^64: out of range */
	U_FCVT_XD(166, fcvt.lu.d, rne, 0x0, U_NV, 0xc130000000000000) /* negative: 0 */
	U_FCVT_XD(167, fcvt.lu.d, rmm, 0x3, U_NX, 0x4004000000000000) /* 2.5 rmm */
	U_FCVT_XD(168, fcvt.lu.d, rne, 0xffffffffffffffff, U_NV, 0x7ff0000000000001) /* sNaN */
	/* ---- fcvt from integer ---- */
	U_FCVT_DXN(169, fcvt.d.w, 0x0000000000000000, 0, 0x0) /* 0 -> +0 */
	U_FCVT_DXN(170, fcvt.d.w, 0xc01c000000000000, 0, 0xfffffffffffffff9) /* -7 */
	U_FCVT_DXN(171, fcvt.d.w, 0x4024000000000000, 0, 0x123456780000000a) /* only the low 32 bits are used */
	U_FCVT_DXN(172, fcvt.d.w, 0xc1e0000000000000, 0, 0x80000000) /* INT32_MIN */
	U_FCVT_DXN(173, fcvt.d.w, 0x41dfffffffc00000, 0, 0x7fffffff) /* INT32_MAX */
	U_FCVT_DXN(174, fcvt.d.wu, 0x41efffffffe00000, 0, 0xffffffff) /* UINT32_MAX */
	U_FCVT_DXN(175, fcvt.d.wu, 0x41e0000000000000, 0, 0xffffffff80000000) /* low 32 bits, unsigned: 2^31 */
	U_FCVT_DX(176, fcvt.d.l, rne, 0xbff0000000000000, 0, 0xffffffffffffffff) /* -1 */
	U_FCVT_DX(177, fcvt.d.l, rne, 0xc3e0000000000000, 0, 0x8000000000000000) /* INT64_MIN */
	U_FCVT_DX(178, fcvt.d.l, rne, 0x43e0000000000000, U_NX, 0x7fffffffffffffff) /* INT64_MAX */
	U_FCVT_DX(179, fcvt.d.l, rne, 0x4340000000000000, U_NX, 0x20000000000001) /* 2^p + 1: tie to even */
	U_FCVT_DX(180, fcvt.d.l, rne, 0x4340000000000002, U_NX, 0x20000000000003) /* 2^p + 3: tie to even (up) */
	U_FCVT_DX(181, fcvt.d.lu, rne, 0x43f0000000000000, U_NX, 0xffffffffffffffff) /* UINT64_MAX */
	U_FCVT_DX(182, fcvt.d.lu, rdn, 0x43efffffffffffff, U_NX, 0xffffffffffffffff) /* UINT64_MAX rdn */
	U_FCVT_DX(183, fcvt.d.lu, rne, 0x43e0000000000000, 0, 0x8000000000000000) /* 2^63 */
	/* ---- static rounding modes: results differ between modes ---- */
	U_FOP2_D(184, fadd.d, rne, 0x3ff0000000000000, U_NX, 0x3ff0000000000000, 0x3ca0000000000000) /* 1 + half ulp (a tie) */
	U_FOP2_D(185, fadd.d, rtz, 0x3ff0000000000000, U_NX, 0x3ff0000000000000, 0x3ca0000000000000) /* 1 + half ulp (a tie) */
	U_FOP2_D(186, fadd.d, rdn, 0x3ff0000000000000, U_NX, 0x3ff0000000000000, 0x3ca0000000000000) /* 1 + half ulp (a tie) */
	U_FOP2_D(187, fadd.d, rup, 0x3ff0000000000001, U_NX, 0x3ff0000000000000, 0x3ca0000000000000) /* 1 + half ulp (a tie) */
	U_FOP2_D(188, fadd.d, rmm, 0x3ff0000000000001, U_NX, 0x3ff0000000000000, 0x3ca0000000000000) /* 1 + half ulp (a tie) */
	U_FOP2_D(189, fadd.d, rdn, 0xbff0000000000001, U_NX, 0xbff0000000000000, 0xbca0000000000000) /* -1 - half ulp (a tie) */
	U_FOP2_D(190, fadd.d, rmm, 0xbff0000000000001, U_NX, 0xbff0000000000000, 0xbca0000000000000) /* -1 - half ulp (a tie) */
	U_FOP2_D(191, fdiv.d, rne, 0xbfd5555555555555, U_NX, 0xbff0000000000000, 0x4008000000000000) /* -1/3 */
	U_FOP2_D(192, fdiv.d, rtz, 0xbfd5555555555555, U_NX, 0xbff0000000000000, 0x4008000000000000) /* -1/3 */
	U_FOP2_D(193, fdiv.d, rdn, 0xbfd5555555555556, U_NX, 0xbff0000000000000, 0x4008000000000000) /* -1/3 */
	U_FOP2_D(194, fdiv.d, rup, 0xbfd5555555555555, U_NX, 0xbff0000000000000, 0x4008000000000000) /* -1/3 */
	U_FOP2_D(195, fdiv.d, rmm, 0xbfd5555555555555, U_NX, 0xbff0000000000000, 0x4008000000000000) /* -1/3 */
	U_FOP2_D(196, fmul.d, rtz, 0x7fefffffffffffff, U_OF|U_NX, 0x7fefffffffffffff, 0x4000000000000000) /* overflow: inf or the largest finite */
	U_FOP2_D(197, fmul.d, rdn, 0x7fefffffffffffff, U_OF|U_NX, 0x7fefffffffffffff, 0x4000000000000000) /* overflow: inf or the largest finite */
	U_FOP3_D(198, fmadd.d, rtz, 0x3cc0000000000000, U_NX, 0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000000) /* 2 ulp + ulp^2 */
	U_FOP3_D(199, fmadd.d, rdn, 0x3cc0000000000000, U_NX, 0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000000) /* 2 ulp + ulp^2 */
	U_FOP3_D(200, fmadd.d, rup, 0x3cc0000000000001, U_NX, 0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000000) /* 2 ulp + ulp^2 */
	U_FOP3_D(201, fmadd.d, rmm, 0x3cc0000000000001, U_NX, 0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000000) /* 2 ulp + ulp^2 */
	U_FCVT_XD(202, fcvt.w.d, rne, 0xfffffffffffffffe, U_NX, 0xc004000000000000) /* -2.5 */
	U_FCVT_XD(203, fcvt.w.d, rtz, 0xfffffffffffffffe, U_NX, 0xc004000000000000) /* -2.5 */
	U_FCVT_XD(204, fcvt.w.d, rdn, 0xfffffffffffffffd, U_NX, 0xc004000000000000) /* -2.5 */
	U_FCVT_XD(205, fcvt.w.d, rup, 0xfffffffffffffffe, U_NX, 0xc004000000000000) /* -2.5 */
	U_FCVT_XD(206, fcvt.w.d, rmm, 0xfffffffffffffffd, U_NX, 0xc004000000000000) /* -2.5 */
	U_FCVT_DX(207, fcvt.d.l, rtz, 0x4340000000000000, U_NX, 0x20000000000001) /* 2^p + 1 (a tie) */
	U_FCVT_DX(208, fcvt.d.l, rdn, 0x4340000000000000, U_NX, 0x20000000000001) /* 2^p + 1 (a tie) */
	U_FCVT_DX(209, fcvt.d.l, rup, 0x4340000000000001, U_NX, 0x20000000000001) /* 2^p + 1 (a tie) */
	U_FCVT_DX(210, fcvt.d.l, rmm, 0x4340000000000001, U_NX, 0x20000000000001) /* 2^p + 1 (a tie) */
	/* ---- fcvt.s.d / fcvt.d.s ---- */
	U_CVT_SD(211, rne, 0x3f800000, 0, 0x3ff0000000000000) /* 1.0 */
	U_CVT_SD(212, rne, 0xbeaaaaab, U_NX, 0xbfd5555555555555) /* -1/3: inexact */
	U_CVT_SD(213, rne, 0x3f800000, U_NX, 0x3ff0000010000000) /* 1 + half a single ulp (a tie) */
	U_CVT_SD(214, rtz, 0x3f800000, U_NX, 0x3ff0000010000000) /* 1 + half a single ulp (a tie) */
	U_CVT_SD(215, rdn, 0x3f800000, U_NX, 0x3ff0000010000000) /* 1 + half a single ulp (a tie) */
	U_CVT_SD(216, rup, 0x3f800001, U_NX, 0x3ff0000010000000) /* 1 + half a single ulp (a tie) */
	U_CVT_SD(217, rmm, 0x3f800001, U_NX, 0x3ff0000010000000) /* 1 + half a single ulp (a tie) */
	U_CVT_SD(218, rne, 0x7f800000, U_OF|U_NX, 0x52b0000000000000) /* overflow */
	U_CVT_SD(219, rtz, 0xff7fffff, U_OF|U_NX, 0xd2b0000000000000) /* overflow, rtz: largest finite */
	U_CVT_SD(220, rne, 0x00000000, U_UF|U_NX, 0x2d30000000000000) /* underflow to zero */
	U_CVT_SD(221, rne, 0x00000200, 0, 0x3730000000000000) /* exact single subnormal */
	U_CVT_SD(222, rne, 0x00800000, U_NX, 0x380ffffff0000000) /* rounds up to the smallest normal: NX only */
	U_CVT_SD(223, rne, 0xff800000, 0, 0xfff0000000000000) /* -inf */
	U_CVT_SD(224, rne, 0x80000000, 0, 0x8000000000000000) /* -0 */
	U_CVT_SD(225, rne, 0x7fc00000, 0, 0x7ff8000123456789) /* quiet NaN: canonical single NaN */
	U_CVT_SD(226, rne, 0x7fc00000, U_NV, 0x7ff0000000000001) /* signalling NaN: invalid */
	U_CVT_DS(227, 0x3ff0000000000000, 0, 0x3f800000) /* 1.0 */
	U_CVT_DS(228, 0xbfd5555560000000, 0, 0xbeaaaaab) /* -1/3 (exact) */
	U_CVT_DS(229, 0x36a0000000000000, 0, 0x00000001) /* single subnormal: normal double */
	U_CVT_DS(230, 0x47efffffe0000000, 0, 0x7f7fffff) /* largest single */
	U_CVT_DS(231, 0xfff0000000000000, 0, 0xff800000) /* -inf */
	U_CVT_DS(232, 0x8000000000000000, 0, 0x80000000) /* -0 */
	U_CVT_DS(233, 0x7ff8000000000000, 0, 0xffc12345) /* quiet NaN: canonical double NaN */
	U_CVT_DS(234, 0x7ff8000000000000, U_NV, 0x7f800001) /* signalling NaN: invalid */

	/* ---- fflags accumulate, seen through fflags and fcsr ---- */
	fsflags x0
	U_NUM(235)
	U_LDD(f1, 0x3ff0000000000000)
	U_LDD(f2, 0x4008000000000000)
	fdiv.d f3, f1, f2	/* NX */
	frflags a0
	U_CHECKR(a0, U_NX)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX)
	U_NUM(236)
	U_LDD(f1, 0x0010000000000000)
	fmul.d f3, f1, f1	/* UF | NX */
	frflags a0
	U_CHECKR(a0, U_NX|U_UF)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX|U_UF)
	U_NUM(237)
	U_LDD(f1, 0x7fefffffffffffff)
	fmul.d f3, f1, f1	/* OF | NX */
	frflags a0
	U_CHECKR(a0, U_NX|U_UF|U_OF)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX|U_UF|U_OF)
	U_NUM(238)
	U_LDD(f1, 0xbff0000000000000)
	fmv.d.x f2, x0
	fdiv.d f3, f1, f2	/* DZ */
	frflags a0
	U_CHECKR(a0, U_NX|U_UF|U_OF|U_DZ)
	csrr a0, fcsr
	U_CHECKR(a0, U_NX|U_UF|U_OF|U_DZ)
	U_NUM(239)
	U_LDD(f1, 0x7ff0000000000001)
	feq.d a0, f1, f1	/* NV (signalling NaN) */
	frflags a0
	U_CHECKR(a0, 0x1f)
	li t0, 4
	fsrm t0
	csrr a0, fcsr
	U_CHECKR(a0, 0x9f)
	fsrm x0
	fsflags x0

	/* ---- dynamic rounding through frm ---- */
	U_DYN_D(240, 0, 0x3ff0000000000000, 0xbff0000000000000)
	U_DYN_D(241, 1, 0x3ff0000000000000, 0xbff0000000000000)
	U_DYN_D(242, 2, 0x3ff0000000000000, 0xbff0000000000001)
	U_DYN_D(243, 3, 0x3ff0000000000001, 0xbff0000000000000)
	U_DYN_D(244, 4, 0x3ff0000000000001, 0xbff0000000000001)
	U_TRAP_ARM
	li t0, 5
	fsrm t0
	U_TRAP_BEGIN(245)
1:	fsqrt.d f3, f1, dyn
	U_TRAP_CHECK(2, 1b)
	fsrm x0
	U_TRAP_DISARM

	PASS
U_TRAP_HANDLER
RVTEST_END

	.data
	.balign 8
u_ddat:
	.dword 0x400921fb54442d18, 0xbff0000000000000
	.word 0x3f800000, 0
u_dbuf:
	.dword 0, 0, 0
