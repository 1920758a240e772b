/* u_rvc.S: every RV64C compressed instruction form, written with explicit
 * c.* mnemonics under .option rvc, with immediates at their extremes
 * (negative, largest positive, the nonzero-required ones at their
 * smallest) and offsets that set every scrambled immediate bit:
 *   c.addi4spn c.fld c.lw c.ld c.fsd c.sw c.sd            (quadrant 0)
 *   c.nop c.addi c.addiw c.li c.addi16sp c.lui c.srli c.srai c.andi
 *   c.sub c.xor c.or c.and c.subw c.addw c.j c.beqz c.bnez (quadrant 1)
 *   c.slli c.fldsp c.lwsp c.ldsp c.jr c.mv c.ebreak c.jalr c.add
 *   c.fsdsp c.swsp c.sdsp                                  (quadrant 2)
 * plus: c.ebreak traps with cause 3 and mepc at the 2-byte instruction;
 * c.jalr links pc+2 (also with rs1 = ra); 32-bit instructions at 2 mod 4
 * after compressed ones, one straddling a page boundary; the all-zero
 * halfword is an illegal instruction (cause 2, mepc at it).
 * Nothing here is implementation-defined (mtval is not checked). */
#include "u_test.h"
	.option rvc

/* Fill the 1048-byte buffer u_cbuf with 0x55. */
#define U_CFILL                                                                \
	la t0, u_cbuf;                                                         \
	li t1, 0x5555555555555555;                                             \
	addi t2, t0, 1048;                                                     \
	1: sd t1, 0(t0);                                                       \
	addi t0, t0, 8;                                                        \
	bltu t0, t2, 1b;

