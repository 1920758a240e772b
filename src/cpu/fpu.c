/* fpu.c - the F and D extensions: decode of FP loads, stores, fused
 * multiply-adds and OP-FP, on top of softfp.c's exact IEEE arithmetic.
 *
 * FP registers are 64 bits wide; a single-precision value lives NaN-boxed
 * (upper 32 bits all ones) and an operand that is not properly boxed reads
 * as the canonical NaN. Every instruction needs mstatus.FS != Off, and every
 * write to an FP register or to fflags marks FS Dirty. An instruction with
 * an rm field validates it, DYN included, even when the result is exact
 * (as QEMU does). */
#include <math.h>

#include "cpu_internal.h"
#include "softfp.h"

#define BOX32 0xffffffff00000000ULL

static uint64_t unbox32(uint64_t v)
{
	return (v & BOX32) == BOX32 ? (uint32_t)v : SF32_NAN;
}

/* Operand `r` in format d (0 = single, 1 = double). */
static uint64_t freg(const struct cpu *c, int r, int d)
{
	return d ? c->f[r] : unbox32(c->f[r]);
}

static void fset(struct cpu *c, int r, int d, uint64_t v)
{
	c->f[r] = d ? v : (BOX32 | (uint32_t)v);
	csr_fs_dirty(c);
}

static uint64_t sext32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)v;
}

static bool fp_illegal(struct cpu *c)
{
	cpu_exception(c, EXC_ILLEGAL, c->raw_insn);
	return false;
}

/* The rounding mode of this instruction, or -1 if reserved. */
static int resolve_rm(const struct cpu *c, uint32_t insn)
{
	int rm = (insn >> 12) & 7;
	if (rm == 7)
		rm = (int)c->csr.frm;
	return rm <= SF_RMM ? rm : -1;
}

static void raise_flags(struct cpu *c, unsigned fl)
{
	if (fl) {
		c->csr.fflags |= fl;
		csr_fs_dirty(c);
	}
}

static bool fp_load(struct cpu *c, uint32_t insn)
{
	int f3 = (insn >> 12) & 7;
	if (f3 != 2 && f3 != 3)
		return fp_illegal(c);
	uint64_t va = c->x[(insn >> 15) & 31] + ((int64_t)(int32_t)insn >> 20), v;
	if (!cpu_load(c, va, f3 == 2 ? 4 : 8, &v))
		return false;
	fset(c, (insn >> 7) & 31, f3 == 3, v);
	return true;
}

static bool fp_store(struct cpu *c, uint32_t insn)
{
	int f3 = (insn >> 12) & 7;
	if (f3 != 2 && f3 != 3)
		return fp_illegal(c);
	uint64_t imm = (uint64_t)((int64_t)(int32_t)insn >> 25) << 5 | ((insn >> 7) & 31);
	uint64_t va = c->x[(insn >> 15) & 31] + imm;
	return cpu_store(c, va, f3 == 2 ? 4 : 8, c->f[(insn >> 20) & 31]);
}

/* ---- The host fast path ----
 * QEMU's "hardfloat" observation: once the guest's inexact flag is set, an
 * operation in RNE on zero-or-normal operands whose host result is a normal
 * number clear of the subnormal range can raise no flag but NX, so the host
 * FPU's result is exactly the IEEE one and fflags need no update. Anything
 * else (other rounding modes, special operands or results, possible
 * underflow, overflow, division by zero, sqrt of a negative) goes to softfp.
 * The host stays in its default RNE mode, and -std=c17 keeps GCC from
 * contracting a*b+c into a fused operation. */

/* The exponent field of a format-d value (d: 0 single, 1 double). */
static unsigned exponent(uint64_t v, int d)
{
	return d ? (v >> 52) & 0x7ff : (v >> 23) & 0xff;
}

static unsigned exponent_max(int d)
{
	return d ? 0x7ff : 0xff;
}

/* Zero or normal. */
static bool plain(uint64_t v, int d)
{
	unsigned e = exponent(v, d);
	uint64_t magnitude = d ? v << 1 : (uint64_t)((uint32_t)v << 1);
	return e != exponent_max(d) && (e != 0 || !magnitude);
}

