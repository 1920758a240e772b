/* softfp.c - software IEEE 754 binary32/binary64 arithmetic with RISC-V F/D semantics.
 *
 * This is the arithmetic core under the emulated hart's FPU (see softfp.h for
 * the contract). It uses integer arithmetic only, so results and flags are
 * bit-exact whatever the host is, and it keeps no state.
 *
 * How it works: an operand is unpacked into sign, class and, when finite and
 * nonzero, an exact value sig * 2^exp with an integer significand. Each
 * operation handles NaN/inf/zero operands by the IEEE and RISC-V rules, then
 * computes the finite result exactly in 64/128-bit integers (or, for add,
 * div and sqrt, exactly enough: bits shifted out are "jammed" into bit 0 as
 * a sticky bit) and hands it to round_pack(), the single routine that rounds
 * in all five modes, produces subnormals, overflows to inf or max-finite,
 * and raises NX/UF/OF. Both formats share all code through a small format
 * descriptor; the public sf32_xxx/sf64_xxx functions are thin wrappers. */
#include "softfp.h"

__extension__ typedef unsigned __int128 u128; /* GCC/Clang extension */

/* An IEEE binary interchange format: field widths of exponent and fraction. */
typedef struct {
	int ebits;
	int fbits; /* precision p = fbits + 1 */
} fmt_t;

static const fmt_t F32 = {8, 23};
static const fmt_t F64 = {11, 52};

static int bias(const fmt_t *f)
{
	return (1 << (f->ebits - 1)) - 1;
}

static int exp_all_ones(const fmt_t *f)
{
	return (1 << f->ebits) - 1;
}

static uint64_t sign_bit(const fmt_t *f, int sign)
{
	return (uint64_t)(sign != 0) << (f->ebits + f->fbits);
}

static uint64_t frac_mask(const fmt_t *f)
{
	return (1ull << f->fbits) - 1;
}

static uint64_t inf_bits(const fmt_t *f, int sign)
{
	return sign_bit(f, sign) | (uint64_t)exp_all_ones(f) << f->fbits;
}

static uint64_t max_finite(const fmt_t *f, int sign)
{
	return inf_bits(f, sign) - 1;
}

static uint64_t zero_bits(const fmt_t *f, int sign)
{
	return sign_bit(f, sign);
}

static uint64_t canonical_nan(const fmt_t *f)
{
	return inf_bits(f, 0) | 1ull << (f->fbits - 1);
}

/* ---- Unpacking ---------------------------------------------------------- */

enum { C_ZERO, C_FINITE, C_INF, C_QNAN, C_SNAN };

typedef struct {
	int sign;
	int cls;      /* C_xxx */
	int exp;      /* C_FINITE: the value is sig * 2^exp */
	uint64_t sig; /* C_FINITE: nonzero */
} unpacked;

static unpacked unpack(const fmt_t *f, uint64_t x)
{
	unpacked u = {0, C_FINITE, 0, 0};
	int e = (int)(x >> f->fbits) & exp_all_ones(f);
	uint64_t frac = x & frac_mask(f);

	u.sign = (x >> (f->ebits + f->fbits)) & 1;
	if (e == exp_all_ones(f)) {
		if (frac == 0)
			u.cls = C_INF;
		else
			u.cls = (frac >> (f->fbits - 1)) & 1 ? C_QNAN : C_SNAN;
	} else if (e == 0 && frac == 0) {
		u.cls = C_ZERO;
	} else {
		/* Subnormals share the exponent of the smallest normal binade. */
		u.sig = e ? frac | 1ull << f->fbits : frac;
		u.exp = (e ? e : 1) - bias(f) - f->fbits;
	}
	return u;
}

static int is_nan(const unpacked *u)
{
	return u->cls == C_QNAN || u->cls == C_SNAN;
}

/* Any NaN result: the canonical NaN, with NV if an input was signaling. */
static uint64_t nan_result(const fmt_t *f, int invalid, unsigned *fl)
{
	if (invalid)
		*fl |= SF_NV;
	return canonical_nan(f);
}

