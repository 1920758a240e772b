/* rvc.c - the C extension: every 16-bit instruction is expanded to the
 * 32-bit instruction it stands for, so the executor has one path per
 * operation. Reserved encodings expand to 0, which the caller treats as an
 * illegal instruction. */
#include "cpu_internal.h"

enum {
	OP_LOAD = 0x03,
	OP_LOAD_FP = 0x07,
	OP_IMM = 0x13,
	OP_IMM32 = 0x1b,
	OP_STORE = 0x23,
	OP_STORE_FP = 0x27,
	OP_OP = 0x33,
	OP_LUI = 0x37,
	OP_OP32 = 0x3b,
	OP_BRANCH = 0x63,
	OP_JALR = 0x67,
	OP_JAL = 0x6f,
	OP_SYSTEM = 0x73,
};

static uint32_t bits(uint32_t v, int hi, int lo)
{
	return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}

/* Sign-extend the low `n` bits of v. */
static int32_t sext(uint32_t v, int n)
{
	return (int32_t)(v << (32 - n)) >> (32 - n);
}

static uint32_t enc_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op)
{
	return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}

static uint32_t enc_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op)
{
	uint32_t u = (uint32_t)imm;
	return bits(u, 11, 5) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | bits(u, 4, 0) << 7 | op;
}

static uint32_t enc_b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3)
{
	uint32_t u = (uint32_t)imm;
	return bits(u, 12, 12) << 31 | bits(u, 10, 5) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       bits(u, 4, 1) << 8 | bits(u, 11, 11) << 7 | OP_BRANCH;
}

static uint32_t enc_j(int32_t imm, uint32_t rd)
{
	uint32_t u = (uint32_t)imm;
	return bits(u, 20, 20) << 31 | bits(u, 10, 1) << 21 | bits(u, 11, 11) << 20 |
	       bits(u, 19, 12) << 12 | rd << 7 | OP_JAL;
}

static uint32_t enc_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd,
		      uint32_t op)
{
	return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}

/* Register fields: full (5 bits) and the x8..x15 "prime" forms. */
#define RD     bits(ci, 11, 7)
#define RS2    bits(ci, 6, 2)
#define RDP    (8 + bits(ci, 4, 2))
#define RS1P   (8 + bits(ci, 9, 7))
#define IMM6   sext(bits(ci, 12, 12) << 5 | bits(ci, 6, 2), 6)
#define SHAMT6 (bits(ci, 12, 12) << 5 | bits(ci, 6, 2))

/* Offsets of the scaled loads/stores. */
static uint32_t uimm_w(uint32_t ci)
{
	return bits(ci, 12, 10) << 3 | bits(ci, 6, 6) << 2 | bits(ci, 5, 5) << 6;
}

static uint32_t uimm_d(uint32_t ci)
{
	return bits(ci, 12, 10) << 3 | bits(ci, 6, 5) << 6;
}

static uint32_t quadrant0(uint32_t ci)
{
	switch (bits(ci, 15, 13)) {
	case 0: {
		uint32_t nzuimm = bits(ci, 12, 11) << 4 | bits(ci, 10, 7) << 6 |
				  bits(ci, 6, 6) << 2 | bits(ci, 5, 5) << 3;
		return nzuimm ? enc_i((int32_t)nzuimm, 2, 0, RDP, OP_IMM) : 0;
	}
	case 1: return enc_i((int32_t)uimm_d(ci), RS1P, 3, RDP, OP_LOAD_FP);
	case 2: return enc_i((int32_t)uimm_w(ci), RS1P, 2, RDP, OP_LOAD);
	case 3: return enc_i((int32_t)uimm_d(ci), RS1P, 3, RDP, OP_LOAD);
	case 5: return enc_s((int32_t)uimm_d(ci), RDP, RS1P, 3, OP_STORE_FP);
	case 6: return enc_s((int32_t)uimm_w(ci), RDP, RS1P, 2, OP_STORE);
	case 7: return enc_s((int32_t)uimm_d(ci), RDP, RS1P, 3, OP_STORE);
	default: return 0;
	}
}

static uint32_t misc_alu(uint32_t ci)
{
	uint32_t rd = RS1P;
	switch (bits(ci, 11, 10)) {
	case 0: return enc_i((int32_t)SHAMT6, rd, 5, rd, OP_IMM);
	case 1: return enc_i((int32_t)(SHAMT6 | 0x400), rd, 5, rd, OP_IMM);
	case 2: return enc_i(IMM6, rd, 7, rd, OP_IMM);
	default: break;
	}
	static const uint32_t f3[4] = {0, 4, 6, 7};
	uint32_t sel = bits(ci, 6, 5);
	if (!bits(ci, 12, 12))
		return enc_r(sel == 0 ? 0x20 : 0, RDP, rd, f3[sel], rd, OP_OP);
	if (sel == 0)
		return enc_r(0x20, RDP, rd, 0, rd, OP_OP32);
	if (sel == 1)
		return enc_r(0, RDP, rd, 0, rd, OP_OP32);
	return 0;
}