RVTEST_BEGIN
	U_FP_ENABLE

	/* ---- c.addi4spn: rd' = sp + nzuimm (4..1020, multiple of 4) ---- */
	la sp, u_cbuf
	U_NUM(1)
	c.addi4spn a0, sp, 4
	sub a0, a0, sp
	U_CHECKR(a0, 4)
	U_NUM(2)
	c.addi4spn s0, sp, 8
	sub s0, s0, sp
	U_CHECKR(s0, 8)
	U_NUM(3)
	c.addi4spn a5, sp, 0x210
	sub a5, a5, sp
	U_CHECKR(a5, 0x210)
	U_NUM(4)
	c.addi4spn s1, sp, 1020
	sub s1, s1, sp
	U_CHECKR(s1, 1020)

	/* ---- c.lw / c.ld / c.fld: rd' = mem[rs1' + uimm] ---- */
	la s0, u_ctab
	U_NUM(5)
	c.lw a0, 0(s0)
	U_CHECKR(a0, 0x18ca4da5)
	U_NUM(6)
	c.lw a1, 4(s0)
	U_CHECKR(a1, 0x1dbb3025)
	U_NUM(7)
	c.lw a5, 64(s0)
	U_CHECKR(a5, 0xffffffffb3aea027)
	U_NUM(8)
	c.lw s1, 124(s0)
	U_CHECKR(s1, 0xffffffffcbc8e91b)
	U_NUM(9)
	c.ld a0, 0(s0)
	U_CHECKR(a0, 0x1dbb302518ca4da5)
	U_NUM(10)
	mv a5, s0
	c.ld s0, 8(a5)	/* x8 loaded through x15 */
	U_CHECKR(s0, 0x2e7b23d6de2c136d)
	mv s0, a5
	U_NUM(11)
	c.ld a2, 128(s0)
	U_CHECKR(a2, 0x22611fcd7635c9cc)
	U_NUM(12)
	c.ld a3, 248(s0)
	U_CHECKR(a3, 0xeab51f43d684a67b)
	U_NUM(13)
	c.ld a4, 0(s0)
	c.ld a4, 8(s0)	/* load into the same register again */
	U_CHECKR(a4, 0x2e7b23d6de2c136d)
	U_NUM(14)
	c.fld fa0, 0(s0)
	fmv.x.d a0, fa0
	U_CHECKR(a0, 0x1dbb302518ca4da5)
	U_NUM(15)
	c.fld fs1, 248(s0)
	fmv.x.d a0, fs1
	U_CHECKR(a0, 0xeab51f43d684a67b)
	U_NUM(16)
	c.fld fa5, 128(s0)
	fmv.x.d a0, fa5
	U_CHECKR(a0, 0x22611fcd7635c9cc)

	/* ---- c.sw / c.sd / c.fsd ---- */
	la s1, u_cbuf
	U_CFILL
	U_NUM(17)
	li a0, 0x0123456789abcdef
	c.sw a0, 0(s1)
	ld t1, 0(s1)
	U_CHECKR(t1, 0x5555555589abcdef)
	U_NUM(18)
	li a5, 0xfedcba9876543210
	c.sw a5, 124(s1)
	ld t1, 120(s1)
	U_CHECKR(t1, 0x7654321055555555)
	ld t1, 128(s1)
	U_CHECKR(t1, 0x5555555555555555)
	U_NUM(19)
	c.sw a0, 68(s1)
	ld t1, 64(s1)
	U_CHECKR(t1, 0x89abcdef55555555)
	U_NUM(20)
	c.sd a0, 8(s1)
	ld t1, 8(s1)
	U_CHECKR(t1, 0x0123456789abcdef)
	U_NUM(21)
	c.sd a5, 248(s1)
	ld t1, 248(s1)
	U_CHECKR(t1, 0xfedcba9876543210)
	ld t1, 240(s1)
	U_CHECKR(t1, 0x5555555555555555)
	ld t1, 256(s1)
	U_CHECKR(t1, 0x5555555555555555)
	U_NUM(22)
	c.sd a0, 128(s1)
	ld t1, 128(s1)
	U_CHECKR(t1, 0x0123456789abcdef)
	U_NUM(23)
	fmv.d.x fa2, a5
	c.fsd fa2, 16(s1)
	ld t1, 16(s1)
	U_CHECKR(t1, 0xfedcba9876543210)
	U_NUM(24)
	fmv.d.x fs0, a0
	c.fsd fs0, 248(s1)
	ld t1, 248(s1)
	U_CHECKR(t1, 0x0123456789abcdef)

	/* ---- c.nop, c.addi, c.addiw, c.li ---- */
	U_NUM(25)
	li a0, 7
	c.nop
	U_CHECKR(a0, 7)
	U_NUM(26)
	li a0, 0x10
	c.addi a0, -32
	U_CHECKR(a0, -16)
	U_NUM(27)
	c.addi a0, 31
	U_CHECKR(a0, 15)
	U_NUM(28)
	li t6, 0
	c.addi t6, -1
	U_CHECKR(t6, -1)
	U_NUM(29)
	li ra, 0x7fffffffffffffff
	c.addi ra, 1
	U_CHECKR(ra, 0x8000000000000000)
	U_NUM(30)
	li a0, 0xffffffff
	c.addiw a0, 0
	U_CHECKR(a0, -1)
	U_NUM(31)
	li a0, 0x80000010
	c.addiw a0, -32
	U_CHECKR(a0, 0x7ffffff0)
	U_NUM(32)
	li t6, 0x123456787fffffff
	c.addiw t6, 31
	U_CHECKR(t6, 0xffffffff8000001e)
	U_NUM(33)
	li a0, 99
	c.li a0, -32
	U_CHECKR(a0, -32)
	U_NUM(34)
	c.li t6, 31
	U_CHECKR(t6, 31)
	U_NUM(35)
	c.li ra, 0
	U_CHECKR(ra, 0)
	U_NUM(36)
	c.li s0, -1
	U_CHECKR(s0, -1)

	/* ---- c.addi16sp: sp += nzimm (-512..496, multiple of 16) ---- */
	la s0, u_cbuf
	addi s0, s0, 512
	U_NUM(37)
	mv sp, s0
	c.addi16sp sp, -512
	sub a0, sp, s0
	U_CHECKR(a0, -512)
	U_NUM(38)
	mv sp, s0
	c.addi16sp sp, 496
	sub a0, sp, s0
	U_CHECKR(a0, 496)
	U_NUM(39)
	mv sp, s0
	c.addi16sp sp, 16
	sub a0, sp, s0
	U_CHECKR(a0, 16)
	U_NUM(40)
	mv sp, s0
	c.addi16sp sp, -16
	c.addi16sp sp, 32
	c.addi16sp sp, 64
	c.addi16sp sp, 128
	c.addi16sp sp, 256
	sub a0, sp, s0
	U_CHECKR(a0, 464)

	/* ---- c.lui: rd = sext(nzimm << 12) ---- */
	U_NUM(41)
	c.lui a0, 1
	U_CHECKR(a0, 0x1000)
	U_NUM(42)
	c.lui a0, 31
	U_CHECKR(a0, 0x1f000)
	U_NUM(43)
	c.lui t6, 0xfffe0
	U_CHECKR(t6, 0xfffffffffffe0000)
	U_NUM(44)
	c.lui ra, 0xfffff
	U_CHECKR(ra, 0xfffffffffffff000)
	U_NUM(45)
	c.lui s1, 0x10
	U_CHECKR(s1, 0x10000)

	/* ---- c.srli / c.srai / c.andi / c.slli ---- */
	U_NUM(46)
	li s0, 0x8000000000000000
	c.srli s0, 63
	U_CHECKR(s0, 1)
	U_NUM(47)
	li s0, 0x8000000000000000
	c.srli s0, 1
	U_CHECKR(s0, 0x4000000000000000)
	U_NUM(48)
	li a5, 0x8000000000000000
	c.srli a5, 32
	U_CHECKR(a5, 0x80000000)
	U_NUM(49)
	li a5, -1
	c.srli a5, 31
	U_CHECKR(a5, 0x1ffffffff)
	U_NUM(50)
	li a0, 0x8000000000000000
	c.srai a0, 63
	U_CHECKR(a0, -1)
	U_NUM(51)
	li a0, 0x8000000000000000
	c.srai a0, 1
	U_CHECKR(a0, 0xc000000000000000)
	U_NUM(52)
	li a0, 0x8000000000000000
	c.srai a0, 32
	U_CHECKR(a0, 0xffffffff80000000)
	U_NUM(53)
	li a0, 0x7fffffffffffffff
	c.srai a0, 62
	U_CHECKR(a0, 1)
	U_NUM(54)
	li a1, 0x123456789abcdeff
	c.andi a1, -32
	U_CHECKR(a1, 0x123456789abcdee0)
	U_NUM(55)
	li a1, 0x123456789abcdeff
	c.andi a1, 31
	U_CHECKR(a1, 0x1f)
	U_NUM(56)
	li a1, 0x123456789abcdeff
	c.andi a1, 0
	U_CHECKR(a1, 0)
	U_NUM(57)
	li a1, 0x123456789abcdeff
	c.andi a1, -1
	U_CHECKR(a1, 0x123456789abcdeff)
	U_NUM(58)
	li a0, 1
	c.slli a0, 63
	U_CHECKR(a0, 0x8000000000000000)
	U_NUM(59)
	li t6, 1
	c.slli t6, 32
	U_CHECKR(t6, 0x100000000)
	U_NUM(60)
	li ra, 0x4000000000000001
	c.slli ra, 1
	U_CHECKR(ra, 0x8000000000000002)
	U_NUM(61)
	li a0, 3
	c.slli a0, 31
	U_CHECKR(a0, 0x180000000)

	/* ---- register-register ALU ---- */
	U_NUM(62)
	li s0, 5
	li a5, 7
	c.sub s0, a5
	U_CHECKR(s0, -2)
	U_NUM(63)
	li s0, 0
	li a5, 0x8000000000000000
	c.sub s0, a5
	U_CHECKR(s0, 0x8000000000000000)
	U_NUM(64)
	li a0, 0xff00ff00ff00ff00
	li a1, 0x0f0f0f0f0f0f0f0f
	c.xor a0, a1
	U_CHECKR(a0, 0xf00ff00ff00ff00f)
	U_NUM(65)
	li a0, 0xff00ff00ff00ff00
	c.or a0, a1
	U_CHECKR(a0, 0xff0fff0fff0fff0f)
	U_NUM(66)
	li a0, 0xff00ff00ff00ff00
	c.and a0, a1
	U_CHECKR(a0, 0x0f000f000f000f00)
	U_NUM(67)
	li a2, 0x80000000
	li a3, 1
	c.subw a2, a3
	U_CHECKR(a2, 0x7fffffff)
	U_NUM(68)
	li a2, 0
	li a3, 0x80000000
	c.subw a2, a3
	U_CHECKR(a2, 0xffffffff80000000)
	U_NUM(69)
	li a4, 0x7fffffff
	li s1, 1
	c.addw a4, s1
	U_CHECKR(a4, 0xffffffff80000000)
	U_NUM(70)
	li a4, 0x12345678ffffffff
	li s1, 0x1
	c.addw a4, s1
	U_CHECKR(a4, 0)
	U_NUM(71)
	li a0, 0x7fffffffffffffff
	li t6, 1
	c.add a0, t6
	U_CHECKR(a0, 0x8000000000000000)
	U_NUM(72)
	li ra, -5
	li t5, -6
	c.add ra, t5
	U_CHECKR(ra, -11)
	U_NUM(73)
	li t6, 0x0123456789abcdef
	c.mv a0, t6
	U_CHECKR(a0, 0x0123456789abcdef)
	U_NUM(74)
	li s0, -7
	c.mv t6, s0
	U_CHECKR(t6, -7)

	/* ---- c.lwsp / c.ldsp / c.fldsp ---- */
	la sp, u_ctab
	U_NUM(75)
	c.lwsp a0, 0(sp)
	U_CHECKR(a0, 0x18ca4da5)
	U_NUM(76)
	c.lwsp t6, 4(sp)
	U_CHECKR(t6, 0x1dbb3025)
	U_NUM(77)
	c.lwsp ra, 128(sp)
	U_CHECKR(ra, 0x7635c9cc)
	U_NUM(78)
	c.lwsp s0, 252(sp)
	U_CHECKR(s0, 0xffffffffeab51f43)
	U_NUM(79)
	c.ldsp a0, 8(sp)
	U_CHECKR(a0, 0x2e7b23d6de2c136d)
	U_NUM(80)
	c.ldsp t6, 256(sp)
	U_CHECKR(t6, 0x4c025de1094d42d7)
	U_NUM(81)
	c.ldsp ra, 504(sp)
	U_CHECKR(ra, 0x06449b82a94b2765)
	U_NUM(82)
	c.ldsp a5, 0(sp)
	U_CHECKR(a5, 0x1dbb302518ca4da5)
	U_NUM(83)
	c.fldsp ft0, 504(sp)
	fmv.x.d a0, ft0
	U_CHECKR(a0, 0x06449b82a94b2765)
	U_NUM(84)
	c.fldsp fs11, 256(sp)
	fmv.x.d a0, fs11
	U_CHECKR(a0, 0x4c025de1094d42d7)
	U_NUM(85)
	c.fldsp fa0, 8(sp)
	fmv.x.d a0, fa0
	U_CHECKR(a0, 0x2e7b23d6de2c136d)

	/* ---- c.swsp / c.sdsp / c.fsdsp ---- */
	la sp, u_cbuf
	U_CFILL
	U_NUM(86)
	li t6, 0x0123456789abcdef
	c.swsp t6, 252(sp)
	ld t1, 248(sp)
	U_CHECKR(t1, 0x89abcdef55555555)
	ld t1, 256(sp)
	U_CHECKR(t1, 0x5555555555555555)
	U_NUM(87)
	li ra, 0xfedcba9876543210
	c.swsp ra, 132(sp)
	ld t1, 128(sp)
	U_CHECKR(t1, 0x7654321055555555)
	U_NUM(88)
	c.sdsp t6, 504(sp)
	ld t1, 504(sp)
	U_CHECKR(t1, 0x0123456789abcdef)
	ld t1, 496(sp)
	U_CHECKR(t1, 0x5555555555555555)
	ld t1, 512(sp)
	U_CHECKR(t1, 0x5555555555555555)
	U_NUM(89)
	c.sdsp ra, 264(sp)
	ld t1, 264(sp)
	U_CHECKR(t1, 0xfedcba9876543210)
	U_NUM(90)
	fmv.d.x ft11, ra
	c.fsdsp ft11, 504(sp)
	ld t1, 504(sp)
	U_CHECKR(t1, 0xfedcba9876543210)
	U_NUM(91)
	fmv.d.x fs3, t6
	c.fsdsp fs3, 0(sp)
	ld t1, 0(sp)
	U_CHECKR(t1, 0x0123456789abcdef)
	U_NUM(92)
	c.fsdsp fs3, 320(sp)
	ld t1, 320(sp)
	U_CHECKR(t1, 0x0123456789abcdef)

	/* ---- c.j ---- */
	U_NUM(93)
	c.j 1f
	c.j 2f
