/* p_deleg.S: trap delegation (medeleg/mideleg) and vectored trap vectors.
 *
 * Covers:
 *   - which medeleg/mideleg bits are writable (standard bits only)
 *   - delegated exceptions land in stvec with exact scause, sepc, stval and
 *     sstatus SPP/SPIE/SIE: ecall from U and from S, illegal instruction,
 *     breakpoint, load access fault, load address misaligned
 *   - the same exceptions, not delegated, land in mtvec
 *   - a trap raised while in M-mode is never delegated, even with every
 *     medeleg bit set
 *   - vectored mtvec: interrupts go to BASE + 4*cause (MSI 3, MTI 7, and the
 *     S-level interrupts 1, 5, 9 when not delegated), exceptions to BASE
 *   - vectored stvec: delegated SSI, STI, SEI go to BASE + 4*cause,
 *     delegated exceptions to BASE
 *   - xtvec MODE values 2 and 3 (reserved) are not accepted
 *
 * Where the spec leaves a choice, QEMU 7.2 (-M spike) is the reference;
 * each such place is marked "QEMU:" below.
 *
 * Sub-tests 1..134. */
#include "p_priv.h"

#define CLR_X                                                                  \
	li t0, XFIELDS;                                                        \
	csrc mstatus, t0;

/* The standard exception causes that medeleg can delegate. */
#define DELEG_STD 0xb3ff

PRIV_BEGIN
	/* a clean CLINT: no timer, no software interrupt */
	li t0, CLINT_MTIMECMP
	li t1, -1
	sd t1, 0(t0)
	li t0, CLINT_MSIP
	sw zero, 0(t0)
	csrw mip, zero

	/* ---------------- medeleg / mideleg writability ---------------- */
	/* writing all ones sets every standard bit; reserved bits 14 and
	 * 16..19 stay zero. QEMU: bit 11 (ecall from M, read-only zero in
	 * priv 1.12) and the H-extension bits 10, 20..23 are writable, so
	 * they are not compared. */
	ARM(1, fail_common)
	li t0, -1
	csrw medeleg, t0
	csrr a0, medeleg
	CHECKM(1, a0, DELEG_STD, DELEG_STD)
	CHECKM(2, a0, 0xf4000, 0)
	csrw medeleg, zero
	csrr a0, medeleg
	CHECK(3, a0, 0)
	li t0, 0x100
	csrw medeleg, t0
	csrr a0, medeleg
	CHECK(4, a0, 0x100)
	/* Only the S-level bits (1, 5, 9) are delegable; the M-level bits
	 * (3, 7, 11) stay zero. QEMU: with the H extension on (QEMU 7.2
	 * default), bits 2, 6, 10, 12 read as 1 and bit 13 (LCOFI) is
	 * writable, so only bits 1, 3, 5, 7, 9, 11 are compared. */
	li t0, -1
	csrw mideleg, t0
	csrr a0, mideleg
	CHECKM(5, a0, 0xaaa, S_INTS)
	csrw mideleg, zero
	csrr a0, mideleg
	CHECKM(6, a0, 0xaaa, 0)
	li t0, MIP_SSIP
	csrw mideleg, t0
	csrr a0, mideleg
	CHECKM(7, a0, 0xaaa, MIP_SSIP)
	csrw mideleg, zero

	/* ---------------- delegated ecall from U ---------------- */
	/* SIE=1 before the trap: SPIE takes it, SIE cleared, SPP=U. The S
	 * handler leaves through ecall (not delegated) into M. */
	li t0, 0x100
	csrw medeleg, t0
	CLR_X
	csrsi mstatus, MSTATUS_SIE
	ARM(8, 1f)
	ENTER(0, 2f)
2:	ecall
	j fail_common
1:	CHECK(8, s7, CAUSE_ECALL_U)
	CHECKA(9, s8, 2b, 0)
	CHECK(10, s9, 0)
	CHECKM(11, s10, XFIELDS, MSTATUS_SPIE)
	/* then the S handler's own ecall reached M */
	CHECK(12, s2, CAUSE_ECALL_S)
	CHECKA(13, s3, s_trap, 16)
	CHECKM(14, s5, XFIELDS, MSTATUS_MPP_S|MSTATUS_SPIE)
	/* delegated ecall from U with SIE=0 and SPP=1 beforehand */
	CLR_X
	li t0, MSTATUS_SPP
	csrs mstatus, t0
	ARM(15, 1f)
	ENTER(0, 2f)
