/* u_rv64a.S: the RV64A atomic instructions (32-bit encodings).
 * - LR/SC (.w and .d): lr sign-extends (.w), a successful sc writes 0 and
 *   stores (only 4 bytes for .w), a second sc after a successful one fails
 *   (the first sc consumed the reservation), sc without any reservation
 *   fails, writes 1 and leaves memory alone, a later lr replaces the
 *   reservation, an lr/sc retry loop, .aq/.rl/.aqrl forms.
 * - Every AMO in .w and .d form (swap, add, and, or, xor, min, max, minu,
 *   maxu): rd gets the old value (sign-extended for .w), memory gets the
 *   result, the neighbouring bytes are untouched, .w uses only the low 32
 *   bits of rs2 and compares signed/unsigned on 32 bits; rd = x0 and
 *   rd = rs2 forms, ordering-bit forms.
 * - Misaligned lr.w/lr.d trap with load-address-misaligned (4), misaligned
 *   AMOs with an address-misaligned trap, memory and rd unchanged.
 *
 * Implementation-defined behaviour pinned to QEMU 7.2:
 * - the failure code of sc is 1 (the spec only reserves 1 as the
 *   "unspecified failure" code; any nonzero value is a failure).
 * - the reservation set does not reach an address 4096 bytes away (the
 *   size of the reservation set is implementation-defined; QEMU reserves
 *   exactly the lr address).
 * - misaligned LR/AMO raise address-misaligned rather than access-fault
 *   (cause 4 for lr), and mtval holds the address.
 * - a misaligned AMO is accepted with cause 6 (store/AMO-address-misaligned,
 *   what the spec and the board want) or 4: QEMU 7.2 reports 4.
 * - an sc that should succeed never fails spuriously (a retry loop counts
 *   its attempts).
 * Not tested: misaligned sc (QEMU 7.2 compares the address with the
 * reservation first and just fails without a trap). */
#include "u_test.h"
	.option norvc

/* AMO .w on the word at u_amo+8+off (off 0 or 4), neighbours 0x5a. */
#define U_AMO_WO(n, inst, off, m, r, old, new)                                 \
	U_NUM(n)                                                               \
	la a1, u_amo;                                                          \
	li t0, 0x5a5a5a5a5a5a5a5a;                                             \
	sd t0, 0(a1);                                                          \
	sd t0, 8(a1);                                                          \
	sd t0, 16(a1);                                                         \
	addi a3, a1, 8 + off;                                                  \
	li t0, m;                                                              \
	sw t0, 0(a3);                                                          \
	li a2, r;                                                              \
	inst a0, a2, (a3);                                                     \
	U_CHECKR(a0, old)                                                      \
	lwu t1, 0(a3);                                                         \
	U_CHECKR(t1, new)                                                      \
	lwu t1, 4(a3);                                                         \
	U_CHECKR(t1, 0x5a5a5a5a)                                               \
	lwu t1, -4(a3);                                                        \
	U_CHECKR(t1, 0x5a5a5a5a)

#define U_AMO_W(n, inst, m, r, old, new) U_AMO_WO(n, inst, 0, m, r, old, new)

/* AMO .d on the dword at u_amo+8, neighbours 0x5a. */
#define U_AMO_D(n, inst, m, r, old, new)                                       \
	U_NUM(n)                                                               \
	la a1, u_amo;                                                          \
	li t0, 0x5a5a5a5a5a5a5a5a;                                             \
	sd t0, 0(a1);                                                          \
	sd t0, 16(a1);                                                         \
	addi a3, a1, 8;                                                        \
	li t0, m;                                                              \
	sd t0, 0(a3);                                                          \
	li a2, r;                                                              \
	inst a0, a2, (a3);                                                     \
	U_CHECKR(a0, old)                                                      \
	ld t1, 0(a3);                                                          \
	U_CHECKR(t1, new)                                                      \
	ld t1, 8(a3);                                                          \
	U_CHECKR(t1, 0x5a5a5a5a5a5a5a5a)                                       \
	ld t1, -8(a3);                                                         \
	U_CHECKR(t1, 0x5a5a5a5a5a5a5a5a)

/* A misaligned AMO must trap with store/AMO-address-misaligned (6); QEMU
 * 7.2 reports load-address-misaligned (4) instead, so both are accepted. */
#define U_AMO_TRAP_CHECK(lab)                                                  \
	li t2, 4;                                                              \
	beq s10, t2, 2f;                                                       \
	U_CHECKR(s10, 6)                                                       \
	2: la t2, lab;                                                         \
	bne s11, t2, fail_common;