/* ---- Wide-integer helpers ---------------------------------------------- */

static int clz128(u128 x) /* x != 0 */
{
	uint64_t hi = (uint64_t)(x >> 64);
	return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)x);
}

static int msb128(u128 x) /* x != 0 */
{
	return 127 - clz128(x);
}

/* x >> n, OR-ing any bits shifted out into bit 0 (the sticky bit). */
static u128 shift_right_jam(u128 x, int n)
{
	if (n == 0)
		return x;
	if (n >= 128)
		return x != 0;
	return (x >> n) | ((x & (((u128)1 << n) - 1)) != 0);
}

/* Floor of the square root of n, with the remainder n - r*r in *rem. */
static uint64_t isqrt128(u128 n, u128 *rem)
{
	u128 r = 0, bit = (u128)1 << 126;

	while (bit > n)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (n >= r + bit) {
			n -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	*rem = n;
	return (uint64_t)r;
}

/* ---- Rounding ---------------------------------------------------------- */

/* Round x / 2^shift to an integer in mode rm, for a value of sign `sign`.
 * *inexact reports whether any nonzero bits were discarded. */
static u128 round_shift(u128 x, int shift, int sign, int rm, int *inexact)
{
	u128 q = 0, rem = x;
	int cmp = -1; /* rem compared with half a unit of q: -1, 0, +1 */
	int up;

	if (shift <= 0) {
		*inexact = 0;
		return x << -shift;
	}
	if (shift < 128) {
		q = x >> shift;
		rem = x & (((u128)1 << shift) - 1);
	}
	if (shift <= 128) {
		u128 half = (u128)1 << (shift - 1);
		cmp = (rem > half) - (rem < half);
	}
	*inexact = rem != 0;
	if (rem == 0)
		return q;
	switch (rm) {
	case SF_RTZ: up = 0; break;
	case SF_RDN: up = sign; break;
	case SF_RUP: up = !sign; break;
	case SF_RMM: up = cmp >= 0; break;
	default: up = cmp > 0 || (cmp == 0 && (q & 1)); break; /* SF_RNE */
	}
	return up ? q + 1 : q;
}

/* Underflow tininess, detected after rounding as RISC-V (and x86) do: is
 * the value below 2^emin even when rounded to p bits with an unbounded
 * exponent range? sig has its leading one at bit 126 and the value lies in
 * [2^e, 2^(e+1)); only the binade just below 2^emin can round up out of it. */
static int tiny_after_rounding(const fmt_t *f, int e, u128 sig, int sign, int rm)
{
	const int p = f->fbits + 1, emin = 1 - bias(f);
	int inexact;

	if (e != emin - 1)
		return e < emin;
	return (round_shift(sig, 126 - (p - 1), sign, rm, &inexact) >> p) == 0;
}

/* Round the value (-1)^sign * sig * 2^exp to format f and pack it.
 *
 * sig may carry a sticky bit in bit 0 (a stand-in for discarded nonzero
 * bits) provided it has at least p + 2 significant bits, so the sticky bit
 * stays below the rounding position. A zero sig gives a signed zero. */
static uint64_t round_pack(const fmt_t *f, int sign, int exp, u128 sig, int rm, unsigned *fl)
{
	const int p = f->fbits + 1, emin = 1 - bias(f), emax = bias(f);
	int lead, e, re, inexact;
	uint64_t m;

	if (sig == 0)
		return zero_bits(f, sign);

	/* Normalize so the leading one is at bit 126 (keeps bit 127 free). */
	lead = msb128(sig);
	if (lead == 127) {
		sig = shift_right_jam(sig, 1);
		exp++;
	} else {
		sig <<= 126 - lead;
		exp -= 126 - lead;
	}
	e = exp + 126;		  /* the value lies in [2^e, 2^(e+1)) */
	re = e < emin ? emin : e; /* exponent of the result's leading digit */

	m = (uint64_t)round_shift(sig, re - (p - 1) - exp, sign, rm, &inexact);
	if (m >> p) { /* rounding carried into the next binade */
		m >>= 1;
		re++;
	}

	if (re > emax) {
		int to_inf = rm == SF_RNE || rm == SF_RMM || (rm == SF_RDN && sign) ||
			     (rm == SF_RUP && !sign);
		*fl |= SF_OF | SF_NX;
		return to_inf ? inf_bits(f, sign) : max_finite(f, sign);
	}
	if (inexact) {
		*fl |= SF_NX;
		if (tiny_after_rounding(f, e, sig, sign, rm))
			*fl |= SF_UF;
	}
	if (m >> (p - 1))
		return sign_bit(f, sign) | (uint64_t)(re + bias(f)) << f->fbits |
		       (m & frac_mask(f));
	return sign_bit(f, sign) | m; /* subnormal or zero */
}

/* ---- Arithmetic ---------------------------------------------------------- */

/* Move the leading one of a nonzero sig of at most 126 bits to bit 125. */
static void normalize125(int *exp, u128 *sig)
{
	int n = 125 - msb128(*sig);
	*sig <<= n;
	*exp -= n;
}

/* Round (-1)^sa * ma * 2^ea + (-1)^sb * mb * 2^eb, both nonzero and of at
 * most 106 bits. After aligning both at bit 125, the smaller exponent's
 * operand is shifted right with a sticky bit; when that loses bits the
 * exponents differ by more than 20, so the result still has its leading one
 * at bit 124 or above, far above the sticky bit. */
static uint64_t add_exact(const fmt_t *f, int sa, int ea, u128 ma, int sb, int eb, u128 mb, int rm,
			  unsigned *fl)
{
	normalize125(&ea, &ma);
	normalize125(&eb, &mb);
	if (ea < eb) {
		int ts = sa, te = ea;
		u128 tm = ma;
		sa = sb, ea = eb, ma = mb;
		sb = ts, eb = te, mb = tm;
	}
	mb = shift_right_jam(mb, ea - eb);

	if (sa == sb)
		return round_pack(f, sa, ea, ma + mb, rm, fl);
	if (ma == mb) /* exact cancellation */
		return zero_bits(f, rm == SF_RDN);
	if (ma > mb)
		return round_pack(f, sa, ea, ma - mb, rm, fl);
	return round_pack(f, sb, ea, mb - ma, rm, fl);
}

static uint64_t fadd(const fmt_t *f, uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);

	if (is_nan(&x) || is_nan(&y))
		return nan_result(f, x.cls == C_SNAN || y.cls == C_SNAN, fl);
	if (x.cls == C_INF && y.cls == C_INF && x.sign != y.sign)
		return nan_result(f, 1, fl);
	if (x.cls == C_INF)
		return a;
	if (y.cls == C_INF)
		return b;
	if (x.cls == C_ZERO && y.cls == C_ZERO)
		return x.sign == y.sign ? a : zero_bits(f, rm == SF_RDN);
	if (x.cls == C_ZERO)
		return b;
	if (y.cls == C_ZERO)
		return a;
	return add_exact(f, x.sign, x.exp, x.sig, y.sign, y.exp, y.sig, rm, fl);
}