2:	ecall
	j fail_common
1:	CHECK(15, s7, CAUSE_ECALL_U)
	CHECKA(16, s8, 2b, 0)
	CHECKM(17, s10, XFIELDS, 0)
	CHECK(18, s2, CAUSE_ECALL_S)
	/* scause/sepc/stval stay readable from M with the delegated values */
	csrr a0, scause
	CHECK(19, a0, CAUSE_ECALL_U)
	csrr a0, sepc
	CHECKA(20, a0, 2b, 0)

	/* ---------------- not delegated ---------------- */
	csrw medeleg, zero
	CLR_X
	ARM(21, 1f)
	ENTER(0, 2f)
2:	ecall
	j fail_common
1:	CHECK(21, s2, CAUSE_ECALL_U)
	CHECKA(22, s3, 2b, 0)
	CHECK(23, s7, -1)
	CHECKM(24, s5, XFIELDS, 0)
	/* medeleg has ecall-from-U only: an ecall from S still goes to M */
	li t0, 0x100
	csrw medeleg, t0
	ARM(25, 1f)
	ENTER(1, 2f)
2:	ecall
	j fail_common
1:	CHECK(25, s2, CAUSE_ECALL_S)
	CHECKA(26, s3, 2b, 0)
	CHECK(27, s7, -1)
	CHECKM(28, s5, XFIELDS, MSTATUS_MPP_S)
	/* illegal instruction from U, not delegated */
	ARM(29, 1f)
	ENTER(0, 2f)
2:	csrr a0, mstatus
	j fail_common
1:	CHECK(29, s2, CAUSE_ILLEGAL)
	CHECKA(30, s3, 2b, 0)
	CHECK_INSN32(31, s4, 2b)
	CHECK(32, s7, -1)

	/* ---------------- delegated ecall from S ---------------- */
	/* The S handler for this one leaves through ebreak (not delegated). */
	li t0, 0x200
	csrw medeleg, t0
	la t0, s_trap_brk
	csrw stvec, t0
	CLR_X
	li t0, MSTATUS_SPIE|MSTATUS_MPIE
	csrs mstatus, t0
	ARM(33, 1f)
	ENTER(1, 2f)
2:	csrsi sstatus, MSTATUS_SIE
3:	ecall
	j fail_common
1:	CHECK(33, s7, CAUSE_ECALL_S)
	CHECKA(34, s8, 3b, 0)
	CHECK(35, s9, 0)
	/* SPP=S, SPIE=old SIE=1, SIE=0 */
	CHECKM(36, s10, XFIELDS, MSTATUS_SPP|MSTATUS_SPIE)
	CHECK(37, s2, CAUSE_BREAKPOINT)
	CHECKA(38, s3, s_trap_brk, 16)
	/* mstatus in M: MPP=S, MPIE=MIE of S time (1 via mret), SPP=1 */
	CHECKM(39, s5, XFIELDS, MSTATUS_MPP_S|MSTATUS_MPIE|MSTATUS_SPP|MSTATUS_SPIE)
	la t0, s_trap
	csrw stvec, t0

	/* ---------------- delegated illegal instruction from U ---------- */
	/* QEMU: stval = the instruction bits, as for mtval. */
	li t0, 0x4
	csrw medeleg, t0
	CLR_X
	ARM(40, 1f)
	ENTER(0, 2f)
2:	csrr a0, sstatus
	j fail_common
1:	CHECK(40, s7, CAUSE_ILLEGAL)
	CHECKA(41, s8, 2b, 0)
	CHECK_INSN32(42, s9, 2b)
	CHECKM(43, s10, XFIELDS, 0)
	CHECK(44, s2, CAUSE_ECALL_S)

	/* ---------------- delegated breakpoint from S ---------------- */
	/* QEMU: stval = 0 for ebreak. */
	li t0, 0x8
	csrw medeleg, t0
	CLR_X
	ARM(45, 1f)
	ENTER(1, 2f)
2:	ebreak
	j fail_common
1:	CHECK(45, s7, CAUSE_BREAKPOINT)
	CHECKA(46, s8, 2b, 0)
	CHECK(47, s9, 0)
	CHECKM(48, s10, XFIELDS, MSTATUS_SPP)
	CHECK(49, s2, CAUSE_ECALL_S)

	/* ---------------- delegated load access fault from U ------------ */
	li t0, 0x20
	csrw medeleg, t0
	CLR_X
	ARM(50, 1f)
	li t3, UNMAPPED_HIGH
	ENTER(0, 2f)
