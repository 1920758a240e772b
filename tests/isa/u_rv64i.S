/* u_rv64i.S: the RV64I base integer instruction set, in its 32-bit
 * encodings (.option norvc, so the assembler compresses nothing):
 * add/sub/addi and the W forms with their sign extension, every shift
 * (register and immediate, 64- and 32-bit) by 0/1/31/32/63 and by amounts
 * whose upper bits must be ignored, slt/sltu/slti/sltiu edges, logic ops
 * with sign-extended immediates, lui/auipc (incl. negative upper
 * immediates), x0 as a destination, all six branches taken and not taken
 * (signed/unsigned edges, +4092/-4096 offsets), jal/jalr link values,
 * jalr clearing bit 0 and rd == rs1, loads of every width with sign/zero
 * extension, stores of every width, misaligned loads and stores (performed,
 * not trapped) incl. ones that cross a dword and a page boundary, fence,
 * ecall (cause 11) and ebreak (cause 3).
 *
 * Implementation-defined behaviour pinned to QEMU 7.2:
 * - misaligned loads/stores in M-mode are performed, not trapped (the
 *   board documents the same; the spec also allows a trap).
 * - mtval for ecall/ebreak is not checked. */
#include "u_test.h"
	.option norvc
RVTEST_BEGIN

	/* ---- add / sub / addi ---- */
	U_RR(1, add, 0, 0, 0)
	U_RR(2, add, 2, 1, 1)
	U_RR(3, add, 0x80000000, 0x7fffffff, 1)
	U_RR(4, add, 0x8000000000000000, 0x7fffffffffffffff, 1)
	U_RR(5, add, 0, -1, 1)
	U_RR(6, add, 0xfffffffffffffffe, -1, -1)
	U_RR(7, add, 0x7fffffffffffffff, 0x8000000000000000, -1)
	U_RR(8, sub, 0, 0, 0)
	U_RR(9, sub, -1, 0, 1)
	U_RR(10, sub, -4, 3, 7)
	U_RR(11, sub, 0x7fffffffffffffff, 0x8000000000000000, 1)
	U_RR(12, sub, 0x8000000000000000, 0, 0x8000000000000000)
	U_RR(13, sub, 0xffffffff00000000, 0, 0x100000000)
	U_RI(14, addi, 0, 0, 0)
	U_RI(15, addi, -2048, 0, -2048)
	U_RI(16, addi, 2047, 0, 2047)
	U_RI(17, addi, 0x8000000000000000, 0x7fffffffffffffff, 1)
	U_RI(18, addi, 0, -1, 1)
	U_RI(19, addi, 0x7ffffffffffff7ff, 0x7fffffffffffffff, -2048)

	/* ---- addw / subw / addiw: 32-bit result, sign-extended ---- */
	U_RR(20, addw, 0xffffffff80000000, 0x7fffffff, 1)
	U_RR(21, addw, 0, 0xffffffff, 1)
	U_RR(22, addw, 2, 0x1234567800000001, 0x100000001)
	U_RR(23, addw, 0, 0x80000000, 0x80000000)
	U_RR(24, addw, -2, -1, -1)
	U_RR(25, addw, 0x7fffffff, 0x80000000, -1)
	U_RR(26, subw, -1, 0, 1)
	U_RR(27, subw, 0x7fffffff, 0x80000000, 1)
	U_RR(28, subw, 0xffffffff80000000, 0, 0x80000000)
	U_RR(29, subw, 1, 0xabcdef0000000002, 0x1234567800000001)
	U_RR(30, subw, 0xffffffff80000000, 0x7fffffff, -1)
	U_RI(31, addiw, 0xffffffff80000000, 0x7fffffff, 1)
	U_RI(32, addiw, -1, 0xffffffff, 0)
	U_RI(33, addiw, 0x23456789, 0x123456789, 0)
	U_RI(34, addiw, -2048, 0, -2048)
	U_RI(35, addiw, 2047, 0, 2047)
	U_RI(36, addiw, 0x7ffff7ff, 0xffffffff7fffffff, -2048)
	U_RI(37, addiw, 0x7fffffff, 0x80000000, -1)

	/* ---- 64-bit shifts: amounts 0/1/31/32/63, only 6 bits used ---- */
	U_RR(38, sll, 1, 1, 0)
	U_RR(39, sll, 2, 1, 1)
	U_RR(40, sll, 0x80000000, 1, 31)
	U_RR(41, sll, 0x100000000, 1, 32)
	U_RR(42, sll, 0x8000000000000000, 1, 63)
	U_RR(43, sll, 1, 1, 64)
	U_RR(44, sll, 2, 1, 0xffffffffffffffc1)
	U_RR(45, sll, 0x2468acf13579bde0, 0x123456789abcdef0, 1)
	U_RR(46, srl, 0x8000000000000000, 0x8000000000000000, 0)
	U_RR(47, srl, 0x4000000000000000, 0x8000000000000000, 1)
	U_RR(48, srl, 0x100000000, 0x8000000000000000, 31)
	U_RR(49, srl, 0x80000000, 0x8000000000000000, 32)
	U_RR(50, srl, 1, 0x8000000000000000, 63)
	U_RR(51, srl, 0x7fffffffffffffff, -1, 0xffffffffffffffc1)
	U_RR(52, sra, 0x8000000000000000, 0x8000000000000000, 0)
	U_RR(53, sra, 0xc000000000000000, 0x8000000000000000, 1)
	U_RR(54, sra, 0xffffffff00000000, 0x8000000000000000, 31)
	U_RR(55, sra, 0xffffffff80000000, 0x8000000000000000, 32)
	U_RR(56, sra, -1, 0x8000000000000000, 63)
	U_RR(57, sra, 0, 0x7fffffffffffffff, 63)
	U_RR(58, sra, 0x3fffffffffffffff, 0x7fffffffffffffff, 0x41)
	U_RI(59, slli, 0x123456789abcdef0, 0x123456789abcdef0, 0)
	U_RI(60, slli, 2, 1, 1)
	U_RI(61, slli, 0x80000000, 1, 31)
	U_RI(62, slli, 0x100000000, 1, 32)
	U_RI(63, slli, 0x8000000000000000, 1, 63)
	U_RI(64, srli, 0x8000000000000000, 0x8000000000000000, 0)
	U_RI(65, srli, 0x7fffffffffffffff, -1, 1)
	U_RI(66, srli, 0x1ffffffff, -1, 31)
	U_RI(67, srli, 0xffffffff, -1, 32)
	U_RI(68, srli, 1, -1, 63)
	U_RI(69, srai, 0x8000000000000000, 0x8000000000000000, 0)
	U_RI(70, srai, 0xc000000000000000, 0x8000000000000000, 1)
	U_RI(71, srai, 0xffffffff00000000, 0x8000000000000000, 31)
	U_RI(72, srai, 0xffffffff80000000, 0x8000000000000000, 32)
	U_RI(73, srai, -1, 0x8000000000000000, 63)
	U_RI(74, srai, 0x0fffffffffffffff, 0x7fffffffffffffff, 3)

	/* ---- 32-bit shifts: 5-bit amounts, sign-extended results ---- */
	U_RR(75, sllw, 1, 1, 0)
	U_RR(76, sllw, 0xffffffff80000000, 1, 31)
	U_RR(77, sllw, 1, 1, 32)
	U_RR(78, sllw, -1, 0xffffffff, 0)
	U_RR(79, sllw, 0xffffffffabcdef00, 0x123456789abcdef0, 4)
	U_RR(80, sllw, 0, 0xffffffff00000000, 7)
	U_RR(81, srlw, 0xffffffff80000000, 0x80000000, 0)
	U_RR(82, srlw, 0x40000000, 0x80000000, 1)
	U_RR(83, srlw, 1, 0x80000000, 31)
	U_RR(84, srlw, 0xffffffff80000000, 0xffffffff80000000, 32)
	U_RR(85, srlw, 1, 0xffffffff00000010, 4)
	U_RR(86, srlw, 0x7fffffff, -1, 0x21)
	U_RR(87, sraw, 0xffffffffc0000000, 0x80000000, 1)
	U_RR(88, sraw, -1, 0x80000000, 31)
	U_RR(89, sraw, 0, 0x7fffffff, 31)
	U_RR(90, sraw, 0x7fffffff, 0xffffffff7fffffff, 32)
	U_RR(91, sraw, 0xfffffffff8000000, 0x0000000180000000, 4)
	U_RR(92, sraw, 0xffffffff80000000, 0x80000000, 0)
	U_RI(93, slliw, 0xffffffff80000000, 0x80000000, 0)
	U_RI(94, slliw, 0xfffffffffffffffe, 0x7fffffff, 1)
	U_RI(95, slliw, 0xffffffff80000000, 1, 31)
	U_RI(96, slliw, 0x00000000, 0x100000000, 31)
	U_RI(97, srliw, 0xffffffff80000000, 0x80000000, 0)
	U_RI(98, srliw, 0x7fffffff, -1, 1)
	U_RI(99, srliw, 1, -1, 31)
	U_RI(100, srliw, 0x0fedcba9, 0x12345678fedcba98, 4)
	U_RI(101, sraiw, 0xffffffff80000000, 0x80000000, 0)
	U_RI(102, sraiw, 0xffffffffc0000000, 0x80000000, 1)
	U_RI(103, sraiw, -1, 0x80000000, 31)
	U_RI(104, sraiw, 0, 0xffffffff7fffffff, 31)

	/* ---- set-less-than ---- */
	U_RR(105, slt, 1, -1, 1)
	U_RR(106, slt, 0, 1, -1)
	U_RR(107, slt, 0, 5, 5)
	U_RR(108, slt, 1, 0x8000000000000000, 0x7fffffffffffffff)
	U_RR(109, slt, 0, 0x7fffffffffffffff, 0x8000000000000000)
	U_RR(110, slt, 0, 0x80000000, 0x7fffffff)
	U_RR(111, sltu, 1, 1, -1)
	U_RR(112, sltu, 0, -1, 1)
	U_RR(113, sltu, 1, 0, 1)
	U_RR(114, sltu, 0, 0x8000000000000000, 0x7fffffffffffffff)
	U_RI(115, slti, 1, -1, 0)
	U_RI(116, slti, 0, 0, 0)
	U_RI(117, slti, 1, 0x8000000000000000, -2048)
	U_RI(118, slti, 1, 2046, 2047)
	U_RI(119, slti, 0, 0x7fffffffffffffff, 2047)
	U_RI(120, sltiu, 1, 0, 1)
	U_RI(121, sltiu, 0, 5, 1)
	U_RI(122, sltiu, 1, 0x7fffffffffffffff, -1)
	U_RI(123, sltiu, 0, -1, -1)
	U_RI(124, sltiu, 1, 0xfffffffffffff7ff, -2048)
	U_RI(125, sltiu, 0, 2047, 2047)

	/* ---- logic ---- */
	U_RR(126, and, 0x0f000f000f000f00, 0xff00ff00ff00ff00, 0x0f0f0f0f0f0f0f0f)
	U_RR(127, or, 0xff0fff0fff0fff0f, 0xff00ff00ff00ff00, 0x0f0f0f0f0f0f0f0f)
	U_RR(128, xor, 0xf00ff00ff00ff00f, 0xff00ff00ff00ff00, 0x0f0f0f0f0f0f0f0f)
	U_RI(129, andi, 0x123456789abcde00, 0x123456789abcdef0, -256)
	U_RI(130, andi, 0x0f0, 0xff00ff00ff00fff0, 0x0ff)
	U_RI(131, andi, 0, 0xffffffffffff0000, 2047)
	U_RI(132, ori, 0xfffffffffffff800, 0, -2048)
	U_RI(133, ori, 0xff00ff00ff00fff0, 0xff00ff00ff00ff00, 0x0f0)
	U_RI(134, xori, 0xedcba98765432100, 0x123456789abcdeff, -1)
	U_RI(135, xori, 0x00ff00ff00ff07ff, 0x00ff00ff00ff0700, 0x0ff)

	/* ---- lui / auipc ---- */
	U_NUM(136)
	lui a0, 0
	U_CHECKR(a0, 0)
	U_NUM(137)
	lui a0, 0x12345
	U_CHECKR(a0, 0x12345000)
	U_NUM(138)
	lui a0, 0x80000
	U_CHECKR(a0, 0xffffffff80000000)
	U_NUM(139)
	lui a0, 0xfffff
	U_CHECKR(a0, 0xfffffffffffff000)
	U_NUM(140)
	lui a0, 0x7ffff
	U_CHECKR(a0, 0x7ffff000)
	U_NUM(141)
	/* auipc 0 against the link of a jal and against an address constant */
	jal t1, u_auipc1