1:	c.j 3f
2:	j fail_common
3:
	U_NUM(94)
	/* +2046, the largest forward offset (in its own section, see below) */
	j u_cj_far
u_cj_far_back:
	U_NUM(95)
	/* -2048, the largest backward offset */
	j 2f
3:	j 4f
1:	c.j 3b
	.skip 2046
2:	c.j 1b
	j fail_common
4:	la t0, 2b
	lhu t1, 0(t0)
	U_CHECKR(t1, 0xb001)	/* the encoding of c.j .-2048 */
	/* ---- c.beqz / c.bnez ---- */
	U_NUM(96)
	li s0, 0
	c.beqz s0, 1f
	j fail_common
1:	U_NUM(97)
	li s0, 0x100000000
	c.beqz s0, 1f
	c.j 2f
1:	j fail_common
2:	U_NUM(98)
	li a5, 0x8000000000000000
	c.bnez a5, 1f
	j fail_common
1:	U_NUM(99)
	li a5, 0
	c.bnez a5, 1f
	c.j 2f
1:	j fail_common
2:	U_NUM(100)
	/* +254 and -256, the extreme offsets */
	li a0, 0
	j u_cbeqz_far
u_cbeqz_far_back:
	U_NUM(101)
	li a1, 1
	c.j 2f
