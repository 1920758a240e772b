/* p_interrupts.S: machine and supervisor interrupts.
 *
 * Covers:
 *   - CLINT mtime advancing; mtimecmp driving mip.MTIP
 *   - machine timer interrupt (mie.MTIE, mstatus.MIE): mcause
 *     0x8000000000000007, mtval 0, mepc, mstatus after entry; not taken
 *     in M while MIE=0; taken at once when MIE becomes 1
 *   - machine software interrupt through msip: cause 3
 *   - supervisor software / timer / external interrupts raised by M through
 *     mip.SSIP/STIP/SEIP, delegated through mideleg and taken in S when
 *     sstatus.SIE=1 (causes 1, 5, 9), exact scause, sepc, stval, sstatus
 *   - interrupts for a higher mode are taken in a lower mode whatever its
 *     xIE bit; delegated interrupts are never taken in M
 *   - priority when several are pending: MSI > MTI > SEI > SSI > STI (MEI
 *     cannot be raised: the board has no interrupt controller), and
 *     M-targeted interrupts before S-targeted ones
 *   - WFI returns when an enabled interrupt is pending even with MIE=0,
 *     in M also with TW=1
 *   - sip/sie are views of mip/mie restricted to the bits set in mideleg;
 *     mip.MTIP and mip.MSIP are read-only; sip.STIP/SEIP are read-only
 *
 * Timer tests do not depend on how fast time runs: mtimecmp is set to
 * mtime + 100 and the program spins (or waits) with a generous bound.
 * Where the spec leaves a choice, QEMU 7.2 (-M spike) is the reference;
 * each such place is marked "QEMU:" below.
 *
 * Sub-tests 1..121. */
#include "p_priv.h"

#define CLR_X                                                                  \
	li t0, XFIELDS;                                                        \
	csrc mstatus, t0;

/* the spin bound for waiting on the timer */
#define SPIN 4000000

/* mtimecmp = mtime + 100. Clobbers t0, t1. */
#define TIMER_SOON                                                             \
	li t0, CLINT_MTIME;                                                    \
	ld t1, 0(t0);                                                          \
	addi t1, t1, 100;                                                      \
	li t0, CLINT_MTIMECMP;                                                 \
	sd t1, 0(t0);

#define TIMER_OFF                                                              \
	li t0, CLINT_MTIMECMP;                                                 \
	li t1, -1;                                                             \
	sd t1, 0(t0);

#define TIMER_NOW                                                              \
	li t0, CLINT_MTIMECMP;                                                 \
	sd zero, 0(t0);

#define MSIP_SET                                                               \
	li t0, CLINT_MSIP;                                                     \
	li t1, 1;                                                              \
	sw t1, 0(t0);

#define MSIP_CLR                                                               \
	li t0, CLINT_MSIP;                                                     \
	sw zero, 0(t0);

/* reg is a or b */
#define CHECK2(n, reg, a, b)                                                   \
	li TESTNUM, n;                                                         \
	li t2, a;                                                              \
	beq reg, t2, 1234f;                                                    \
	li t2, b;                                                              \
	bne reg, t2, fail_common;                                              \
	1234:

/* lo <= reg <= hi (addresses of labels) */
#define CHECK_RANGE(n, reg, lo, hi)                                            \
	li TESTNUM, n;                                                         \
	la t2, lo;                                                             \
	bltu reg, t2, fail_common;                                             \
	la t2, hi;                                                             \
	bgtu reg, t2, fail_common;

PRIV_BEGIN
	TIMER_OFF
	MSIP_CLR
	csrw mip, zero

	/* ---------------- CLINT basics ---------------- */
	ARM(1, fail_common)
	csrr a0, mip
	CHECKM(1, a0, MIP_MTIP|MIP_MSIP, 0)
	/* mtime moves forward */
	li t0, CLINT_MTIME
	ld a1, 0(t0)
	li t3, SPIN
3:	ld a2, 0(t0)
	bne a2, a1, 4f
	addi t3, t3, -1
	bnez t3, 3b
	j fail_common