u_auipc1:
	auipc a0, 0
	bne a0, t1, fail_common
	la a1, u_addr_auipc1
	ld a1, 0(a1)
	bne a0, a1, fail_common
	U_NUM(142)
	jal t1, 1f
1:	auipc a0, 1
	li t0, 0x1000
	add t1, t1, t0
	bne a0, t1, fail_common
	U_NUM(143)
	/* negative upper immediate: pc - 2^31 */
	jal t1, 1f
1:	auipc a0, 0x80000
	li t0, 0xffffffff80000000
	add t1, t1, t0
	bne a0, t1, fail_common
	U_NUM(144)
	jal t1, 1f
1:	auipc a0, 0xfffff
	addi t1, t1, -2048
	addi t1, t1, -2048
	bne a0, t1, fail_common

	/* ---- x0 is hard-wired to zero ---- */
	U_NUM(145)
	li a0, 5
	addi x0, x0, 5
	lui x0, 0x12345
	add x0, a0, a0
	mv a0, x0
	U_CHECKR(a0, 0)
	U_NUM(146)
	add a0, x0, x0
	U_CHECKR(a0, 0)
	/* rd == rs1 == rs2 */
	U_NUM(147)
	li a0, 13
	add a0, a0, a0
	U_CHECKR(a0, 26)
	U_NUM(148)
	li a0, 0x40000000
	addw a0, a0, a0
	U_CHECKR(a0, 0xffffffff80000000)
	U_NUM(149)
	li a0, 3
	sll a0, a0, a0
	U_CHECKR(a0, 24)

	/* ---- branches ---- */
	U_BR_T(150, beq, 0, 0)
	U_BR_N(151, beq, 1, 2)
	U_BR_N(152, beq, 0x100000000, 0)
	U_BR_T(153, bne, 0x100000000, 0)
	U_BR_N(154, bne, 7, 7)
	U_BR_T(155, blt, -1, 1)
	U_BR_T(156, blt, 0x8000000000000000, 0x7fffffffffffffff)
	U_BR_N(157, blt, 1, -1)
	U_BR_N(158, blt, 5, 5)
	U_BR_N(159, blt, 0x7fffffffffffffff, 0x8000000000000000)
	U_BR_T(160, bge, 5, 5)
	U_BR_T(161, bge, 1, -1)
	U_BR_T(162, bge, 0x7fffffffffffffff, 0x8000000000000000)
	U_BR_N(163, bge, -1, 1)
	U_BR_T(164, bltu, 1, -1)
	U_BR_T(165, bltu, 0, 1)
	U_BR_N(166, bltu, -1, 1)
	U_BR_N(167, bltu, 5, 5)
	U_BR_T(168, bgeu, -1, 1)
	U_BR_T(169, bgeu, 5, 5)
	U_BR_T(170, bgeu, 0x8000000000000000, 0x7fffffffffffffff)
	U_BR_N(171, bgeu, 1, -1)
	/* backward branch: a counted loop */
	U_NUM(172)
	li a0, 0
	li a1, 10