/* Normal, finite, and at least twice the smallest normal. */
static bool safe(uint64_t r, int d)
{
	unsigned e = exponent(r, d);
	return e > 1 && e != exponent_max(d);
}

static bool hard_ok(const struct cpu *c, int rm)
{
	return rm == SF_RNE && (c->csr.fflags & SF_NX);
}

/* The host's operation in one format T (U its bits): add, sub, mul, div or
 * sqrt (op as funct7 >> 2 << 2), and fma; false when the operands or the
 * result fall outside what the fast path may take. */
#define DEFINE_HARD(T, U, D, SQRT, FMA)                                                            \
	static bool hard_arith_##T(int op, uint64_t a, uint64_t b, uint64_t *r)                    \
	{                                                                                          \
		U ab = (U)a, bb = (U)b, zb;                                                        \
		T x, y, z;                                                                         \
		if (!plain(a, D) || !plain(b, D))                                                  \
			return false;                                                              \
		memcpy(&x, &ab, sizeof(x));                                                        \
		memcpy(&y, &bb, sizeof(y));                                                        \
		switch (op) {                                                                      \
		case 0x00: z = x + y; break;                                                       \
		case 0x04: z = x - y; break;                                                       \
		case 0x08: z = x * y; break;                                                       \
		case 0x0c:                                                                         \
			if (y == 0)                                                                \
				return false;                                                      \
			z = x / y;                                                                 \
			break;                                                                     \
		default:                                                                           \
			if (x < 0)                                                                 \
				return false;                                                      \
			z = SQRT(x);                                                               \
			break;                                                                     \
		}                                                                                  \
		memcpy(&zb, &z, sizeof(z));                                                        \
		*r = zb;                                                                           \
		return safe(zb, D);                                                                \
	}                                                                                          \
	static bool hard_fma_##T(uint64_t a, uint64_t b, uint64_t s, uint64_t *r)                  \
	{                                                                                          \
		U ab = (U)a, bb = (U)b, sb = (U)s, zb;                                             \
		T x, y, w, z;                                                                      \
		if (!plain(a, D) || !plain(b, D) || !plain(s, D))                                  \
			return false;                                                              \
		memcpy(&x, &ab, sizeof(x));                                                        \
		memcpy(&y, &bb, sizeof(y));                                                        \
		memcpy(&w, &sb, sizeof(w));                                                        \
		z = FMA(x, y, w);                                                                  \
		memcpy(&zb, &z, sizeof(z));                                                        \
		*r = zb;                                                                           \
		return safe(zb, D);                                                                \
	}

DEFINE_HARD(double, uint64_t, 1, sqrt, fma)
DEFINE_HARD(float, uint32_t, 0, sqrtf, fmaf)

static bool hard_arith(int op, int d, uint64_t a, uint64_t b, uint64_t *r)
{
	return d ? hard_arith_double(op, a, b, r) : hard_arith_float(op, a, b, r);
}

static bool hard_fma(int d, uint64_t a, uint64_t b, uint64_t s, uint64_t *r)
{
	return d ? hard_fma_double(a, b, s, r) : hard_fma_float(a, b, s, r);
}

static bool fp_fma(struct cpu *c, uint32_t insn)
{
	int d = (insn >> 25) & 3, rm = resolve_rm(c, insn);
	if (d > 1 || rm < 0)
		return fp_illegal(c);
	uint64_t sign = d ? 1ULL << 63 : 1ULL << 31;
	uint64_t a = freg(c, (insn >> 15) & 31, d), b = freg(c, (insn >> 20) & 31, d);
	uint64_t s = freg(c, insn >> 27, d);
	switch (insn & 0x7f) {
	case 0x47: s ^= sign; break;		/* fmsub: a*b - c */
	case 0x4b: a ^= sign; break;		/* fnmsub: -(a*b) + c */
	case 0x4f: a ^= sign, s ^= sign; break; /* fnmadd: -(a*b) - c */
	default: break;
	}
	unsigned fl = 0;
	uint64_t r;
	if (!hard_ok(c, rm) || !hard_fma(d, a, b, s, &r))
		r = d ? sf64_fma(a, b, s, rm, &fl)
		      : sf32_fma((uint32_t)a, (uint32_t)b, (uint32_t)s, rm, &fl);
	raise_flags(c, fl);
	fset(c, (insn >> 7) & 31, d, r);
	return true;
}