1:	c.j 3f
	.skip 254
2:	c.bnez a1, 1b
	j fail_common
3:	la t0, 2b
	lhu t1, 0(t0)
	U_CHECKR(t1, 0xf181)	/* the encoding of c.bnez a1, .-256 */
	U_NUM(102)
	/* a counted loop: backward c.bnez */
	li a2, 5
	li a3, 0
1:	c.addi a3, 3
	c.addi a2, -1
	c.bnez a2, 1b
	U_CHECKR(a3, 15)

	/* ---- c.jr / c.jalr ---- */
	U_NUM(103)
	li ra, 0x1234
	la t0, 1f
	c.jr t0
	j fail_common
1:	U_CHECKR(ra, 0x1234)
	U_NUM(104)
	la a5, 1f
	c.jalr a5
2:	j fail_common
1:	la t0, 2b
	bne ra, t0, fail_common
	U_NUM(105)
	/* c.jalr ra: jumps to the old ra, then links */
	la ra, 1f
	c.jalr ra
2:	j fail_common
1:	la t0, 2b
	bne ra, t0, fail_common
	U_NUM(106)
	/* a compressed call and return */
	c.li a0, 0
	la t1, u_cfunc
	c.jalr t1
	U_CHECKR(a0, 21)

	/* ---- 32-bit instructions at 2 mod 4 ---- */
	U_NUM(107)
	.balign 4
	c.li a0, 1
	.option push
	.option norvc
	addi a0, a0, 0x123	/* straddles a 4-byte boundary */
	lui a1, 0x12345
	.option pop
	c.addi a0, 1
	U_CHECKR(a0, 0x125)
	U_CHECKR(a1, 0x12345000)
	U_NUM(108)
	/* a 32-bit instruction across a page boundary */
	la t0, u_cpage_pre + 4
	slli t1, t0, 52	/* the low 12 bits must be 0 */
	bnez t1, fail_common
	j u_cpage_pre
	.balign 4096
	.skip 4092