4:	li TESTNUM, 2
	bleu a2, a1, fail_common
	/* mtimecmp reads back */
	li t0, CLINT_MTIMECMP
	li t1, 0x123456789a
	sd t1, 0(t0)
	ld a0, 0(t0)
	CHECK(3, a0, 0x123456789a)
	TIMER_OFF
	/* msip reads back and drives mip.MSIP */
	MSIP_SET
	lw a0, 0(t0)
	CHECK(4, a0, 1)
	csrr a0, mip
	CHECKM(5, a0, MIP_MSIP, MIP_MSIP)
	MSIP_CLR
	csrr a0, mip
	CHECKM(6, a0, MIP_MSIP, 0)
	/* mip.MTIP and mip.MSIP are read-only in mip */
	li t0, MIP_MTIP|MIP_MSIP
	csrs mip, t0
	csrr a0, mip
	CHECKM(7, a0, MIP_MTIP|MIP_MSIP, 0)
	/* mtimecmp <= mtime raises MTIP, mtimecmp = -1 drops it */
	TIMER_NOW
	csrr a0, mip
	CHECKM(8, a0, MIP_MTIP, MIP_MTIP)
	/* ... and writing 0 to mip does not clear it */
	csrw mip, zero
	csrr a0, mip
	CHECKM(9, a0, MIP_MTIP, MIP_MTIP)
	TIMER_OFF
	csrr a0, mip
	CHECKM(10, a0, MIP_MTIP, 0)

	/* ---------------- machine timer interrupt ---------------- */
	/* MIE=0: MTIP becomes pending but no trap is taken in M */
	CLR_X
	ARM(11, fail_common)
	TIMER_SOON
	li t0, MIP_MTIP
	csrw mie, t0
	li t3, SPIN
3:	csrr a0, mip
	andi a0, a0, MIP_MTIP
	bnez a0, 4f
	addi t3, t3, -1
	bnez t3, 3b
	j fail_common
4:	nop
	nop
	CHECK(11, s2, -1)
	/* MIE=1: taken right after the csrsi, mepc = next instruction */
	ARM(12, 1f)
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	CHECK(12, s2, INT_MTI)
	CHECKA(13, s3, 2b, 0)
	CHECK(14, s4, 0)
	CHECKM(15, s5, XFIELDS, MSTATUS_MPP_M|MSTATUS_MPIE)
	csrr a0, mip
	CHECKM(16, a0, MIP_MTIP, MIP_MTIP)
	csrr a0, mcause
	CHECK(17, a0, INT_MTI)
	TIMER_OFF
	csrr a0, mip
	CHECKM(18, a0, MIP_MTIP, 0)
	/* spinning with MIE=1 until the timer fires */
	CLR_X
	ARM(19, 1f)
	TIMER_SOON
	li t3, SPIN
	csrsi mstatus, MSTATUS_MIE
3:	addi t3, t3, -1
	bnez t3, 3b
4:	j fail_common
1:	TIMER_OFF
	CHECK(19, s2, INT_MTI)
	CHECK_RANGE(20, s3, 3b, 4b)
	CHECK(21, s4, 0)
	CHECKM(22, s5, XFIELDS, MSTATUS_MPP_M|MSTATUS_MPIE)
	/* the timer interrupt from U-mode (MIE=0 there does not matter) */
	CLR_X
	ARM(23, 1f)
	TIMER_SOON
	li t3, SPIN
	ENTER(0, 3f)
3:	addi t3, t3, -1
	bnez t3, 3b
4:	j fail_common
1:	TIMER_OFF
	CHECK(23, s2, INT_MTI)
	CHECK_RANGE(24, s3, 3b, 4b)
	CHECKM(25, s5, XFIELDS, 0)
	/* ... and from S-mode */
	CLR_X
	li t0, MSTATUS_MPIE
	csrs mstatus, t0
	ARM(26, 1f)
	TIMER_SOON
	li t3, SPIN
	ENTER(1, 3f)
3:	addi t3, t3, -1
	bnez t3, 3b
4:	j fail_common
1:	TIMER_OFF
	CHECK(26, s2, INT_MTI)
	CHECK_RANGE(27, s3, 3b, 4b)
	CHECKM(28, s5, XFIELDS, MSTATUS_MPP_S|MSTATUS_MPIE)

	/* ---------------- WFI with MIE=0 ---------------- */
	/* returns once MTIP is pending (and enabled in mie); no trap */
	CLR_X
	ARM(29, fail_common)
	TIMER_SOON
	li t0, MIP_MTIP
	csrw mie, t0
	li t3, SPIN
3:	wfi
	csrr a0, mip
	andi a0, a0, MIP_MTIP
	bnez a0, 4f
	addi t3, t3, -1
	bnez t3, 3b
	j fail_common