static uint64_t arith(int op, int d, uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
	switch (op) {
	case 0x00: return d ? sf64_add(a, b, rm, fl) : sf32_add(a32, b32, rm, fl);
	case 0x04: return d ? sf64_sub(a, b, rm, fl) : sf32_sub(a32, b32, rm, fl);
	case 0x08: return d ? sf64_mul(a, b, rm, fl) : sf32_mul(a32, b32, rm, fl);
	case 0x0c: return d ? sf64_div(a, b, rm, fl) : sf32_div(a32, b32, rm, fl);
	default: return d ? sf64_sqrt(a, rm, fl) : sf32_sqrt(a32, rm, fl);
	}
}

static uint64_t sign_inject(int f3, int d, uint64_t a, uint64_t b, bool *ok)
{
	uint64_t sign = d ? 1ULL << 63 : 1ULL << 31;
	*ok = true;
	switch (f3) {
	case 0: return (a & ~sign) | (b & sign);
	case 1: return (a & ~sign) | (~b & sign);
	case 2: return a ^ (b & sign);
	default: *ok = false; return 0;
	}
}

static bool compare(int f3, int d, uint64_t a, uint64_t b, unsigned *fl, uint64_t *out)
{
	uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
	switch (f3) {
	case 2: *out = d ? sf64_eq(a, b, fl) : sf32_eq(a32, b32, fl); return true;
	case 1: *out = d ? sf64_lt(a, b, fl) : sf32_lt(a32, b32, fl); return true;
	case 0: *out = d ? sf64_le(a, b, fl) : sf32_le(a32, b32, fl); return true;
	default: return false;
	}
}

/* fcvt.{w,wu,l,lu}.{s,d}: kind = rs2 field. */
static uint64_t to_int(int kind, int d, uint64_t a, int rm, unsigned *fl)
{
	uint32_t a32 = (uint32_t)a;
	switch (kind) {
	case 0: return sext32((uint32_t)(d ? sf64_to_i32(a, rm, fl) : sf32_to_i32(a32, rm, fl)));
	case 1: return sext32(d ? sf64_to_u32(a, rm, fl) : sf32_to_u32(a32, rm, fl));
	case 2: return (uint64_t)(d ? sf64_to_i64(a, rm, fl) : sf32_to_i64(a32, rm, fl));
	default: return d ? sf64_to_u64(a, rm, fl) : sf32_to_u64(a32, rm, fl);
	}
}

/* fcvt.{s,d}.{w,wu,l,lu}: kind = rs2 field. */
static uint64_t from_int(int kind, int d, uint64_t x, int rm, unsigned *fl)
{
	switch (kind) {
	case 0: return d ? sf64_from_i32((int32_t)x, rm, fl) : sf32_from_i32((int32_t)x, rm, fl);
	case 1: return d ? sf64_from_u32((uint32_t)x, rm, fl) : sf32_from_u32((uint32_t)x, rm, fl);
	case 2: return d ? sf64_from_i64((int64_t)x, rm, fl) : sf32_from_i64((int64_t)x, rm, fl);
	default: return d ? sf64_from_u64(x, rm, fl) : sf32_from_u64(x, rm, fl);
	}
}

/* Results of OP-FP go to an FP register (fset) or an integer one (xset). */
struct fp_result {
	uint64_t v;
	bool to_x;
};