static uint64_t fmul(const fmt_t *f, uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);
	int sign = x.sign ^ y.sign;

	if (is_nan(&x) || is_nan(&y))
		return nan_result(f, x.cls == C_SNAN || y.cls == C_SNAN, fl);
	if (x.cls == C_INF || y.cls == C_INF) {
		if (x.cls == C_ZERO || y.cls == C_ZERO)
			return nan_result(f, 1, fl);
		return inf_bits(f, sign);
	}
	if (x.cls == C_ZERO || y.cls == C_ZERO)
		return zero_bits(f, sign);
	return round_pack(f, sign, x.exp + y.exp, (u128)x.sig * y.sig, rm, fl);
}

static uint64_t fdiv(const fmt_t *f, uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);
	int sign = x.sign ^ y.sign, nx, ny;
	u128 q, num;

	if (is_nan(&x) || is_nan(&y))
		return nan_result(f, x.cls == C_SNAN || y.cls == C_SNAN, fl);
	if (x.cls == C_INF)
		return y.cls == C_INF ? nan_result(f, 1, fl) : inf_bits(f, sign);
	if (y.cls == C_INF)
		return zero_bits(f, sign);
	if (y.cls == C_ZERO) {
		if (x.cls == C_ZERO)
			return nan_result(f, 1, fl);
		*fl |= SF_DZ;
		return inf_bits(f, sign);
	}
	if (x.cls == C_ZERO)
		return zero_bits(f, sign);

	/* Both significands get their leading one at bit 63, so the quotient
	 * of (x.sig << 64) / y.sig has 64 or 65 bits; the remainder becomes
	 * the sticky bit. */
	nx = __builtin_clzll(x.sig);
	ny = __builtin_clzll(y.sig);
	num = (u128)(x.sig << nx) << 64;
	q = num / (y.sig << ny);
	q |= num % (y.sig << ny) != 0;
	return round_pack(f, sign, (x.exp - nx - 64) - (y.exp - ny), q, rm, fl);
}