RVTEST_BEGIN

	/* ---- sc with no reservation at all (nothing reserved since reset) */
	U_NUM(1)
	la a3, u_lrsc
	li t0, 0x1111111111111111
	sd t0, 0(a3)
	li a2, 0x22
	li a0, 0x77
	sc.w a0, a2, (a3)
	U_CHECKR(a0, 1)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x1111111111111111)
	U_NUM(2)
	li a0, 0x77
	sc.d a0, a2, (a3)
	U_CHECKR(a0, 1)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x1111111111111111)

	/* ---- lr.w / sc.w ---- */
	U_NUM(3)
	la a3, u_lrsc
	li t0, 0x5a5a5a5a80000005
	sd t0, 0(a3)
	lr.w a0, (a3)
	U_CHECKR(a0, 0xffffffff80000005)
	U_NUM(4)
	li a2, 0x1234567800000042
	sc.w a0, a2, (a3)
	U_CHECKR(a0, 0)
	U_NUM(5)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x5a5a5a5a00000042)
	U_NUM(6)
	/* the successful sc consumed the reservation: a second one fails */
	li a2, 0x99
	sc.w a0, a2, (a3)
	U_CHECKR(a0, 1)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x5a5a5a5a00000042)
	U_NUM(7)
	/* lr of a positive word: no sign extension */
	li t0, 0x7fffffff
	sw t0, 4(a3)
	addi a4, a3, 4
	lr.w a0, (a4)
	U_CHECKR(a0, 0x7fffffff)
	li a2, 0xfffffffe
	sc.w a0, a2, (a4)
	U_CHECKR(a0, 0)
	ld t1, 0(a3)
	U_CHECKR(t1, 0xfffffffe00000042)
	U_NUM(8)
	/* sc to an address far outside the reservation fails, and clears it */
	lr.w a0, (a3)
	addi a4, a3, 2047
	addi a4, a4, 2047
	addi a4, a4, 2	/* a3 + 4096 */
	li t0, 0x3333
	sw t0, 0(a4)
	li a2, 0x44
	sc.w a0, a2, (a4)
	U_CHECKR(a0, 1)
	lw t1, 0(a4)
	U_CHECKR(t1, 0x3333)
	sc.w a0, a2, (a3)
	U_CHECKR(a0, 1)
	lw t1, 0(a3)
	U_CHECKR(t1, 0x42)
	U_NUM(9)
	/* a later lr replaces the reservation: sc to the first address fails */
	lr.w a0, (a3)
	lr.w a0, (a4)
	sc.w a0, a2, (a3)
	U_CHECKR(a0, 1)
	lw t1, 0(a3)
	U_CHECKR(t1, 0x42)
	U_NUM(10)
	/* lr/sc with the reservation on the second address succeeds */
	lr.w a0, (a4)
	U_CHECKR(a0, 0x3333)
	sc.w a0, a2, (a4)
	U_CHECKR(a0, 0)
	lw t1, 0(a4)
	U_CHECKR(t1, 0x44)

	/* ---- lr.d / sc.d ---- */
	U_NUM(11)
	li t0, 0x8000000000000007
	sd t0, 0(a3)
	li t0, 0x5a5a5a5a5a5a5a5a
	sd t0, 8(a3)
	sd t0, -8(a3)
	lr.d a0, (a3)
	U_CHECKR(a0, 0x8000000000000007)
	U_NUM(12)
	li a2, 0x0123456789abcdef
	sc.d a0, a2, (a3)
	U_CHECKR(a0, 0)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x0123456789abcdef)
	ld t1, 8(a3)
	U_CHECKR(t1, 0x5a5a5a5a5a5a5a5a)
	ld t1, -8(a3)
	U_CHECKR(t1, 0x5a5a5a5a5a5a5a5a)
	U_NUM(13)
	li a2, -1
	sc.d a0, a2, (a3)
	U_CHECKR(a0, 1)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x0123456789abcdef)
	U_NUM(14)
	/* ordering-bit forms */
	lr.d.aq a0, (a3)
	U_CHECKR(a0, 0x0123456789abcdef)
	li a2, 5
	sc.d.rl a0, a2, (a3)
	U_CHECKR(a0, 0)
	lr.w.aqrl a0, (a3)
	U_CHECKR(a0, 5)
	li a2, 6
	sc.w.aqrl a0, a2, (a3)
	U_CHECKR(a0, 0)
	lr.d.rl a0, (a3)
	U_CHECKR(a0, 6)
	li a2, 7
	sc.d.aq a0, a2, (a3)
	U_CHECKR(a0, 0)
	ld t1, 0(a3)
	U_CHECKR(t1, 7)
	U_NUM(15)
	/* an atomic increment loop */
	li a5, 0
	li a6, 0