static bool op_fp_rounded(struct cpu *c, uint32_t insn, int f7, int d, struct fp_result *r,
			  unsigned *fl)
{
	int rm = resolve_rm(c, insn), rs2 = (insn >> 20) & 31;
	uint64_t a = freg(c, (insn >> 15) & 31, d);
	if (rm < 0)
		return false;
	switch (f7 >> 2) {
	case 0x00:
	case 0x01:
	case 0x02:
	case 0x03:
	case 0x0b: {
		int op = f7 & ~3;
		uint64_t b = op == 0x2c ? 0 : freg(c, rs2, d);
		if (op == 0x2c && rs2)
			return false;
		bool hard = hard_ok(c, rm) && hard_arith(op, d, a, b, &r->v);
		if (!hard)
			r->v = arith(op, d, a, b, rm, fl);
		return true;
	}
	case 0x08: /* fcvt.s.d (d == 0, rs2 == 1) and fcvt.d.s (d == 1, rs2 == 0) */
		if (rs2 != !d)
			return false;
		r->v = d ? sf32_to_f64((uint32_t)freg(c, (insn >> 15) & 31, 0), fl)
			 : sf64_to_f32(freg(c, (insn >> 15) & 31, 1), rm, fl);
		return true;
	case 0x18:
		if (rs2 > 3)
			return false;
		r->v = to_int(rs2, d, a, rm, fl);
		r->to_x = true;
		return true;
	case 0x1a:
		if (rs2 > 3)
			return false;
		r->v = from_int(rs2, d, c->x[(insn >> 15) & 31], rm, fl);
		return true;
	default: return false;
	}
}

static bool op_fp_unrounded(struct cpu *c, uint32_t insn, int f7, int d, struct fp_result *r,
			    unsigned *fl)
{
	int f3 = (insn >> 12) & 7, rs1 = (insn >> 15) & 31, rs2 = (insn >> 20) & 31;
	uint64_t a = freg(c, rs1, d), b = freg(c, rs2, d);
	bool ok = true;
	switch (f7 >> 2) {
	case 0x04: r->v = sign_inject(f3, d, a, b, &ok); return ok;
	case 0x05:
		if (f3 > 1)
			return false;
		if (d)
			r->v = f3 ? sf64_max(a, b, fl) : sf64_min(a, b, fl);
		else
			r->v = f3 ? sf32_max((uint32_t)a, (uint32_t)b, fl)
				  : sf32_min((uint32_t)a, (uint32_t)b, fl);
		return true;
	case 0x14: r->to_x = true; return compare(f3, d, a, b, fl, &r->v);
	case 0x1c:
		if (rs2)
			return false;
		r->to_x = true;
		if (f3 == 0) /* fmv.x.w / fmv.x.d: raw bits, no unboxing */
			r->v = d ? c->f[rs1] : sext32(c->f[rs1]);
		else if (f3 == 1)
			r->v = d ? sf64_classify(a) : sf32_classify((uint32_t)a);
		else
			return false;
		return true;
	case 0x1e: /* fmv.w.x / fmv.d.x */
		if (rs2 || f3)
			return false;
		r->v = c->x[rs1];
		return true;
	default: return false;
	}
}

static bool op_fp(struct cpu *c, uint32_t insn)
{
	int f7 = insn >> 25, d = f7 & 3, rd = (insn >> 7) & 31;
	struct fp_result r = {0, false};
	unsigned fl = 0;
	if (d > 1)
		return fp_illegal(c);
	static const bool rounded[32] = {[0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1,
					 [0x0b] = 1, [0x08] = 1, [0x18] = 1, [0x1a] = 1};
	bool ok = rounded[f7 >> 2] ? op_fp_rounded(c, insn, f7, d, &r, &fl)
				   : op_fp_unrounded(c, insn, f7, d, &r, &fl);
	if (!ok)
		return fp_illegal(c);
	raise_flags(c, fl);
	if (r.to_x) {
		if (rd)
			c->x[rd] = r.v;
	} else {
		fset(c, rd, d, r.v);
	}
	return true;
}

bool fpu_exec(struct cpu *c, uint32_t insn)
{
	if (!csr_fs_enabled(c))
		return fp_illegal(c);
	switch (insn & 0x7f) {
	case 0x07: return fp_load(c, insn);
	case 0x27: return fp_store(c, insn);
	case 0x53: return op_fp(c, insn);
	default: return fp_fma(c, insn);
	}
}