static uint64_t fsqrt(const fmt_t *f, uint64_t a, int rm, unsigned *fl)
{
	unpacked x = unpack(f, a);
	int shift;
	uint64_t r;
	u128 rem;

	if (is_nan(&x))
		return nan_result(f, x.cls == C_SNAN, fl);
	if (x.cls == C_ZERO)
		return a; /* sqrt(-0) = -0 */
	if (x.sign)
		return nan_result(f, 1, fl);
	if (x.cls == C_INF)
		return a;

	/* Scale the significand to 125 or 126 bits with an even exponent;
	 * its integer square root then has 63 significant bits. */
	shift = 124 - (63 - __builtin_clzll(x.sig));
	if ((x.exp - shift) & 1)
		shift++;
	r = isqrt128((u128)x.sig << shift, &rem);
	return round_pack(f, 0, (x.exp - shift) / 2, r | (rem != 0), rm, fl);
}

static uint64_t ffma(const fmt_t *f, uint64_t a, uint64_t b, uint64_t c, int rm, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b), z = unpack(f, c);
	int sp = x.sign ^ y.sign; /* sign of the product */
	int inf_times_zero =
	    (x.cls == C_INF && y.cls == C_ZERO) || (x.cls == C_ZERO && y.cls == C_INF);

	/* RISC-V raises NV for inf*0 even when c is a quiet NaN. */
	if (is_nan(&x) || is_nan(&y) || is_nan(&z) || inf_times_zero) {
		int snan = x.cls == C_SNAN || y.cls == C_SNAN || z.cls == C_SNAN;
		return nan_result(f, snan || inf_times_zero, fl);
	}
	if (x.cls == C_INF || y.cls == C_INF) {
		if (z.cls == C_INF && z.sign != sp)
			return nan_result(f, 1, fl);
		return inf_bits(f, sp);
	}
	if (z.cls == C_INF)
		return c;
	if (x.cls == C_ZERO || y.cls == C_ZERO) {
		if (z.cls != C_ZERO)
			return c;
		return sp == z.sign ? zero_bits(f, sp) : zero_bits(f, rm == SF_RDN);
	}
	if (z.cls == C_ZERO)
		return round_pack(f, sp, x.exp + y.exp, (u128)x.sig * y.sig, rm, fl);
	return add_exact(f, sp, x.exp + y.exp, (u128)x.sig * y.sig, z.sign, z.exp, z.sig, rm, fl);
}

/* ---- Comparisons and classification ----------------------------------- */