4:	CHECK(29, s2, -1)
	TIMER_OFF
	/* with MSI already pending and enabled, wfi falls through at once,
	 * also in M with TW=1 (TW only traps S-mode) */
	MSIP_SET
	li t0, MIP_MSIP
	csrw mie, t0
	li t0, MSTATUS_TW
	csrs mstatus, t0
	ARM(30, fail_common)
	wfi
	wfi
	li t0, MSTATUS_TW
	csrc mstatus, t0
	CHECK(30, s2, -1)

	/* ---------------- machine software interrupt ---------------- */
	/* still pending: MIE=1 takes it at once */
	ARM(31, 1f)
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	CHECK(31, s2, INT_MSI)
	CHECKA(32, s3, 2b, 0)
	CHECK(33, s4, 0)
	CHECKM(34, s5, XFIELDS, MSTATUS_MPP_M|MSTATUS_MPIE)
	MSIP_CLR
	csrr a0, mip
	CHECKM(35, a0, MIP_MSIP, 0)
	/* raised while MIE=1 and MSIE=1: taken right after the store */
	CLR_X
	csrsi mstatus, MSTATUS_MIE
	ARM(36, 1f)
	li t3, SPIN
	li t0, CLINT_MSIP
	li t1, 1
	sw t1, 0(t0)
	/* QEMU: the interrupt is recognised only at the next translation
	 * block, so some instructions may run after the store: spin. */
2:	addi t3, t3, -1
	bnez t3, 2b
4:	j fail_common
1:	MSIP_CLR
	CHECK(36, s2, INT_MSI)
	CHECK_RANGE(37, s3, 2b, 4b)
	/* from U with MIE=0 */
	CLR_X
	MSIP_SET
	ARM(38, 1f)
	ENTER(0, 2f)
2:	j fail_common
1:	MSIP_CLR
	CHECK(38, s2, INT_MSI)
	CHECKA(39, s3, 2b, 0)
	CHECKM(40, s5, XFIELDS, 0)
	csrw mie, zero

	/* ---------------- supervisor software interrupt ---------------- */
	li t0, S_INTS
	csrw mideleg, t0
	csrw mie, t0
	/* delegated and pending: not taken in M (even with MIE=1) */
	CLR_X
	csrsi mip, MIP_SSIP
	ARM(41, fail_common)
	csrsi mstatus, MSTATUS_MIE
	nop
	nop
	csrci mstatus, MSTATUS_MIE
	/* in S with SIE=0: not taken; setting SIE takes it at once */
	ARM(42, 1f)
	li a5, 0
	ENTER(1, 3f)
3:	nop
	li a5, 1
	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	CHECK(42, a5, 1)
	CHECK(43, s7, INT_SSI)
	CHECKA(44, s8, 2b, 0)
	CHECK(45, s9, 0)
	CHECKM(46, s10, XFIELDS, MSTATUS_SPP|MSTATUS_SPIE)
	CHECK(47, s2, CAUSE_ECALL_S)
	csrr a0, mip
	CHECKM(48, a0, MIP_SSIP, MIP_SSIP)
	/* delegated, pending, from U with SIE=0: taken in S at once */
	CLR_X
	ARM(49, 1f)
	ENTER(0, 2f)
2:	j fail_common
1:	CHECK(49, s7, INT_SSI)
	CHECKA(50, s8, 2b, 0)
	CHECKM(51, s10, XFIELDS, 0)
	CHECK(52, s2, CAUSE_ECALL_S)
	/* S clears its own pending SSIP through sip */
	ARM(53, 1f)
	ENTER(1, 2f)
2:	csrci sip, MIP_SSIP
	csrr a0, sip
	ecall
	j fail_common
1:	CHECK(53, s2, CAUSE_ECALL_S)
	CHECKM(54, a0, S_INTS, 0)
	csrr a0, mip
	CHECKM(55, a0, MIP_SSIP, 0)
	/* S raises SSIP itself through sip with SIE=1: taken right after */
	CLR_X
	ARM(56, 1f)
	ENTER(1, 2f)
2:	csrsi sstatus, MSTATUS_SIE
	csrsi sip, MIP_SSIP
3:	j fail_common
1:	csrci mip, MIP_SSIP
	CHECK(56, s7, INT_SSI)
	CHECKA(57, s8, 3b, 0)
	CHECKM(58, s10, XFIELDS, MSTATUS_SPP|MSTATUS_SPIE)
	/* sie.SSIE=0 masks it in S even with SIE=1 */
	CLR_X
	csrsi mip, MIP_SSIP
	li t0, MIP_STIP|MIP_SEIP
	csrw mie, t0
	ARM(59, 1f)
	ENTER(1, 2f)
