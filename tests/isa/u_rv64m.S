/* u_rv64m.S: the RV64M multiply/divide instructions (32-bit encodings):
 * mul, mulh, mulhsu, mulhu, mulw, div, divu, rem, remu, divw, divuw, remw,
 * remuw. Covers negative operands for the high-half multiplies (mulhsu
 * treats rs2 as unsigned), the sign extension of every W result and the W
 * forms ignoring the upper 32 bits of their operands, division rounding
 * toward zero with the sign of the remainder following the dividend,
 * division by zero for every variant (quotient all ones, remainder = the
 * dividend, sign-extended from 32 bits for the W forms), and the signed
 * overflow case INT_MIN / -1 (quotient INT_MIN, remainder 0) for 64 and
 * 32 bits, plus the unsigned forms on the same bit patterns.
 * Nothing here is implementation-defined. */
#include "u_test.h"
	.option norvc
RVTEST_BEGIN

	/* mul */
	U_RR(1, mul, 0x0, 0x0, 0x0)
	U_RR(2, mul, 0x15, 0x3, 0x7)
	U_RR(3, mul, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
	U_RR(4, mul, 0x1, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(5, mul, 0xfffffffffffffffe, 0x7fffffffffffffff, 0x2)
	U_RR(6, mul, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(7, mul, 0x0, 0x100000000, 0x100000000)
	U_RR(8, mul, 0x236d88fe5618cf00, 0x123456789abcdef0, 0xfedcba9876543210)
	U_RR(9, mul, 0xffffffffffffffeb, 0xfffffffffffffff9, 0x3)
	U_RR(10, mul, 0xfffffffe00000001, 0xffffffff, 0xffffffff)
	/* mulh */
	U_RR(11, mulh, 0x0, 0x0, 0x0)
	U_RR(12, mulh, 0x0, 0x3, 0x7)
	U_RR(13, mulh, 0x0, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(14, mulh, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
	U_RR(15, mulh, 0x4000000000000000, 0x8000000000000000, 0x8000000000000000)
	U_RR(16, mulh, 0x0, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(17, mulh, 0x3fffffffffffffff, 0x7fffffffffffffff, 0x7fffffffffffffff)
	U_RR(18, mulh, 0xc000000000000000, 0x7fffffffffffffff, 0x8000000000000000)
	U_RR(19, mulh, 0xffffffffffffffff, 0xfffffffffffffffe, 0x4000000000000000)
	U_RR(20, mulh, 0xffeb49923cc09532, 0x123456789abcdef0, 0xfedcba9876543210)
	/* mulhsu */
	U_RR(21, mulhsu, 0x0, 0x0, 0x0)
	U_RR(22, mulhsu, 0x0, 0x3, 0x7)
	U_RR(23, mulhsu, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
	U_RR(24, mulhsu, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(25, mulhsu, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(26, mulhsu, 0x7ffffffffffffffe, 0x7fffffffffffffff, 0xffffffffffffffff)
	U_RR(27, mulhsu, 0xffffffffffffffff, 0xfffffffffffffffe, 0x8000000000000000)
	U_RR(28, mulhsu, 0xc000000000000000, 0x8000000000000000, 0x8000000000000000)
	U_RR(29, mulhsu, 0x121fa00ad77d7422, 0x123456789abcdef0, 0xfedcba9876543210)
	U_RR(30, mulhsu, 0x0, 0xffffffffffffffff, 0x0)
	/* mulhu */
	U_RR(31, mulhu, 0x0, 0x0, 0x0)
	U_RR(32, mulhu, 0x0, 0x3, 0x7)
	U_RR(33, mulhu, 0xfffffffffffffffe, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(34, mulhu, 0x0, 0xffffffffffffffff, 0x1)
	U_RR(35, mulhu, 0x1, 0xffffffffffffffff, 0x2)
	U_RR(36, mulhu, 0x4000000000000000, 0x8000000000000000, 0x8000000000000000)
	U_RR(37, mulhu, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(38, mulhu, 0x121fa00ad77d7422, 0x123456789abcdef0, 0xfedcba9876543210)
	U_RR(39, mulhu, 0x1, 0x100000000, 0x100000000)
	/* mulw */
	U_RR(40, mulw, 0x0, 0x0, 0x0)
	U_RR(41, mulw, 0x15, 0x3, 0x7)
	U_RR(42, mulw, 0x1, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(43, mulw, 0xfffffffffffffffe, 0x7fffffff, 0x2)
	U_RR(44, mulw, 0x0, 0x10000, 0x10000)
	U_RR(45, mulw, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)
	U_RR(46, mulw, 0x468acf12, 0x123456789, 0x100000002)
	U_RR(47, mulw, 0x1, 0xffffffff, 0xffffffff)
	U_RR(48, mulw, 0xfffffffffffffff1, 0xfffffffffffffffd, 0x5)
	U_RR(49, mulw, 0x1, 0x7fffffff, 0x7fffffff)
	/* div */
	U_RR(50, div, 0x3, 0x14, 0x6)
	U_RR(51, div, 0xfffffffffffffffd, 0xffffffffffffffec, 0x6)
	U_RR(52, div, 0xfffffffffffffffd, 0x14, 0xfffffffffffffffa)
	U_RR(53, div, 0x3, 0xffffffffffffffec, 0xfffffffffffffffa)
	U_RR(54, div, 0x3, 0x7, 0x2)
	U_RR(55, div, 0xfffffffffffffffd, 0xfffffffffffffff9, 0x2)
	U_RR(56, div, 0xfffffffffffffffd, 0x7, 0xfffffffffffffffe)
	U_RR(57, div, 0x3, 0xfffffffffffffff9, 0xfffffffffffffffe)
	U_RR(58, div, 0x0, 0x0, 0x5)
	U_RR(59, div, 0xffffffffffffffff, 0x5, 0x0)
	U_RR(60, div, 0xffffffffffffffff, 0xfffffffffffffffb, 0x0)
	U_RR(61, div, 0xffffffffffffffff, 0x0, 0x0)
	U_RR(62, div, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(63, div, 0x8000000000000000, 0x8000000000000000, 0x1)
	U_RR(64, div, 0xffffffffffffffff, 0x8000000000000000, 0x0)
	U_RR(65, div, 0x8000000000000001, 0x7fffffffffffffff, 0xffffffffffffffff)
	U_RR(66, div, 0x0, 0x1, 0x8000000000000000)
	/* divu */
	U_RR(67, divu, 0x3, 0x14, 0x6)
	U_RR(68, divu, 0x2aaaaaaaaaaaaaa7, 0xffffffffffffffec, 0x6)
	U_RR(69, divu, 0x0, 0x14, 0xfffffffffffffffa)
	U_RR(70, divu, 0x3, 0x7, 0x2)
	U_RR(71, divu, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
	U_RR(72, divu, 0x7fffffffffffffff, 0xffffffffffffffff, 0x2)
	U_RR(73, divu, 0xffffffffffffffff, 0x5, 0x0)
	U_RR(74, divu, 0xffffffffffffffff, 0x0, 0x0)
	U_RR(75, divu, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
	U_RR(76, divu, 0x0, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(77, divu, 0x1, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(78, divu, 0x4000000000000000, 0x8000000000000000, 0x2)
	/* rem */
	U_RR(79, rem, 0x2, 0x14, 0x6)
	U_RR(80, rem, 0xfffffffffffffffe, 0xffffffffffffffec, 0x6)
	U_RR(81, rem, 0x2, 0x14, 0xfffffffffffffffa)
	U_RR(82, rem, 0xfffffffffffffffe, 0xffffffffffffffec, 0xfffffffffffffffa)
	U_RR(83, rem, 0x1, 0x7, 0x2)
	U_RR(84, rem, 0xffffffffffffffff, 0xfffffffffffffff9, 0x2)
	U_RR(85, rem, 0x1, 0x7, 0xfffffffffffffffe)
	U_RR(86, rem, 0xffffffffffffffff, 0xfffffffffffffff9, 0xfffffffffffffffe)
	U_RR(87, rem, 0x5, 0x5, 0x0)
	U_RR(88, rem, 0xfffffffffffffffb, 0xfffffffffffffffb, 0x0)
	U_RR(89, rem, 0x0, 0x0, 0x0)
	U_RR(90, rem, 0x0, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(91, rem, 0x8000000000000000, 0x8000000000000000, 0x0)
	U_RR(92, rem, 0xfffffffffffffffe, 0x8000000000000000, 0x3)
	U_RR(93, rem, 0x7fffffffffffffff, 0x7fffffffffffffff, 0x8000000000000000)
	/* remu */
	U_RR(94, remu, 0x2, 0x14, 0x6)
	U_RR(95, remu, 0x2, 0xffffffffffffffec, 0x6)
	U_RR(96, remu, 0x14, 0x14, 0xfffffffffffffffa)
	U_RR(97, remu, 0x1, 0x7, 0x2)
	U_RR(98, remu, 0x5, 0x5, 0x0)
	U_RR(99, remu, 0x0, 0x0, 0x0)
	U_RR(100, remu, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
	U_RR(101, remu, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
	U_RR(102, remu, 0x0, 0xffffffffffffffff, 0xffffffffffffffff)
	U_RR(103, remu, 0x5, 0xffffffffffffffff, 0xa)
	/* divw */
	U_RR(104, divw, 0x3, 0x14, 0x6)
	U_RR(105, divw, 0xfffffffffffffffd, 0xffffffffffffffec, 0x6)
	U_RR(106, divw, 0xfffffffffffffffd, 0x14, 0xfffffffffffffffa)
	U_RR(107, divw, 0x3, 0xffffffffffffffec, 0xfffffffffffffffa)
	U_RR(108, divw, 0xfffffffffffffffd, 0xfffffffffffffff9, 0x2)
	U_RR(109, divw, 0xfffffffffffffffd, 0x7, 0xfffffffffffffffe)
	U_RR(110, divw, 0xffffffffffffffff, 0x5, 0x0)
	U_RR(111, divw, 0xffffffffffffffff, 0xfffffffffffffffb, 0x0)
	U_RR(112, divw, 0xffffffffffffffff, 0x0, 0x0)
	U_RR(113, divw, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)
	U_RR(114, divw, 0xffffffff80000000, 0xffffffff80000000, 0xffffffff)
	U_RR(115, divw, 0xffffffff80000000, 0x80000000, 0x1)
	U_RR(116, divw, 0xffffffffffffffff, 0x80000000, 0x0)
	U_RR(117, divw, 0x3, 0x100000014, 0x200000006)
	U_RR(118, divw, 0xffffffff80000001, 0x7fffffff, 0xffffffffffffffff)
	U_RR(119, divw, 0xffffffffffffffff, 0xffffffff00000000, 0x0)
	/* divuw */
	U_RR(120, divuw, 0x3, 0x14, 0x6)
	U_RR(121, divuw, 0x2aaaaaa7, 0xffffffffffffffec, 0x6)
	U_RR(122, divuw, 0x0, 0x14, 0xfffffffffffffffa)
	U_RR(123, divuw, 0xffffffffffffffff, 0xffffffff, 0x1)
	U_RR(124, divuw, 0x7fffffff, 0xffffffff, 0x2)
	U_RR(125, divuw, 0xffffffffffffffff, 0x5, 0x0)
	U_RR(126, divuw, 0xffffffffffffffff, 0x0, 0x0)
	U_RR(127, divuw, 0x0, 0x80000000, 0xffffffffffffffff)
	U_RR(128, divuw, 0x0, 0xffffffff80000000, 0xffffffff)
	U_RR(129, divuw, 0x3, 0x100000014, 0x200000006)
	U_RR(130, divuw, 0xffffffffffffffff, 0xffffffff, 0x100000000)
	U_RR(131, divuw, 0xffffffff80000000, 0x80000000, 0x1)
	/* remw */
	U_RR(132, remw, 0x2, 0x14, 0x6)
	U_RR(133, remw, 0xfffffffffffffffe, 0xffffffffffffffec, 0x6)
	U_RR(134, remw, 0x2, 0x14, 0xfffffffffffffffa)
	U_RR(135, remw, 0xfffffffffffffffe, 0xffffffffffffffec, 0xfffffffffffffffa)
	U_RR(136, remw, 0xffffffffffffffff, 0xfffffffffffffff9, 0x2)
	U_RR(137, remw, 0x1, 0x7, 0xfffffffffffffffe)
	U_RR(138, remw, 0x5, 0x5, 0x0)
	U_RR(139, remw, 0xfffffffffffffffb, 0xfffffffffffffffb, 0x0)
	U_RR(140, remw, 0xffffffff80000000, 0x80000000, 0x0)
	U_RR(141, remw, 0xa, 0x123456780000000a, 0x0)
	U_RR(142, remw, 0x0, 0x80000000, 0xffffffffffffffff)
	U_RR(143, remw, 0xfffffffffffffffe, 0x80000000, 0x3)
	U_RR(144, remw, 0x2, 0x100000014, 0x200000006)
	U_RR(145, remw, 0xffffffffffffffff, 0xfffffffffffffff9, 0x100000002)
	/* remuw */
	U_RR(146, remuw, 0x2, 0x14, 0x6)
	U_RR(147, remuw, 0x2, 0xffffffffffffffec, 0x6)
	U_RR(148, remuw, 0x14, 0x14, 0xfffffffffffffffa)
	U_RR(149, remuw, 0x5, 0x5, 0x0)
	U_RR(150, remuw, 0xffffffff80000000, 0x80000000, 0x0)
	U_RR(151, remuw, 0xfffffffffffffffe, 0x12345678fffffffe, 0x0)
	U_RR(152, remuw, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)
	U_RR(153, remuw, 0x1, 0xffffffff, 0xfffffffe)
	U_RR(154, remuw, 0x2, 0x100000014, 0x200000006)
	U_RR(155, remuw, 0xffffffffffffffff, 0xffffffff, 0x100000000)

	/* destination equal to a source */
	U_NUM(156)
	li a0, -6
	li a1, 7
	mul a0, a0, a1
	U_CHECKR(a0, -42)
	U_NUM(157)
	li a0, -7
	mul a0, a0, a0
	U_CHECKR(a0, 49)
	U_NUM(158)
	li a0, -1
	mulhu a0, a0, a0
	U_CHECKR(a0, 0xfffffffffffffffe)
	U_NUM(159)
	li a0, 100
	li a1, 7
	div a1, a0, a1
	U_CHECKR(a1, 14)
	U_NUM(160)
	li a0, 100
	li a1, 7
	rem a0, a0, a1
	U_CHECKR(a0, 2)
	U_NUM(161)
	li a0, 0x80000000
	divw a0, a0, a0
	U_CHECKR(a0, 1)
	U_NUM(162)
	/* results to x0 are discarded */
	li a1, 6
	li a2, 7
	mul x0, a1, a2
	div x0, a1, x0
	mv a0, x0
	U_CHECKR(a0, 0)

	PASS
RVTEST_END