/* a < b for non-NaN bit patterns, ordering -0 below +0. */
static int less_or_negzero(const fmt_t *f, uint64_t a, uint64_t b)
{
	int sa = (a & sign_bit(f, 1)) != 0, sb = (b & sign_bit(f, 1)) != 0;

	if (sa != sb)
		return sa;
	return sa ? a > b : a < b; /* sign-magnitude: compare magnitudes */
}

static int both_zero(const fmt_t *f, uint64_t a, uint64_t b)
{
	return ((a | b) & ~sign_bit(f, 1)) == 0;
}

static uint64_t fminmax(const fmt_t *f, uint64_t a, uint64_t b, int want_max, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);

	if (x.cls == C_SNAN || y.cls == C_SNAN)
		*fl |= SF_NV;
	if (is_nan(&x) && is_nan(&y))
		return canonical_nan(f);
	if (is_nan(&x))
		return b;
	if (is_nan(&y))
		return a;
	return less_or_negzero(f, a, b) != want_max ? a : b;
}

static int feq(const fmt_t *f, uint64_t a, uint64_t b, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);

	if (is_nan(&x) || is_nan(&y)) {
		if (x.cls == C_SNAN || y.cls == C_SNAN)
			*fl |= SF_NV;
		return 0;
	}
	return a == b || both_zero(f, a, b);
}

static int flt(const fmt_t *f, uint64_t a, uint64_t b, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);

	if (is_nan(&x) || is_nan(&y)) {
		*fl |= SF_NV;
		return 0;
	}
	return !both_zero(f, a, b) && less_or_negzero(f, a, b);
}

static int fle(const fmt_t *f, uint64_t a, uint64_t b, unsigned *fl)
{
	unpacked x = unpack(f, a), y = unpack(f, b);

	if (is_nan(&x) || is_nan(&y)) {
		*fl |= SF_NV;
		return 0;
	}
	return a == b || both_zero(f, a, b) || less_or_negzero(f, a, b);
}

/* fclass: bit 0 -inf, 1 -normal, 2 -subnormal, 3 -0, 4 +0, 5 +subnormal,
 * 6 +normal, 7 +inf, 8 signaling NaN, 9 quiet NaN. */
static unsigned fclass(const fmt_t *f, uint64_t a)
{
	unpacked x = unpack(f, a);
	int normal = ((a >> f->fbits) & (uint64_t)exp_all_ones(f)) != 0;

	switch (x.cls) {
	case C_SNAN: return 1u << 8;
	case C_QNAN: return 1u << 9;
	case C_INF: return x.sign ? 1u << 0 : 1u << 7;
	case C_ZERO: return x.sign ? 1u << 3 : 1u << 4;
	default:
		if (normal)
			return x.sign ? 1u << 1 : 1u << 6;
		return x.sign ? 1u << 2 : 1u << 5;
	}
}

/* ---- Conversions --------------------------------------------------------- */

/* Convert to a `width`-bit integer, signed or not, saturating out-of-range
 * inputs with NV (and no NX). The result is returned as 64-bit two's
 * complement; callers truncate it to their width. */
static uint64_t to_int(const fmt_t *f, uint64_t a, int rm, int is_signed, int width, unsigned *fl)
{
	unpacked x = unpack(f, a);
	uint64_t max = is_signed ? (1ull << (width - 1)) - 1 : ~0ull >> (64 - width);
	uint64_t min = is_signed ? -(1ull << (width - 1)) : 0;
	uint64_t neg_limit = is_signed ? 1ull << (width - 1) : 0; /* largest |negative| */
	int inexact;
	u128 mag;

	if (is_nan(&x)) {
		*fl |= SF_NV;
		return max;
	}
	if (x.cls == C_ZERO)
		return 0;
	if (x.cls == C_INF || x.exp > 64) {
		*fl |= SF_NV;
		return x.sign ? min : max;
	}
	mag = round_shift(x.sig, -x.exp, x.sign, rm, &inexact);
	if (!x.sign && mag > max) {
		*fl |= SF_NV;
		return max;
	}
	if (x.sign && mag > neg_limit) {
		*fl |= SF_NV;
		return min;
	}
	if (inexact)
		*fl |= SF_NX;
	return x.sign ? -(uint64_t)mag : (uint64_t)mag;
}