2:	csrsi sstatus, MSTATUS_SIE
	nop
	nop
	ecall
	j fail_common
1:	csrci mip, MIP_SSIP
	CHECK(59, s2, CAUSE_ECALL_S)
	CHECK(60, s7, -1)

	/* ---------------- supervisor timer interrupt ---------------- */
	/* QEMU: without Sstc (menvcfg.STCE=0) M can write mip.STIP. */
	li t0, S_INTS
	csrw mie, t0
	CLR_X
	li t0, MIP_STIP
	csrs mip, t0
	csrr a0, mip
	CHECKM(61, a0, MIP_STIP, MIP_STIP)
	ARM(62, 1f)
	ENTER(1, 3f)
3:	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	CHECK(62, s7, INT_STI)
	CHECKA(63, s8, 2b, 0)
	CHECK(64, s9, 0)
	CHECKM(65, s10, XFIELDS, MSTATUS_SPP|MSTATUS_SPIE)
	CHECK(66, s2, CAUSE_ECALL_S)
	/* S cannot clear STIP through sip (read-only there) */
	ARM(67, 1f)
	ENTER(1, 2f)
2:	li t0, MIP_STIP
	csrc sip, t0
	csrr a0, sip
	ecall
	j fail_common
1:	CHECK(67, s2, CAUSE_ECALL_S)
	CHECKM(68, a0, MIP_STIP, MIP_STIP)
	csrr a0, mip
	CHECKM(69, a0, MIP_STIP, MIP_STIP)
	li t0, MIP_STIP
	csrc mip, t0
	csrr a0, mip
	CHECKM(70, a0, MIP_STIP, 0)
	/* not delegated: STI goes to M from S even with MIE=0 */
	li t0, MIP_SSIP|MIP_SEIP
	csrw mideleg, t0
	CLR_X
	li t0, MIP_STIP
	csrs mip, t0
	ARM(71, 1f)
	ENTER(1, 2f)
2:	j fail_common
1:	li t0, MIP_STIP
	csrc mip, t0
	CHECK(71, s2, INT_STI)
	CHECKA(72, s3, 2b, 0)
	CHECKM(73, s5, XFIELDS, MSTATUS_MPP_S)
	CHECK(74, s7, -1)

	/* ---------------- supervisor external interrupt ---------------- */
	li t0, S_INTS
	csrw mideleg, t0
	CLR_X
	li t0, MIP_SEIP
	csrs mip, t0
	ARM(75, 1f)
	ENTER(1, 3f)
3:	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	li t0, MIP_SEIP
	csrc mip, t0
	CHECK(75, s7, INT_SEI)
	CHECKA(76, s8, 2b, 0)
	CHECK(77, s2, CAUSE_ECALL_S)

	/* ---------------- priority, all to M ---------------- */
	/* MSI, MTI, SEI, SSI, STI all pending and enabled, nothing delegated;
	 * each is cleared once taken, and the order of the five causes is
	 * recorded in prio_buf (one byte each).
	 * The spec order is MSI, MTI, SEI, SSI, STI (3 7 9 1 5).
	 * QEMU: 7.2 without the AIA extension takes the lowest-numbered
	 * pending interrupt first (1 3 5 7 9), against the spec. Both orders
	 * are accepted; anything else fails. */
	csrw mideleg, zero
	CLR_X
	MSIP_SET
	TIMER_NOW
	li t0, MIP_SEIP|MIP_SSIP|MIP_STIP
	csrs mip, t0
	li t0, MIP_MSIP|MIP_MTIP|S_INTS
	csrw mie, t0
	csrr a0, mip
	CHECKM(78, a0, MIP_MSIP|MIP_MTIP|S_INTS, MIP_MSIP|MIP_MTIP|S_INTS)
	la s11, prio_buf
	sd zero, 0(s11)
	li a4, 5