1:	addi a0, a0, 1
	bne a0, a1, 1b
	U_CHECKR(a0, 10)
	/* extreme offsets: +4092 (largest 4-aligned) and -4096 */
	U_NUM(173)
	beq x0, x0, 1f
	.skip 4088
1:	nop
	U_NUM(174)
	j 2f
1:	j 3f
	.skip 4092
2:	bgeu x0, x0, 1b
	j fail_common
3:
	/* ---- jal / jalr ---- */
	U_NUM(175)
	jal t1, 1f
2:	j fail_common
1:	la t2, 2b
	bne t1, t2, fail_common
	U_NUM(176)
	/* far jal: offset above 6 KiB (imm bits 11 and up) forward and back */
	jal ra, u_jal_far
u_jal_back:
	la t2, u_jal_back
	bne ra, t2, fail_common
	li t2, 0x5a
	bne a0, t2, fail_common
	U_NUM(177)
	la t0, 1f
	jalr t1, 0(t0)
2:	j fail_common
1:	la t2, 2b
	bne t1, t2, fail_common
	U_NUM(178)
	la t0, 1f
	addi t0, t0, -8
	jalr t1, 8(t0)
	j fail_common
1:	U_NUM(179)
	la t0, 1f
	addi t0, t0, 16
	jalr t1, -16(t0)
	j fail_common