static uint64_t from_int(const fmt_t *f, int sign, uint64_t mag, int rm, unsigned *fl)
{
	return round_pack(f, sign, 0, mag, rm, fl);
}

static uint64_t from_signed(const fmt_t *f, int64_t v, int rm, unsigned *fl)
{
	return from_int(f, v < 0, v < 0 ? -(uint64_t)v : (uint64_t)v, rm, fl);
}

/* Convert between formats; exact when widening. */
static uint64_t convert(const fmt_t *to, const fmt_t *from, uint64_t a, int rm, unsigned *fl)
{
	unpacked x = unpack(from, a);

	switch (x.cls) {
	case C_QNAN:
	case C_SNAN: return nan_result(to, x.cls == C_SNAN, fl);
	case C_INF: return inf_bits(to, x.sign);
	case C_ZERO: return zero_bits(to, x.sign);
	default: return round_pack(to, x.sign, x.exp, x.sig, rm, fl);
	}
}

/* ---- Public binary32 interface ------------------------------------------ */

uint32_t sf32_add(uint32_t a, uint32_t b, int rm, unsigned *fl)
{
	return (uint32_t)fadd(&F32, a, b, rm, fl);
}

uint32_t sf32_sub(uint32_t a, uint32_t b, int rm, unsigned *fl)
{
	return (uint32_t)fadd(&F32, a, b ^ 0x80000000u, rm, fl);
}

uint32_t sf32_mul(uint32_t a, uint32_t b, int rm, unsigned *fl)
{
	return (uint32_t)fmul(&F32, a, b, rm, fl);
}

uint32_t sf32_div(uint32_t a, uint32_t b, int rm, unsigned *fl)
{
	return (uint32_t)fdiv(&F32, a, b, rm, fl);
}

uint32_t sf32_sqrt(uint32_t a, int rm, unsigned *fl)
{
	return (uint32_t)fsqrt(&F32, a, rm, fl);
}

uint32_t sf32_fma(uint32_t a, uint32_t b, uint32_t c, int rm, unsigned *fl)
{
	return (uint32_t)ffma(&F32, a, b, c, rm, fl);
}

uint32_t sf32_min(uint32_t a, uint32_t b, unsigned *fl)
{
	return (uint32_t)fminmax(&F32, a, b, 0, fl);
}

uint32_t sf32_max(uint32_t a, uint32_t b, unsigned *fl)
{
	return (uint32_t)fminmax(&F32, a, b, 1, fl);
}

int sf32_eq(uint32_t a, uint32_t b, unsigned *fl)
{
	return feq(&F32, a, b, fl);
}

int sf32_lt(uint32_t a, uint32_t b, unsigned *fl)
{
	return flt(&F32, a, b, fl);
}

int sf32_le(uint32_t a, uint32_t b, unsigned *fl)
{
	return fle(&F32, a, b, fl);
}

unsigned sf32_classify(uint32_t a)
{
	return fclass(&F32, a);
}

int32_t sf32_to_i32(uint32_t a, int rm, unsigned *fl)
{
	return (int32_t)to_int(&F32, a, rm, 1, 32, fl);
}

uint32_t sf32_to_u32(uint32_t a, int rm, unsigned *fl)
{
	return (uint32_t)to_int(&F32, a, rm, 0, 32, fl);
}

int64_t sf32_to_i64(uint32_t a, int rm, unsigned *fl)
{
	return (int64_t)to_int(&F32, a, rm, 1, 64, fl);
}

uint64_t sf32_to_u64(uint32_t a, int rm, unsigned *fl)
{
	return to_int(&F32, a, rm, 0, 64, fl);
}

