/* softfp.h - software IEEE 754 binary32/binary64 arithmetic with RISC-V F/D semantics.
 *
 * The FPU of the emulated hart is built on these functions: each F/D
 * instruction maps onto one call. Values travel as raw bit patterns
 * (uint32_t for binary32, uint64_t for binary64), so results never depend on
 * the host FPU. Exception flags are OR-ed into *fl using the fflags bit
 * layout; the caller accumulates them into fcsr.
 *
 * rm is a RISC-V rounding mode 0..4 the caller has already resolved from DYN
 * (the caller rejects 5, 6 and 7 as illegal instructions).
 *
 * RISC-V specifics implemented here: every NaN result is the canonical NaN;
 * tininess is detected after rounding; fmin/fmax are IEEE 754-2019
 * minimumNumber/maximumNumber; float->integer conversions saturate and raise
 * NV (not NX) when out of range; fma raises NV for inf*0 even when the addend
 * is a quiet NaN. Sign flips of NaN operands never matter, so callers build
 * fsub, fmsub, fnmsub and fnmadd by flipping sign bits of the inputs. */
#ifndef THEMIS_SOFTFP_H
#define THEMIS_SOFTFP_H

#include <stdint.h>

/* Rounding modes, as encoded in the rm field and frm. */
enum { SF_RNE = 0, SF_RTZ = 1, SF_RDN = 2, SF_RUP = 3, SF_RMM = 4 };

/* Exception flags, as laid out in fflags. */
enum { SF_NX = 1, SF_UF = 2, SF_OF = 4, SF_DZ = 8, SF_NV = 16 };

/* Canonical quiet NaNs. */
#define SF32_NAN 0x7fc00000u
#define SF64_NAN 0x7ff8000000000000ull

/* binary32 */
uint32_t sf32_add(uint32_t a, uint32_t b, int rm, unsigned *fl);
uint32_t sf32_sub(uint32_t a, uint32_t b, int rm, unsigned *fl);
uint32_t sf32_mul(uint32_t a, uint32_t b, int rm, unsigned *fl);
uint32_t sf32_div(uint32_t a, uint32_t b, int rm, unsigned *fl);
uint32_t sf32_sqrt(uint32_t a, int rm, unsigned *fl);
uint32_t sf32_fma(uint32_t a, uint32_t b, uint32_t c, int rm, unsigned *fl); /* a*b+c */
uint32_t sf32_min(uint32_t a, uint32_t b, unsigned *fl);
uint32_t sf32_max(uint32_t a, uint32_t b, unsigned *fl);
int sf32_eq(uint32_t a, uint32_t b, unsigned *fl); /* quiet: NV only for sNaN */
int sf32_lt(uint32_t a, uint32_t b, unsigned *fl); /* signaling: NV for any NaN */
int sf32_le(uint32_t a, uint32_t b, unsigned *fl); /* signaling: NV for any NaN */
unsigned sf32_classify(uint32_t a);		   /* fclass 10-bit mask */
int32_t sf32_to_i32(uint32_t a, int rm, unsigned *fl);
uint32_t sf32_to_u32(uint32_t a, int rm, unsigned *fl);
int64_t sf32_to_i64(uint32_t a, int rm, unsigned *fl);
uint64_t sf32_to_u64(uint32_t a, int rm, unsigned *fl);
uint32_t sf32_from_i32(int32_t v, int rm, unsigned *fl);
uint32_t sf32_from_u32(uint32_t v, int rm, unsigned *fl);
uint32_t sf32_from_i64(int64_t v, int rm, unsigned *fl);
uint32_t sf32_from_u64(uint64_t v, int rm, unsigned *fl);
uint64_t sf32_to_f64(uint32_t a, unsigned *fl); /* exact; NV only for sNaN */

/* binary64 */
uint64_t sf64_add(uint64_t a, uint64_t b, int rm, unsigned *fl);
uint64_t sf64_sub(uint64_t a, uint64_t b, int rm, unsigned *fl);
uint64_t sf64_mul(uint64_t a, uint64_t b, int rm, unsigned *fl);
uint64_t sf64_div(uint64_t a, uint64_t b, int rm, unsigned *fl);
uint64_t sf64_sqrt(uint64_t a, int rm, unsigned *fl);
uint64_t sf64_fma(uint64_t a, uint64_t b, uint64_t c, int rm, unsigned *fl); /* a*b+c */
uint64_t sf64_min(uint64_t a, uint64_t b, unsigned *fl);
uint64_t sf64_max(uint64_t a, uint64_t b, unsigned *fl);
int sf64_eq(uint64_t a, uint64_t b, unsigned *fl);
int sf64_lt(uint64_t a, uint64_t b, unsigned *fl);
int sf64_le(uint64_t a, uint64_t b, unsigned *fl);
unsigned sf64_classify(uint64_t a);
int32_t sf64_to_i32(uint64_t a, int rm, unsigned *fl);
uint32_t sf64_to_u32(uint64_t a, int rm, unsigned *fl);
int64_t sf64_to_i64(uint64_t a, int rm, unsigned *fl);
uint64_t sf64_to_u64(uint64_t a, int rm, unsigned *fl);
uint64_t sf64_from_i32(int32_t v, int rm, unsigned *fl);  /* exact */
uint64_t sf64_from_u32(uint32_t v, int rm, unsigned *fl); /* exact */
uint64_t sf64_from_i64(int64_t v, int rm, unsigned *fl);
uint64_t sf64_from_u64(uint64_t v, int rm, unsigned *fl);
uint32_t sf64_to_f32(uint64_t a, int rm, unsigned *fl);

#endif