5:	ARM(79, 1f)
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	CHECKA(80, s3, 2b, 0)
	li TESTNUM, 81
	bgez s2, fail_common
	andi a0, s2, 0xff
	sb a0, 0(s11)
	addi s11, s11, 1
	jal ra, clear_irq
	addi a4, a4, -1
	bnez a4, 5b
	/* nothing left */
	ARM(82, fail_common)
	csrsi mstatus, MSTATUS_MIE
	nop
	nop
	csrci mstatus, MSTATUS_MIE
	la t3, prio_buf
	ld a0, 0(t3)
	CHECK2(83, a0, 0x0501090703, 0x0907050301)
	/* MSI beats MTI in both orders, also when taken from U */
	CLR_X
	MSIP_SET
	TIMER_NOW
	ARM(84, 1f)
	ENTER(0, 2f)
2:	j fail_common
1:	MSIP_CLR
	TIMER_OFF
	CHECK(84, s2, INT_MSI)
	CHECKA(85, s3, 2b, 0)
	/* MTI beats SEI in both orders */
	CLR_X
	TIMER_NOW
	li t0, MIP_SEIP
	csrs mip, t0
	ARM(86, 1f)
	ENTER(0, 2f)
2:	j fail_common
1:	TIMER_OFF
	li t0, MIP_SEIP
	csrc mip, t0
	CHECK(86, s2, INT_MTI)
	CHECKA(87, s3, 2b, 0)

	/* ---------------- priority in S ---------------- */
	/* SEI, SSI, STI delegated and pending; S sets SIE each time. The
	 * spec order is SEI, SSI, STI (9 1 5); QEMU 7.2 gives 1 5 9. */
	li t0, S_INTS
	csrw mideleg, t0
	csrs mip, t0
	la s11, prio_buf
	sd zero, 0(s11)
	li a4, 3
5:	CLR_X
	ARM(88, 1f)
	ENTER(1, 3f)
3:	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	CHECK(88, s2, CAUSE_ECALL_S)
	CHECKA(89, s8, 2b, 0)
	li TESTNUM, 90
	bgez s7, fail_common
	andi a0, s7, 0xff
	sb a0, 0(s11)
	addi s11, s11, 1
	jal ra, clear_irq
	addi a4, a4, -1
	bnez a4, 5b
	la t3, prio_buf
	ld a0, 0(t3)
	CHECK2(91, a0, 0x050109, 0x090501)
	/* an M-targeted interrupt wins over a higher-ranked S-targeted one:
	 * STI not delegated, SEI delegated, both pending, in S with SIE=1 */
	li t0, MIP_SEIP
	csrw mideleg, t0
	li t0, MIP_SEIP|MIP_STIP
	csrs mip, t0
	CLR_X
	ARM(92, 1f)
	ENTER(1, 3f)
3:	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	CHECK(92, s2, INT_STI)
	/* taken as soon as S is entered: S-level SIE does not gate it */
	CHECKA(93, s3, 3b, 0)
	CHECK(94, s7, -1)
	li t0, MIP_STIP
	csrc mip, t0
	/* with STI gone, SEI is taken in S; the trap sets SIE=0 */
	ARM(95, 1f)
	ENTER(1, 3f)