1:	lr.d a0, (a3)
	addi a0, a0, 10
	sc.d a1, a0, (a3)
	addi a6, a6, 1
	bnez a1, 1b
	addi a5, a5, 1
	li t0, 5
	bne a5, t0, 1b
	ld t1, 0(a3)
	U_CHECKR(t1, 57)
	U_CHECKR(a6, 5)

	/* ---- AMOs ---- */
	U_AMO_W(16, amoswap.w, 0x80000001, 0x123456789abcdef0, 0xffffffff80000001, 0x9abcdef0)
	U_AMO_W(17, amoswap.w, 0x7ffffffe, 0xffffffff80000000, 0x7ffffffe, 0x80000000)
	U_AMO_W(18, amoadd.w, 0x7fffffff, 0x1, 0x7fffffff, 0x80000000)
	U_AMO_W(19, amoadd.w, 0xffffffff, 0x100000002, 0xffffffffffffffff, 0x1)
	U_AMO_W(20, amoadd.w, 0x80000000, 0x80000000, 0xffffffff80000000, 0x0)
	U_AMO_W(21, amoand.w, 0xf0f0f0f0, 0xff00ff00, 0xfffffffff0f0f0f0, 0xf000f000)
	U_AMO_W(22, amoand.w, 0xff00ff0, 0xffffffff8000ffff, 0xff00ff0, 0xff0)
	U_AMO_W(23, amoor.w, 0xf0f0f0f, 0x80808080, 0xf0f0f0f, 0x8f8f8f8f)
	U_AMO_W(24, amoor.w, 0x1, 0xffffffff00000000, 0x1, 0x1)
	U_AMO_W(25, amoxor.w, 0xffff0000, 0xff00ff0, 0xffffffffffff0000, 0xf00f0ff0)
	U_AMO_W(26, amoxor.w, 0x80000000, 0xffffffff80000001, 0xffffffff80000000, 0x1)
	U_AMO_W(27, amomin.w, 0x80000000, 0x1, 0xffffffff80000000, 0x80000000)
	U_AMO_W(28, amomin.w, 0x5, 0xfffffffffffffffd, 0x5, 0xfffffffd)
	U_AMO_W(29, amomin.w, 0x2, 0xffffffff00000001, 0x2, 0x1)
	U_AMO_W(30, amomin.w, 0x7fffffff, 0x80000000, 0x7fffffff, 0x80000000)
	U_AMO_W(31, amomax.w, 0x80000000, 0x1, 0xffffffff80000000, 0x1)
	U_AMO_W(32, amomax.w, 0xffffffff, 0xfffffffe, 0xffffffffffffffff, 0xffffffff)
	U_AMO_W(33, amomax.w, 0x7fffffff, 0x100000000, 0x7fffffff, 0x7fffffff)
	U_AMO_W(34, amominu.w, 0x80000000, 0x1, 0xffffffff80000000, 0x1)
	U_AMO_W(35, amominu.w, 0xffffffff, 0xfffffffe, 0xffffffffffffffff, 0xfffffffe)
	U_AMO_W(36, amominu.w, 0x3, 0xffffffff00000004, 0x3, 0x3)
	U_AMO_W(37, amomaxu.w, 0x80000000, 0x1, 0xffffffff80000000, 0x80000000)
	U_AMO_W(38, amomaxu.w, 0x1, 0x100000000, 0x1, 0x1)
	U_AMO_W(39, amomaxu.w, 0x7fffffff, 0x80000000, 0x7fffffff, 0x80000000)
	U_AMO_D(40, amoswap.d, 0x8000000000000001, 0x123456789abcdef, 0x8000000000000001, 0x123456789abcdef)
	U_AMO_D(41, amoadd.d, 0x7fffffffffffffff, 0x1, 0x7fffffffffffffff, 0x8000000000000000)
	U_AMO_D(42, amoadd.d, 0xffffffff, 0x1, 0xffffffff, 0x100000000)
	U_AMO_D(43, amoadd.d, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xfffffffffffffffe)
	U_AMO_D(44, amoand.d, 0xf0f0f0f0f0f0f0f0, 0xff00ff00ff00ff00, 0xf0f0f0f0f0f0f0f0, 0xf000f000f000f000)
	U_AMO_D(45, amoor.d, 0xf0f0f0f00000000, 0x8080808080808080, 0xf0f0f0f00000000, 0x8f8f8f8f80808080)
	U_AMO_D(46, amoxor.d, 0xffff0000ffff0000, 0xff00ff00ff00ff0, 0xffff0000ffff0000, 0xf00f0ff0f00f0ff0)
	U_AMO_D(47, amomin.d, 0x8000000000000000, 0x1, 0x8000000000000000, 0x8000000000000000)
	U_AMO_D(48, amomin.d, 0xffffffff, 0x100000000, 0xffffffff, 0xffffffff)
	U_AMO_D(49, amomin.d, 0xfffffffffffffffe, 0xfffffffffffffffd, 0xfffffffffffffffe, 0xfffffffffffffffd)
	U_AMO_D(50, amomax.d, 0xffffffffffffffff, 0x1, 0xffffffffffffffff, 0x1)
	U_AMO_D(51, amomax.d, 0xffffffff, 0x100000000, 0xffffffff, 0x100000000)
	U_AMO_D(52, amomax.d, 0x8000000000000000, 0x8000000000000001, 0x8000000000000000, 0x8000000000000001)
	U_AMO_D(53, amominu.d, 0xffffffffffffffff, 0x1, 0xffffffffffffffff, 0x1)
	U_AMO_D(54, amominu.d, 0x8000000000000000, 0x7fffffffffffffff, 0x8000000000000000, 0x7fffffffffffffff)
	U_AMO_D(55, amomaxu.d, 0xffffffffffffffff, 0x1, 0xffffffffffffffff, 0xffffffffffffffff)
	U_AMO_D(56, amomaxu.d, 0x8000000000000000, 0x7fffffffffffffff, 0x8000000000000000, 0x8000000000000000)
	U_AMO_D(57, amomaxu.d, 0xffffffff, 0x100000000, 0xffffffff, 0x100000000)
	/* .w on the upper word of a dword */
	U_AMO_WO(58, amoadd.w, 4, 0xfffffff0, 0x10, 0xfffffffffffffff0, 0)
	U_AMO_WO(59, amoswap.w, 4, 0x89abcdef, 0x01234567, 0xffffffff89abcdef, 0x01234567)
	U_AMO_WO(60, amomaxu.w, 4, 0x00000010, 0xfffffff0, 0x10, 0xfffffff0)
	/* ordering-bit forms */
	U_AMO_W(61, amoadd.w.aq, 1, 2, 1, 3)
	U_AMO_W(62, amoor.w.rl, 1, 2, 1, 3)
	U_AMO_W(63, amoswap.w.aqrl, 1, 2, 1, 2)
	U_AMO_D(64, amoadd.d.aq, 1, 2, 1, 3)
	U_AMO_D(65, amoxor.d.rl, 3, 1, 3, 2)
	U_AMO_D(66, amomin.d.aqrl, 3, -1, 3, -1)
	U_NUM(67)
	/* rd = x0: memory still updated */
	la a3, u_amo
	li t0, 40
	sd t0, 0(a3)
	li a2, 2
	amoadd.d x0, a2, (a3)
	amoadd.w x0, a2, (a3)
	ld t1, 0(a3)
	U_CHECKR(t1, 44)
	U_NUM(68)
	/* rd = rs2: the swap exchanges the register and memory */
	li a2, 0x1234
	amoswap.d a2, a2, (a3)
	U_CHECKR(a2, 44)
	ld t1, 0(a3)
	U_CHECKR(t1, 0x1234)
	U_NUM(69)
	li t0, 0xffffffff
	sw t0, 0(a3)
	li a2, 3
	amoswap.w a2, a2, (a3)
	U_CHECKR(a2, -1)
	lwu t1, 0(a3)
	U_CHECKR(t1, 3)

	/* ---- misaligned LR/AMO trap ---- */
	U_TRAP_ARM
	la a3, u_amo
	li t0, 0x0102030405060708
	sd t0, 0(a3)
	sd t0, 8(a3)
	addi a4, a3, 2
	U_TRAP_BEGIN(70)
	li a0, 0x55