uint32_t sf32_from_i32(int32_t v, int rm, unsigned *fl)
{
	return (uint32_t)from_signed(&F32, v, rm, fl);
}

uint32_t sf32_from_u32(uint32_t v, int rm, unsigned *fl)
{
	return (uint32_t)from_int(&F32, 0, v, rm, fl);
}

uint32_t sf32_from_i64(int64_t v, int rm, unsigned *fl)
{
	return (uint32_t)from_signed(&F32, v, rm, fl);
}

uint32_t sf32_from_u64(uint64_t v, int rm, unsigned *fl)
{
	return (uint32_t)from_int(&F32, 0, v, rm, fl);
}

uint64_t sf32_to_f64(uint32_t a, unsigned *fl)
{
	return convert(&F64, &F32, a, SF_RNE, fl);
}

/* ---- Public binary64 interface ------------------------------------------ */

uint64_t sf64_add(uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	return fadd(&F64, a, b, rm, fl);
}

uint64_t sf64_sub(uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	return fadd(&F64, a, b ^ 0x8000000000000000ull, rm, fl);
}

uint64_t sf64_mul(uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	return fmul(&F64, a, b, rm, fl);
}

uint64_t sf64_div(uint64_t a, uint64_t b, int rm, unsigned *fl)
{
	return fdiv(&F64, a, b, rm, fl);
}

uint64_t sf64_sqrt(uint64_t a, int rm, unsigned *fl)
{
	return fsqrt(&F64, a, rm, fl);
}

uint64_t sf64_fma(uint64_t a, uint64_t b, uint64_t c, int rm, unsigned *fl)
{
	return ffma(&F64, a, b, c, rm, fl);
}

uint64_t sf64_min(uint64_t a, uint64_t b, unsigned *fl)
{
	return fminmax(&F64, a, b, 0, fl);
}

uint64_t sf64_max(uint64_t a, uint64_t b, unsigned *fl)
{
	return fminmax(&F64, a, b, 1, fl);
}

int sf64_eq(uint64_t a, uint64_t b, unsigned *fl)
{
	return feq(&F64, a, b, fl);
}

int sf64_lt(uint64_t a, uint64_t b, unsigned *fl)
{
	return flt(&F64, a, b, fl);
}

int sf64_le(uint64_t a, uint64_t b, unsigned *fl)
{
	return fle(&F64, a, b, fl);
}

unsigned sf64_classify(uint64_t a)
{
	return fclass(&F64, a);
}

int32_t sf64_to_i32(uint64_t a, int rm, unsigned *fl)
{
	return (int32_t)to_int(&F64, a, rm, 1, 32, fl);
}

uint32_t sf64_to_u32(uint64_t a, int rm, unsigned *fl)
{
	return (uint32_t)to_int(&F64, a, rm, 0, 32, fl);
}

int64_t sf64_to_i64(uint64_t a, int rm, unsigned *fl)
{
	return (int64_t)to_int(&F64, a, rm, 1, 64, fl);
}

uint64_t sf64_to_u64(uint64_t a, int rm, unsigned *fl)
{
	return to_int(&F64, a, rm, 0, 64, fl);
}

uint64_t sf64_from_i32(int32_t v, int rm, unsigned *fl)
{
	return from_signed(&F64, v, rm, fl);
}

uint64_t sf64_from_u32(uint32_t v, int rm, unsigned *fl)
{
	return from_int(&F64, 0, v, rm, fl);
}

uint64_t sf64_from_i64(int64_t v, int rm, unsigned *fl)
{
	return from_signed(&F64, v, rm, fl);
}

uint64_t sf64_from_u64(uint64_t v, int rm, unsigned *fl)
{
	return from_int(&F64, 0, v, rm, fl);
}

uint32_t sf64_to_f32(uint64_t a, int rm, unsigned *fl)
{
	return (uint32_t)convert(&F32, &F64, a, rm, fl);
}