u_cpage_pre:
	c.li a0, 2
	.option push
	.option norvc
	addi a0, a0, 0x40	/* bytes 4094..4097 of the page pair */
	.option pop
	c.addi a0, 1
	U_CHECKR(a0, 0x43)

	/* ---- traps: c.ebreak and the all-zero halfword ---- */
	U_TRAP_ARM
	U_TRAP_BEGIN(109)
	li a0, 1
1:	c.ebreak
	c.addi a0, 1	/* resumed here, 2 bytes after the c.ebreak */
	U_TRAP_CHECK(3, 1b)
	U_CHECKR(a0, 2)
	U_TRAP_BEGIN(110)
	li a0, 1
1:	.2byte 0x0000
	c.addi a0, 4
	U_TRAP_CHECK(2, 1b)
	U_CHECKR(a0, 5)
	U_TRAP_DISARM

	PASS

u_cfunc:
	c.li a0, 21
	c.jr ra

U_TRAP_HANDLER

	/* The forward extreme-offset jumps live in sections of their own:
	 * gas sizes a forward c.beqz/c.j pessimistically after relaxable
	 * code and would silently emit a 32-bit branch. The encodings are
	 * checked at run time so that cannot go unnoticed. */
	.pushsection .text.u_rvcfar1, "ax", @progbits