1:	lr.w a0, (a4)
	U_TRAP_CHECK(4, 1b)
	U_CHECKR(a0, 0x55)
	bne s9, a4, fail_common
	addi a4, a3, 4
	U_TRAP_BEGIN(71)
1:	lr.d a0, (a4)
	U_TRAP_CHECK(4, 1b)
	bne s9, a4, fail_common
	addi a4, a3, 1
	U_TRAP_BEGIN(72)
	li a2, 1
	li a0, 0x55
1:	amoadd.w a0, a2, (a4)
	U_AMO_TRAP_CHECK(1b)
	U_CHECKR(a0, 0x55)
	bne s9, a4, fail_common
	addi a4, a3, 4
	U_TRAP_BEGIN(73)
1:	amoswap.d a0, a2, (a4)
	U_AMO_TRAP_CHECK(1b)
	bne s9, a4, fail_common
	addi a4, a3, 6
	U_TRAP_BEGIN(74)
1:	amomaxu.w a0, a2, (a4)
	U_AMO_TRAP_CHECK(1b)
	U_NUM(75)
	/* memory untouched by the trapping accesses */
	ld t1, 0(a3)
	U_CHECKR(t1, 0x0102030405060708)
	ld t1, 8(a3)
	U_CHECKR(t1, 0x0102030405060708)
	U_TRAP_DISARM

	PASS
U_TRAP_HANDLER
RVTEST_END

	.data
	.balign 64
u_amo:
	.dword 0, 0, 0
	.balign 64
	.dword 0
u_lrsc:
	.dword 0, 0
	.skip 4096