2:	lw a0, 4(t3)
	j fail_common
1:	CHECK(50, s7, CAUSE_LOAD_ACCESS)
	CHECKA(51, s8, 2b, 0)
	CHECK(52, s9, UNMAPPED_HIGH+4)
	CHECKM(53, s10, XFIELDS, 0)
	CHECK(54, s2, CAUSE_ECALL_S)

	/* ---------------- delegated misaligned lr.w from S -------------- */
	li t0, 0x10
	csrw medeleg, t0
	CLR_X
	ARM(55, 1f)
	la t3, ddata
	addi t3, t3, 2
	ENTER(1, 2f)
2:	lr.w a0, (t3)
	j fail_common
1:	CHECK(55, s7, CAUSE_LOAD_MISALIGNED)
	CHECKA(56, s8, 2b, 0)
	CHECKA(57, s9, ddata, 2)
	CHECKM(58, s10, XFIELDS, MSTATUS_SPP)
	CHECK(59, s2, CAUSE_ECALL_S)

	/* ---------------- traps in M are never delegated ---------------- */
	/* Every standard bit except 9 (the S handler leaves through an
	 * ecall from S, which must reach M), plus bit 11 (ecall from M; QEMU
	 * keeps it, the spec makes it read-only zero: either way an ecall in
	 * M is handled in M). */
	li t0, (DELEG_STD&~0x200)|0x800
	csrw medeleg, t0
	li t0, S_INTS
	csrw mideleg, t0
	CLR_X
	ARM(60, 1f)
2:	ecall
	j fail_common
1:	CHECK(60, s2, CAUSE_ECALL_M)
	CHECKA(61, s3, 2b, 0)
	CHECK(62, s7, -1)
	CHECKM(63, s5, XFIELDS, MSTATUS_MPP_M)
	ARM(64, 1f)
2:	csrr a0, 0x7ff
	j fail_common
1:	CHECK(64, s2, CAUSE_ILLEGAL)
	CHECKA(65, s3, 2b, 0)
	CHECK(66, s7, -1)
	ARM(67, 1f)
2:	ebreak
	j fail_common
1:	CHECK(67, s2, CAUSE_BREAKPOINT)
	CHECK(68, s7, -1)
	ARM(69, 1f)
	li t3, UNMAPPED_LOW
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(69, s2, CAUSE_LOAD_ACCESS)
	CHECK(70, s4, UNMAPPED_LOW)
	CHECK(71, s7, -1)
	ARM(72, 1f)
	li t3, UNMAPPED_LOW
2:	sd zero, 0(t3)
	j fail_common
1:	CHECK(72, s2, CAUSE_STORE_ACCESS)
	CHECK(73, s7, -1)
	ARM(74, 1f)
	la t3, ddata
	addi t3, t3, 1
2:	lr.w a0, (t3)
	j fail_common
1:	CHECK(74, s2, CAUSE_LOAD_MISALIGNED)
	CHECK(75, s7, -1)
	/* the same medeleg still sends a U ecall to S */
	CLR_X
	ARM(76, 1f)
	ENTER(0, 2f)
2:	ecall
	j fail_common
1:	CHECK(76, s7, CAUSE_ECALL_U)
	CHECKA(77, s8, 2b, 0)
	CHECK(78, s2, CAUSE_ECALL_S)
	csrw medeleg, zero
	csrw mideleg, zero

	/* ---------------- vectored mtvec ---------------- */
	la t0, mvec
	ori t0, t0, 1
	csrw mtvec, t0
	csrr a0, mtvec
	CHECKR(79, a0, t0)
	/* exception with vectored mtvec: BASE (slot 0) */
	ARM(80, 1f)
	li s6, -1
2:	ecall
	j fail_common
1:	CHECK(80, s6, 0)
	CHECK(81, s2, CAUSE_ECALL_M)
	CHECKA(82, s3, 2b, 0)
	/* ecall from U, vectored: still BASE */
	ARM(83, 1f)
	li s6, -1
	ENTER(0, 2f)
2:	ecall
	j fail_common