u_cj_far:
	c.j 1f
	.skip 2044
1:	la t0, u_cj_far
	lhu t1, 0(t0)
	U_CHECKR(t1, 0xaffd)	/* the encoding of c.j .+2046 */
	j u_cj_far_back
	.popsection
	.pushsection .text.u_rvcfar2, "ax", @progbits
u_cbeqz_far:
	c.beqz a0, 1f
	.skip 252
1:	la t0, u_cbeqz_far
	lhu t1, 0(t0)
	U_CHECKR(t1, 0xcd7d)	/* the encoding of c.beqz a0, .+254 */
	j u_cbeqz_far_back
	.popsection
RVTEST_END

	.data
	.balign 8
u_ctab:
	.byte 0xa5, 0x4d, 0xca, 0x18, 0x25, 0x30, 0xbb, 0x1d, 0x6d, 0x13, 0x2c, 0xde, 0xd6, 0x23, 0x7b, 0x2e
	.byte 0xd9, 0x1e, 0x3f, 0x72, 0x1f, 0xcb, 0x19, 0x71, 0x17, 0x44, 0x94, 0xd6, 0x49, 0x3c, 0x9d, 0x5c
	.byte 0x34, 0x60, 0xbe, 0x31, 0x20, 0x1e, 0x69, 0xfe, 0xda, 0xa0, 0xee, 0xe8, 0xb9, 0x99, 0x7f, 0x5c
	.byte 0x7c, 0x29, 0x99, 0xfd, 0xaf, 0xe5, 0x93, 0x25, 0x3c, 0xd6, 0x54, 0xaf, 0x4d, 0xfa, 0xd7, 0x14
	.byte 0x27, 0xa0, 0xae, 0xb3, 0xfe, 0xe9, 0x23, 0x2f, 0x8a, 0xf2, 0x21, 0x1f, 0x9e, 0xe4, 0x91, 0xc5
	.byte 0xb1, 0x0b, 0xec, 0xb5, 0x56, 0x3b, 0xfc, 0x1e, 0x6f, 0x93, 0x42, 0x7e, 0xcb, 0xc8, 0xfe, 0x29
	.byte 0x55, 0xe5, 0xcd, 0x8e, 0x46, 0xdc, 0x8e, 0xd4, 0xb7, 0xc2, 0x76, 0x4d, 0x2a, 0x5a, 0x4d, 0x76
	.byte 0x77, 0x06, 0xf8, 0x5d, 0x86, 0x90, 0x02, 0x4a, 0xd6, 0xbd, 0xa3, 0x40, 0x1b, 0xe9, 0xc8, 0xcb
	.byte 0xcc, 0xc9, 0x35, 0x76, 0xcd, 0x1f, 0x61, 0x22, 0x6a, 0xe1, 0x53, 0x38, 0xae, 0x1a, 0x34, 0x00
	.byte 0x4d, 0x33, 0xba, 0x0d, 0x24, 0x6a, 0xc0, 0x4c, 0x81, 0xb1, 0xba, 0xf2, 0x3e, 0x3b, 0xf9, 0xee
	.byte 0xf5, 0xf7, 0x9f, 0x2b, 0x49, 0x34, 0xaf, 0x87, 0xf5, 0x52, 0x0b, 0x69, 0xb9, 0x4b, 0x0d, 0x98
	.byte 0x2e, 0x85, 0xbb, 0x55, 0xb6, 0x72, 0xa8, 0x72, 0x63, 0x7a, 0xcd, 0x74, 0x66, 0xfc, 0xb6, 0x0e
	.byte 0x0e, 0x8f, 0xf1, 0x84, 0x63, 0xb0, 0xe4, 0xb2, 0xba, 0x29, 0x70, 0x34, 0x74, 0xf0, 0x64, 0xac
	.byte 0x68, 0xf7, 0x00, 0xf5, 0xb0, 0x2b, 0x3d, 0xc6, 0x66, 0xf4, 0x5b, 0xde, 0xaa, 0x2c, 0xca, 0xed
	.byte 0xcd, 0x2b, 0x51, 0x57, 0x41, 0x0e, 0x4d, 0xee, 0x4a, 0xf2, 0xb3, 0x4f, 0x43, 0x0a, 0x07, 0x34
	.byte 0x47, 0xde, 0x63, 0x6c, 0x0e, 0x80, 0x6c, 0x95, 0x7b, 0xa6, 0x84, 0xd6, 0x43, 0x1f, 0xb5, 0xea
	.byte 0xd7, 0x42, 0x4d, 0x09, 0xe1, 0x5d, 0x02, 0x4c, 0x58, 0x48, 0xf2, 0x3d, 0x1f, 0xa6, 0xf7, 0x36
	.byte 0x1d, 0x7f, 0x61, 0x8d, 0x15, 0x32, 0xe7, 0x0e, 0x20, 0xe2, 0xa6, 0x66, 0x8d, 0xe7, 0xf4, 0x7e
	.byte 0x84, 0x67, 0xe5, 0x46, 0xd5, 0x3e, 0xc8, 0xe2, 0xa1, 0x25, 0x7b, 0xdb, 0x25, 0x6c, 0x9b, 0x3e
	.byte 0x4f, 0xbb, 0x49, 0x81, 0x46, 0xef, 0x70, 0x30, 0xcb, 0xf9, 0x53, 0x72, 0x52, 0xdc, 0xce, 0xad
	.byte 0xd7, 0x64, 0xb6, 0xa3, 0x2f, 0xbb, 0x09, 0xad, 0xea, 0xe1, 0x09, 0xc4, 0xa9, 0x97, 0x20, 0x39
	.byte 0x75, 0x35, 0x2b, 0x87, 0x8b, 0x14, 0x5c, 0x8a, 0x42, 0xd8, 0x84, 0xcf, 0x4c, 0xfd, 0xa7, 0x2d
	.byte 0x8e, 0x1d, 0x5d, 0xd9, 0x25, 0x89, 0x08, 0x2d, 0x85, 0x2a, 0x71, 0x22, 0x87, 0x3e, 0xe8, 0x05
	.byte 0xad, 0xd5, 0x89, 0x42, 0x16, 0x7a, 0x38, 0x52, 0x86, 0x19, 0x5c, 0x67, 0x9f, 0x9c, 0x69, 0x94
	.byte 0xe4, 0x5b, 0x8a, 0xb1, 0x09, 0x80, 0x12, 0x07, 0x09, 0x61, 0xf3, 0x7d, 0xe4, 0x36, 0xdd, 0xfd
	.byte 0xc9, 0x9d, 0x6e, 0x75, 0xaf, 0x65, 0x47, 0xcf, 0xb1, 0x1b, 0x42, 0x07, 0x24, 0x82, 0xdc, 0x53
	.byte 0x1c, 0x2b, 0xc3, 0x90, 0x7c, 0x96, 0x17, 0xeb, 0x5e, 0x50, 0x89, 0xe4, 0x01, 0x86, 0xba, 0xa8
	.byte 0xa5, 0x7d, 0x11, 0x9e, 0x6f, 0xb6, 0x5d, 0x00, 0xab, 0xc3, 0x2a, 0xf3, 0x8e, 0x66, 0x7f, 0x02
	.byte 0x2e, 0x87, 0x2d, 0x49, 0xcc, 0x15, 0xc9, 0x0b, 0x99, 0x9b, 0x77, 0x2b, 0x4f, 0xc7, 0xa6, 0xfd
	.byte 0x4c, 0x91, 0x4a, 0x16, 0xdb, 0x47, 0x08, 0x75, 0x2b, 0x0f, 0x15, 0x44, 0xb8, 0x35, 0xc0, 0xe7
	.byte 0x19, 0x09, 0x7d, 0xfa, 0x87, 0x01, 0xe9, 0x23, 0x2f, 0x21, 0xf2, 0x81, 0x26, 0x87, 0x78, 0x69
	.byte 0x76, 0xeb, 0xfc, 0xc3, 0x27, 0xf5, 0x93, 0x17, 0x65, 0x27, 0x4b, 0xa9, 0x82, 0x9b, 0x44, 0x06
	.balign 8
u_cbuf:
	.skip 1048