static int32_t j_offset(uint32_t ci)
{
	uint32_t u = bits(ci, 12, 12) << 11 | bits(ci, 11, 11) << 4 | bits(ci, 10, 9) << 8 |
		     bits(ci, 8, 8) << 10 | bits(ci, 7, 7) << 6 | bits(ci, 6, 6) << 7 |
		     bits(ci, 5, 3) << 1 | bits(ci, 2, 2) << 5;
	return sext(u, 12);
}

static int32_t b_offset(uint32_t ci)
{
	uint32_t u = bits(ci, 12, 12) << 8 | bits(ci, 11, 10) << 3 | bits(ci, 6, 5) << 6 |
		     bits(ci, 4, 3) << 1 | bits(ci, 2, 2) << 5;
	return sext(u, 9);
}

static uint32_t quadrant1(uint32_t ci)
{
	switch (bits(ci, 15, 13)) {
	case 0: return enc_i(IMM6, RD, 0, RD, OP_IMM);
	case 1: return RD ? enc_i(IMM6, RD, 0, RD, OP_IMM32) : 0;
	case 2: return enc_i(IMM6, 0, 0, RD, OP_IMM);
	case 3:
		if (RD == 2) {
			uint32_t u = bits(ci, 12, 12) << 9 | bits(ci, 6, 6) << 4 |
				     bits(ci, 5, 5) << 6 | bits(ci, 4, 3) << 7 |
				     bits(ci, 2, 2) << 5;
			return u ? enc_i(sext(u, 10), 2, 0, 2, OP_IMM) : 0;
		} else {
			int32_t imm = IMM6;
			return imm ? ((uint32_t)imm << 12 | RD << 7 | OP_LUI) : 0;
		}
	case 4: return misc_alu(ci);
	case 5: return enc_j(j_offset(ci), 0);
	case 6: return enc_b(b_offset(ci), 0, RS1P, 0);
	default: return enc_b(b_offset(ci), 0, RS1P, 1);
	}
}

static uint32_t quadrant2_jr_mv_add(uint32_t ci)
{
	bool bit12 = bits(ci, 12, 12);
	if (!bit12) {
		if (RS2 == 0)
			return RD ? enc_i(0, RD, 0, 0, OP_JALR) : 0;
		return enc_r(0, RS2, 0, 0, RD, OP_OP);
	}
	if (RS2 == 0)
		return RD ? enc_i(0, RD, 0, 1, OP_JALR) : 0x00100073; /* ebreak */
	return enc_r(0, RS2, RD, 0, RD, OP_OP);
}

static uint32_t quadrant2(uint32_t ci)
{
	uint32_t sp_d = bits(ci, 12, 12) << 5 | bits(ci, 6, 5) << 3 | bits(ci, 4, 2) << 6;
	uint32_t sp_w = bits(ci, 12, 12) << 5 | bits(ci, 6, 4) << 2 | bits(ci, 3, 2) << 6;
	uint32_t ss_d = bits(ci, 12, 10) << 3 | bits(ci, 9, 7) << 6;
	uint32_t ss_w = bits(ci, 12, 9) << 2 | bits(ci, 8, 7) << 6;
	switch (bits(ci, 15, 13)) {
	case 0: return enc_i((int32_t)SHAMT6, RD, 1, RD, OP_IMM);
	case 1: return enc_i((int32_t)sp_d, 2, 3, RD, OP_LOAD_FP);
	case 2: return RD ? enc_i((int32_t)sp_w, 2, 2, RD, OP_LOAD) : 0;
	case 3: return RD ? enc_i((int32_t)sp_d, 2, 3, RD, OP_LOAD) : 0;
	case 4: return quadrant2_jr_mv_add(ci);
	case 5: return enc_s((int32_t)ss_d, RS2, 2, 3, OP_STORE_FP);
	case 6: return enc_s((int32_t)ss_w, RS2, 2, 2, OP_STORE);
	default: return enc_s((int32_t)ss_d, RS2, 2, 3, OP_STORE);
	}
}

uint32_t rvc_expand(uint16_t half)
{
	uint32_t ci = half;
	switch (ci & 3) {
	case 0: return quadrant0(ci);
	case 1: return quadrant1(ci);
	case 2: return quadrant2(ci);
	default: return 0;
	}
}

static uint32_t rvc_table[1 << 16];
static bool rvc_table_ready;

uint32_t rvc_lookup(uint16_t ci)
{
	if (unlikely(!rvc_table_ready)) {
		for (uint32_t i = 0; i < (1u << 16); i++)
			rvc_table[i] = (i & 3) == 3 ? 0 : rvc_expand((uint16_t)i);
		rvc_table_ready = true;
	}
	return rvc_table[ci];
}