1:	U_NUM(180)
	/* target bit 0 is cleared */
	la t0, 1f
	addi t0, t0, 1
	jalr t1, 0(t0)
	j fail_common
1:	U_NUM(181)
	la t0, 1f
	jalr t1, 1(t0)
	j fail_common
1:	U_NUM(182)
	/* rd == rs1: the target uses the old rs1 */
	la t0, 1f
	jalr t0, 0(t0)
2:	j fail_common
1:	la t2, 2b
	bne t0, t2, fail_common
	U_NUM(183)
	/* imm extremes */
	la t0, 1f
	li t2, 2047
	sub t0, t0, t2
	jalr x0, 2047(t0)
	j fail_common
1:	U_NUM(184)
	la t0, 1f
	addi t0, t0, 2047
	addi t0, t0, 1
	jalr x0, -2048(t0)
	j fail_common
1:	U_NUM(185)
	/* jalr x0 writes nothing */
	li t1, 77
	la t0, 1f
	jalr x0, 0(t0)
	j fail_common
1:	U_CHECKR(t1, 77)

	/* ---- loads ---- */
	U_LD(186, lb, 0xffffffffffffff81, u_ldat, 0)
	U_LD(187, lbu, 0x81, u_ldat, 0)
	U_LD(188, lb, 0x72, u_ldat, 1)
	U_LD(189, lb, -1, u_ldat, 14)
	U_LD(190, lbu, 0xff, u_ldat, 14)
	U_LD(191, lh, 0x7281, u_ldat, 0)
	U_LD(192, lh, 0xfffffffffffff483, u_ldat, 2)
	U_LD(193, lhu, 0xf483, u_ldat, 2)
	U_LD(194, lw, 0xfffffffff4837281, u_ldat, 0)
	U_LD(195, lwu, 0xf4837281, u_ldat, 0)
	U_LD(196, lw, 0x18879605, u_ldat, 4)
	U_LD(197, lw, 0xffffffffcc3baa99, u_ldat, 8)
	U_LD(198, lwu, 0xcc3baa99, u_ldat, 8)
	U_LD(199, lwu, 0x10ff6edd, u_ldat, 12)
	U_LD(200, ld, 0x18879605f4837281, u_ldat, 0)
	U_LD(201, ld, 0x10ff6eddcc3baa99, u_ldat, 8)
	/* negative offsets */
	U_LD(202, lb, 0xffffffffffffff81, u_ldat_end, -16)
	U_LD(203, lhu, 0x10ff, u_ldat_end, -2)
	U_LD(204, lw, 0x18879605, u_ldat_end, -12)
	U_LD(205, ld, 0x18879605f4837281, u_ldat_end, -16)
	/* misaligned loads are performed */
	U_LD(206, lh, 0xffffffffffff8372, u_ldat, 1)
	U_LD(207, lhu, 0x8372, u_ldat, 1)
	U_LD(208, lh, 0xffffffffffff9918, u_ldat, 7)
	U_LD(209, lhu, 0x9918, u_ldat, 7)
	U_LD(210, lh, 0xffffffffffffff6e, u_ldat, 13)
	U_LD(211, lw, 0x5f48372, u_ldat, 1)
	U_LD(212, lw, 0xffffffff879605f4, u_ldat, 3)
	U_LD(213, lwu, 0x879605f4, u_ldat, 3)
	U_LD(214, lw, 0xffffffffaa991887, u_ldat, 6)
	U_LD(215, lwu, 0xaa991887, u_ldat, 6)
	U_LD(216, lwu, 0xff6eddcc, u_ldat, 11)
	U_LD(217, ld, 0x9918879605f48372, u_ldat, 1)
	U_LD(218, ld, 0xddcc3baa99188796, u_ldat, 5)
	U_LD(219, ld, 0xff6eddcc3baa9918, u_ldat, 7)
	/* across a page boundary (u_pgx is 8 bytes before one) */
	U_LD(220, ld, 0x0b0a0908070605fb, u_pgx, 4)
	U_LD(221, lw, 0x0a090807, u_pgx, 7)
	U_LD(222, lh, 0xfffffffffffff8f7, u_pgx, 0)
	U_LD(223, lhu, 0x0807, u_pgx, 7)
	/* loading into x0 discards the value */
	U_NUM(224)
	la a1, u_ldat
	ld x0, 0(a1)
	mv a0, x0
	U_CHECKR(a0, 0)

	/* ---- stores (buffer prefilled with 0xaa) ---- */
	U_ST(225, sb, u_sbuf, 0x0123456789abcdef, 0, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaef, 0xaaaaaaaaaaaaaaaa)
	U_ST(226, sb, u_sbuf, 0x0123456789abcdef, 7, 0xaaaaaaaaaaaaaaaa, 0xefaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(227, sb, u_sbuf, 0x0123456789abcdef, -1, 0xefaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(228, sh, u_sbuf, 0x0123456789abcdef, 0, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaacdef, 0xaaaaaaaaaaaaaaaa)
	U_ST(229, sh, u_sbuf, 0x0123456789abcdef, 6, 0xaaaaaaaaaaaaaaaa, 0xcdefaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(230, sh, u_sbuf, 0x0123456789abcdef, -2, 0xcdefaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(231, sw, u_sbuf, 0x0123456789abcdef, 0, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaa89abcdef, 0xaaaaaaaaaaaaaaaa)
	U_ST(232, sw, u_sbuf, 0x0123456789abcdef, 4, 0xaaaaaaaaaaaaaaaa, 0x89abcdefaaaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(233, sw, u_sbuf, 0x0123456789abcdef, -4, 0x89abcdefaaaaaaaa, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(234, sd, u_sbuf, 0x0123456789abcdef, 0, 0xaaaaaaaaaaaaaaaa, 0x0123456789abcdef, 0xaaaaaaaaaaaaaaaa)
	U_ST(235, sd, u_sbuf, 0x0123456789abcdef, 8, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa, 0x0123456789abcdef)
	/* misaligned stores are performed */
	U_ST(236, sh, u_sbuf, 0x0123456789abcdef, 1, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaacdefaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(237, sh, u_sbuf, 0x0123456789abcdef, 7, 0xaaaaaaaaaaaaaaaa, 0xefaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaacd)
	U_ST(238, sh, u_sbuf, 0x0123456789abcdef, -1, 0xefaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaacd, 0xaaaaaaaaaaaaaaaa)
	U_ST(239, sw, u_sbuf, 0x0123456789abcdef, 1, 0xaaaaaaaaaaaaaaaa, 0xaaaaaa89abcdefaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(240, sw, u_sbuf, 0x0123456789abcdef, 3, 0xaaaaaaaaaaaaaaaa, 0xaa89abcdefaaaaaa, 0xaaaaaaaaaaaaaaaa)
	U_ST(241, sw, u_sbuf, 0x0123456789abcdef, 6, 0xaaaaaaaaaaaaaaaa, 0xcdefaaaaaaaaaaaa, 0xaaaaaaaaaaaa89ab)
	U_ST(242, sw, u_sbuf, 0x0123456789abcdef, -2, 0xcdefaaaaaaaaaaaa, 0xaaaaaaaaaaaa89ab, 0xaaaaaaaaaaaaaaaa)
	U_ST(243, sd, u_sbuf, 0x0123456789abcdef, 1, 0xaaaaaaaaaaaaaaaa, 0x23456789abcdefaa, 0xaaaaaaaaaaaaaa01)
	U_ST(244, sd, u_sbuf, 0x0123456789abcdef, 3, 0xaaaaaaaaaaaaaaaa, 0x6789abcdefaaaaaa, 0xaaaaaaaaaa012345)
	U_ST(245, sd, u_sbuf, 0x0123456789abcdef, 7, 0xaaaaaaaaaaaaaaaa, 0xefaaaaaaaaaaaaaa, 0xaa0123456789abcd)
	U_ST(246, sd, u_sbuf, 0x0123456789abcdef, -5, 0x6789abcdefaaaaaa, 0xaaaaaaaaaa012345, 0xaaaaaaaaaaaaaaaa)
	/* across a page boundary: u_pgst is 8 bytes before one */
	U_ST(247, sd, u_pgst, 0x0123456789abcdef, 5, 0xaaaaaaaaaaaaaaaa, 0xabcdefaaaaaaaaaa, 0xaaaaaa0123456789)
	U_ST(248, sw, u_pgst, 0x0123456789abcdef, 6, 0xaaaaaaaaaaaaaaaa, 0xcdefaaaaaaaaaaaa, 0xaaaaaaaaaaaa89ab)
	U_ST(249, sh, u_pgst, 0x0123456789abcdef, 7, 0xaaaaaaaaaaaaaaaa, 0xefaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaacd)
	/* store then load back through a different width */
	U_NUM(250)
	la a1, u_sbuf
	li a2, -2
	sw a2, 0(a1)
	lhu a0, 2(a1)
	U_CHECKR(a0, 0xffff)
	lbu a0, 0(a1)
	U_CHECKR(a0, 0xfe)

	/* ---- fence, hints ---- */
	U_NUM(251)
	li a0, 9
	fence
	fence rw, rw
	fence r, w
	fence iorw, iorw
	fence.tso
	.word 0x0100000f	/* pause (fence w,0) */
	nop
	U_CHECKR(a0, 9)

	/* ---- ecall / ebreak trap with the right cause and mepc ---- */
	U_TRAP_ARM
	U_TRAP_BEGIN(252)
1:	ecall
	U_TRAP_CHECK(11, 1b)
	U_TRAP_BEGIN(253)
1:	ebreak
	U_TRAP_CHECK(3, 1b)
	U_TRAP_DISARM

	PASS

	/* far jal target: 0x1800 bytes after the jal above is not reachable
	 * by a 12-bit branch; comes back with a backward jal */
	.skip 0x1800
u_jal_far:
	li a0, 0x5a
	jal x0, u_jal_back

U_TRAP_HANDLER
RVTEST_END

	.data
	.balign 8
u_addr_auipc1:
	.dword u_auipc1	/* the address of the first auipc */
u_ldat:
	.byte 0x81, 0x72, 0x83, 0xf4, 0x05, 0x96, 0x87, 0x18
	.byte 0x99, 0xaa, 0x3b, 0xcc, 0xdd, 0x6e, 0xff, 0x10
u_ldat_end:
	.balign 8
u_sbuf:
	.dword 0, 0, 0
	.balign 4096
	.skip 4096 - 8
u_pgx:	/* 8 bytes before a page boundary, 8 after */
	.byte 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0x05, 0x06, 0x07
	.byte 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f
	.balign 4096
	.skip 4096 - 16
u_pgst:	/* store buffer: its 24 bytes straddle a page boundary at +8 */
	.dword 0, 0, 0