1:	CHECK(83, s6, 0)
	CHECK(84, s2, CAUSE_ECALL_U)
	/* machine software interrupt: slot 3. msip set, MSIE on, then MIE
	 * on: the trap comes right after the csrsi, mepc = next instruction. */
	CLR_X
	li t0, CLINT_MSIP
	li t1, 1
	sw t1, 0(t0)
	li t0, MIP_MSIP
	csrw mie, t0
	ARM(85, 1f)
	li s6, -1
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	li t0, CLINT_MSIP
	sw zero, 0(t0)
	csrw mie, zero
	CHECK(85, s6, 3)
	CHECK(86, s2, INT_MSI)
	CHECKA(87, s3, 2b, 0)
	CHECK(88, s4, 0)
	CHECKM(89, s5, XFIELDS, MSTATUS_MPP_M|MSTATUS_MPIE)
	/* machine timer interrupt: slot 7 (mtimecmp = 0 is already due) */
	CLR_X
	li t0, CLINT_MTIMECMP
	sd zero, 0(t0)
	li t0, MIP_MTIP
	csrw mie, t0
	ARM(90, 1f)
	li s6, -1
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	li t0, CLINT_MTIMECMP
	li t1, -1
	sd t1, 0(t0)
	csrw mie, zero
	CHECK(90, s6, 7)
	CHECK(91, s2, INT_MTI)
	CHECKA(92, s3, 2b, 0)
	/* supervisor software interrupt not delegated: M, slot 1 */
	CLR_X
	csrsi mip, MIP_SSIP
	csrsi mie, MIP_SSIP
	ARM(93, 1f)
	li s6, -1
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	csrci mip, MIP_SSIP
	csrw mie, zero
	CHECK(93, s6, 1)
	CHECK(94, s2, INT_SSI)
	CHECKA(95, s3, 2b, 0)
	/* supervisor timer interrupt not delegated: M, slot 5 */
	CLR_X
	li t0, MIP_STIP
	csrs mip, t0
	csrs mie, t0
	ARM(96, 1f)
	li s6, -1
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	li t0, MIP_STIP
	csrc mip, t0
	csrw mie, zero
	CHECK(96, s6, 5)
	CHECK(97, s2, INT_STI)
	CHECKA(98, s3, 2b, 0)
	/* supervisor external interrupt (SEIP set by M) not delegated:
	 * M, slot 9 */
	CLR_X
	li t0, MIP_SEIP
	csrs mip, t0
	csrs mie, t0
	ARM(99, 1f)
	li s6, -1
	csrsi mstatus, MSTATUS_MIE
2:	j fail_common
1:	li t0, MIP_SEIP
	csrc mip, t0
	csrw mie, zero
	CHECK(99, s6, 9)
	CHECK(100, s2, INT_SEI)
	CHECKA(101, s3, 2b, 0)
	/* an M interrupt while in U (MIE irrelevant there): slot 3, MPP=U */
	CLR_X
	li t0, CLINT_MSIP
	li t1, 1
	sw t1, 0(t0)
	li t0, MIP_MSIP
	csrw mie, t0
	ARM(102, 1f)
	li s6, -1
	ENTER(0, 2f)
2:	j fail_common
1:	li t0, CLINT_MSIP
	sw zero, 0(t0)
	csrw mie, zero
	CHECK(102, s6, 3)
	CHECK(103, s2, INT_MSI)
	CHECKA(104, s3, 2b, 0)
	CHECKM(105, s5, XFIELDS, 0)
	/* QEMU: a reserved MODE (2 or 3) makes the whole mtvec write be
	 * ignored (the old value stays). */
	ARM(106, fail_common)
	la t0, mvec
	ori t1, t0, 2
	csrw mtvec, t1
	csrr a0, mtvec
	ori t1, t0, 1
	CHECKR(106, a0, t1)
	ori t1, t0, 3
	csrw mtvec, t1
	csrr a0, mtvec
	ori t1, t0, 1
	CHECKR(107, a0, t1)
	la t0, m_trap
	csrw mtvec, t0
	csrr a0, mtvec
	CHECKR(108, a0, t0)

	/* ---------------- vectored stvec ---------------- */
	la t0, svec
	ori t0, t0, 1
	csrw stvec, t0
	csrr a0, stvec
	CHECKR(109, a0, t0)
	li t0, S_INTS
	csrw mideleg, t0
	/* delegated SSI taken in S: slot 1. Enter S with SIE=0, then set
	 * SIE: the trap comes right after, sepc = next instruction. */
	CLR_X
	csrsi mip, MIP_SSIP
	li t0, S_INTS
	csrw mie, t0
	ARM(110, 1f)
	li s6, -1
	ENTER(1, 3f)