3:	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	li t0, MIP_SEIP
	csrc mip, t0
	CHECK(95, s7, INT_SEI)
	CHECKA(96, s8, 2b, 0)
	CHECK(97, s2, CAUSE_ECALL_S)

	/* ---------------- sip / sie as views ---------------- */
	ARM(98, fail_common)
	csrw mie, zero
	csrw mip, zero
	/* mideleg = 0: sie shows nothing and ignores writes */
	csrw mideleg, zero
	li t0, S_INTS
	csrw sie, t0
	csrr a0, sie
	CHECKM(98, a0, 0xaaa, 0)
	csrr a0, mie
	CHECKM(99, a0, 0xaaa, 0)
	/* mideleg = S_INTS: sie writes reach mie; M bits never show */
	li t0, S_INTS
	csrw mideleg, t0
	li t0, MIP_MTIP|MIP_MSIP
	csrw mie, t0
	li t0, S_INTS
	csrw sie, t0
	csrr a0, mie
	CHECKM(100, a0, 0xaaa, S_INTS|MIP_MTIP|MIP_MSIP)
	csrr a0, sie
	CHECKM(101, a0, 0xaaa, S_INTS)
	/* clearing through sie */
	li t0, MIP_STIP
	csrc sie, t0
	csrr a0, mie
	CHECKM(102, a0, 0xaaa, MIP_SSIP|MIP_SEIP|MIP_MTIP|MIP_MSIP)
	/* mideleg = SSIP only: sie shows SSIE only, although mie has SEIE */
	li t0, MIP_SSIP
	csrw mideleg, t0
	csrr a0, sie
	CHECKM(103, a0, 0xaaa, MIP_SSIP)
	/* ... and a write of all S bits through sie touches SSIE only */
	csrw sie, zero
	csrr a0, mie
	CHECKM(104, a0, 0xaaa, MIP_SEIP|MIP_MTIP|MIP_MSIP)
	li t0, S_INTS
	csrw sie, t0
	csrr a0, mie
	CHECKM(105, a0, 0xaaa, S_INTS&~MIP_STIP|MIP_MTIP|MIP_MSIP)
	csrw mie, zero
	/* sip: pending SSIP and STIP; visible in sip only where delegated */
	li t0, MIP_SSIP|MIP_STIP
	csrs mip, t0
	csrw mideleg, zero
	csrr a0, sip
	CHECKM(106, a0, 0xaaa, 0)
	li t0, MIP_SSIP
	csrw mideleg, t0
	csrr a0, sip
	CHECKM(107, a0, 0xaaa, MIP_SSIP)
	li t0, S_INTS
	csrw mideleg, t0
	csrr a0, sip
	CHECKM(108, a0, 0xaaa, MIP_SSIP|MIP_STIP)
	/* MTIP pending in mip is never visible in sip */
	TIMER_NOW
	csrr a0, sip
	CHECKM(109, a0, 0xaaa, MIP_SSIP|MIP_STIP)
	csrr a0, mip
	CHECKM(110, a0, 0xaaa, MIP_SSIP|MIP_STIP|MIP_MTIP)
	TIMER_OFF
	/* sip.SSIP is writable when delegated */
	csrci sip, MIP_SSIP
	csrr a0, mip
	CHECKM(111, a0, 0xaaa, MIP_STIP)
	csrsi sip, MIP_SSIP
	csrr a0, mip
	CHECKM(112, a0, 0xaaa, MIP_SSIP|MIP_STIP)
	/* sip.STIP is read-only */
	li t0, MIP_STIP
	csrc sip, t0
	csrr a0, mip
	CHECKM(113, a0, 0xaaa, MIP_SSIP|MIP_STIP)
	/* sip.SEIP is read-only too */
	li t0, MIP_SEIP
	csrs sip, t0
	csrr a0, mip
	CHECKM(114, a0, 0xaaa, MIP_SSIP|MIP_STIP)
	/* not delegated: sip.SSIP writes are ignored */
	csrw mideleg, zero
	csrci sip, MIP_SSIP
	csrr a0, mip
	CHECKM(115, a0, 0xaaa, MIP_SSIP|MIP_STIP)
	csrw mip, zero
	csrr a0, mip
	CHECKM(116, a0, 0xaaa, 0)
	/* the same views from S-mode */
	li t0, MIP_SSIP|MIP_STIP
	csrw mideleg, t0
	li t0, MIP_STIP|MIP_MTIP
	csrs mip, t0
	li t0, MIP_SEIP|MIP_MSIP
	csrw mie, t0
	CLR_X
	ARM(117, 1f)
	ENTER(1, 2f)
2:	csrr a0, sip
	csrr a1, sie
	li t0, S_INTS
	csrw sie, t0
	csrr a2, sie
	ecall
	j fail_common
1:	CHECK(117, s2, CAUSE_ECALL_S)
	CHECKM(118, a0, 0xaaa, MIP_STIP)
	CHECKM(119, a1, 0xaaa, 0)
	CHECKM(120, a2, 0xaaa, MIP_SSIP|MIP_STIP)
	csrr a0, mie
	CHECKM(121, a0, 0xaaa, MIP_SSIP|MIP_STIP|MIP_SEIP|MIP_MSIP)
	/* STIP was pending, delegated and enabled through sie, but S ran
	 * with SIE=0, so it was not taken. Clean up. */
	csrw mie, zero
	csrw mip, zero
	csrw mideleg, zero

	PASS

	/* clear the source of interrupt number a0 (3 MSI, 7 MTI, else the
	 * mip bit). Clobbers t0, t1. */
clear_irq:
	li t0, 3
	bne a0, t0, 1f
	MSIP_CLR
	ret
1:	li t0, 7
	bne a0, t0, 1f
	TIMER_OFF
	ret
1:	li t0, 1
	sll t0, t0, a0
	csrc mip, t0
	ret

	PRIV_HANDLERS
RVTEST_END

	.data
	.align 3
prio_buf:
	.dword 0