3:	csrsi sstatus, MSTATUS_SIE
2:	j fail_common
1:	csrci mip, MIP_SSIP
	CHECK(110, s6, 1)
	CHECK(111, s7, INT_SSI)
	CHECKA(112, s8, 2b, 0)
	CHECK(113, s9, 0)
	/* SPP=S, SPIE=1 (SIE was 1), SIE=0 */
	CHECKM(114, s10, XFIELDS, MSTATUS_SPP|MSTATUS_SPIE)
	CHECK(115, s2, CAUSE_ECALL_S)
	CHECKM(116, s5, XFIELDS, MSTATUS_MPP_S|MSTATUS_SPP|MSTATUS_SPIE)
	/* delegated STI: slot 5, from U (taken whatever SIE is) */
	CLR_X
	li t0, MIP_STIP
	csrs mip, t0
	ARM(117, 1f)
	li s6, -1
	ENTER(0, 2f)
2:	j fail_common
1:	li t0, MIP_STIP
	csrc mip, t0
	CHECK(117, s6, 5)
	CHECK(118, s7, INT_STI)
	CHECKA(119, s8, 2b, 0)
	CHECKM(120, s10, XFIELDS, 0)
	CHECK(121, s2, CAUSE_ECALL_S)
	/* delegated SEI: slot 9, from U */
	CLR_X
	li t0, MIP_SEIP
	csrs mip, t0
	ARM(122, 1f)
	li s6, -1
	ENTER(0, 2f)
2:	j fail_common
1:	li t0, MIP_SEIP
	csrc mip, t0
	CHECK(122, s6, 9)
	CHECK(123, s7, INT_SEI)
	CHECKA(124, s8, 2b, 0)
	CHECK(125, s2, CAUSE_ECALL_S)
	/* delegated exception with vectored stvec: BASE (slot 0) */
	li t0, 0x100
	csrw medeleg, t0
	CLR_X
	ARM(126, 1f)
	li s6, -1
	ENTER(0, 2f)
2:	ecall
	j fail_common
1:	CHECK(126, s6, 0)
	CHECK(127, s7, CAUSE_ECALL_U)
	CHECKA(128, s8, 2b, 0)
	csrw medeleg, zero
	/* a delegated interrupt pending while in M is not taken in M, even
	 * with mstatus.MIE=1 */
	ARM(129, fail_common)
	csrsi mip, MIP_SSIP
	csrsi mstatus, MSTATUS_MIE
	nop
	nop
	csrci mstatus, MSTATUS_MIE
	csrci mip, MIP_SSIP
	/* not delegated any more: the same SSI goes to M through mtvec
	 * (direct mode), even from S */
	csrw mideleg, zero
	csrsi mip, MIP_SSIP
	CLR_X
	ARM(130, 1f)
	ENTER(1, 2f)
2:	j fail_common
1:	csrci mip, MIP_SSIP
	CHECK(130, s2, INT_SSI)
	CHECKA(131, s3, 2b, 0)
	CHECK(132, s7, -1)
	CHECKM(133, s5, XFIELDS, MSTATUS_MPP_S)
	/* QEMU: reserved stvec MODE values are ignored as for mtvec */
	ARM(134, fail_common)
	la t0, svec
	ori t1, t0, 2
	csrw stvec, t1
	csrr a0, stvec
	ori t1, t0, 1
	CHECKR(134, a0, t1)
	csrw mie, zero
	csrw mideleg, zero

	PASS

	/* S handler that leaves through ebreak instead of ecall */
	.align 2
s_trap_brk:
	csrr s7, scause
	csrr s8, sepc
	csrr s9, stval
	csrr s10, sstatus
	ebreak
	j fail_common

	/* Vector tables: slot k is a 4-byte jump that records k in s6. */
	.align 8
mvec:
	.option push
	.option norvc
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	j mslot\k
	.endr
	.option pop
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
mslot\k:
	li s6, \k
	j m_trap
	.endr
	.align 8
svec:
	.option push
	.option norvc
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	j sslot\k
	.endr
	.option pop
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
sslot\k:
	li s6, \k
	j s_trap
	.endr

	PRIV_HANDLERS
RVTEST_END

	.data
	.align 4
ddata:
	.dword 0x0807060504030201, 0x100f0e0d0c0b0a09
