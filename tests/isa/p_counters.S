/* p_counters.S: counters, counter-enable gating and machine ID CSRs.
 *
 * Covers:
 *   - cycle, instret, mcycle, minstret readable in M (whatever mcounteren
 *     says) and never going backwards
 *   - instret across a straight line of instructions
 *   - mcycle / minstret writable from M, cycle / instret following them
 *   - the time CSR (see the QEMU note below) against CLINT mtime
 *   - mcounteren gating S-mode reads of cycle, time, instret and
 *     hpmcounter3 (illegal instruction, mtval = the instruction) and
 *     scounteren gating U-mode reads (both enables needed for U)
 *   - mcounteren / scounteren read back
 *   - RV32-only counter halves (cycleh, mcycleh, instreth) are illegal
 *   - misa (MXL=2, IMAFDCSU), mhartid 0, mvendorid, marchid, mimpid
 *     readable; misa writes ignored; ID CSR writes illegal
 *
 * Where the spec leaves a choice, or QEMU 7.2 (-M spike) departs from the
 * spec, QEMU is the reference; each such place is marked "QEMU:" below.
 *
 * Sub-tests 1..134. */
#include "p_priv.h"

#define CLR_X                                                                  \
	li t0, XFIELDS;                                                        \
	csrc mstatus, t0;

/* Sub-tests num..num+3: insn in mode (0 U, 1 S) raises an illegal
 * instruction trap with mepc at it, mtval = its bits, MPP = mode. */
.macro ILLEGAL_IN mode, num, insn:vararg
	ARM(\num, 891f)
	ENTER(\mode, 892f)
892:	\insn
	ecall
	j fail_common
891:	CHECK(\num, s2, CAUSE_ILLEGAL)
	CHECKA(\num+1, s3, 892b, 0)
	CHECK_INSN32(\num+2, s4, 892b)
	CHECKM(\num+3, s5, MSTATUS_MPP, (\mode<<11))
.endm

/* Sub-tests num, num+1: insn in mode runs without a trap, and the value it
 * reads into a0 is not the sentinel -1 left before it. */
.macro WORKS_IN mode, num, insn:vararg
	ARM(\num, 891f)
	li a0, -1
	ENTER(\mode, 892f)
892:	\insn
	ecall
	j fail_common
891:	CHECK(\num, s2, (8+\mode))
	li TESTNUM, \num+1
	li t2, -1
	beq a0, t2, fail_common
.endm

/* Sub-tests num..num+2: insn in M raises an illegal-instruction trap. */
.macro ILLEGAL_M num, insn:vararg
	ARM(\num, 891f)
892:	\insn
	j fail_common
891:	CHECK(\num, s2, CAUSE_ILLEGAL)
	CHECKA(\num+1, s3, 892b, 0)
	CHECK_INSN32(\num+2, s4, 892b)
.endm

PRIV_BEGIN
	csrw mcounteren, zero
	csrw scounteren, zero

	/* ---------------- readable in M, monotonic ---------------- */
	ARM(1, fail_common)
	csrr a0, cycle
	csrr a1, mcycle
	csrr a2, cycle
	bltu a1, a0, fail_common
	li TESTNUM, 2
	bltu a2, a1, fail_common
	ARM(3, fail_common)
	csrr a0, instret
	csrr a1, minstret
	csrr a2, instret
	bltu a1, a0, fail_common
	li TESTNUM, 4
	bltu a2, a1, fail_common
	/* instret over "csrr; nop; nop; csrr": the spec count is 3 (the first
	 * csrr and two nops retire between the reads).
	 * QEMU: without -icount, QEMU 7.2 backs instret and cycle with the
	 * host's tick counter, so the difference is some larger number. The
	 * test accepts any difference >= 3. */
	ARM(5, fail_common)
	csrr a0, instret
	nop
	nop
	csrr a1, instret
	sub a1, a1, a0
	li t2, 3
	bltu a1, t2, fail_common
	/* a longer straight line: at least 11 */
	ARM(6, fail_common)
	csrr a0, minstret
	.rept 10
	addi zero, zero, 0
	.endr
	csrr a1, minstret
	sub a1, a1, a0
	li t2, 11
	bltu a1, t2, fail_common

	/* ---------------- writable from M ---------------- */
	/* The value written is what the next read sees (plus what has been
	 * counted since): compare within [X, X + 2^32). */
	ARM(7, fail_common)
	li a3, 0x4000000000000000
	csrw minstret, a3
	csrr a0, minstret
	bltu a0, a3, fail_common
	li t2, 0x100000000
	add t2, t2, a3
	li TESTNUM, 8
	bgeu a0, t2, fail_common
	/* instret is the same counter */
	csrr a0, instret
	li TESTNUM, 9
	bltu a0, a3, fail_common
	li TESTNUM, 10
	bgeu a0, t2, fail_common
	/* a small value */
	ARM(11, fail_common)
	li a3, 5
	csrw minstret, a3
	csrr a0, minstret
	bltu a0, a3, fail_common
	li t2, 0x100000000
	add t2, t2, a3
	li TESTNUM, 12
	bgeu a0, t2, fail_common
	ARM(13, fail_common)
	li a3, 0x4000000000000000
	csrw mcycle, a3
	csrr a0, mcycle
	bltu a0, a3, fail_common
	li t2, 0x100000000
	add t2, t2, a3
	li TESTNUM, 14
	bgeu a0, t2, fail_common
	csrr a0, cycle
	li TESTNUM, 15
	bltu a0, a3, fail_common
	li TESTNUM, 16
	bgeu a0, t2, fail_common
	ARM(17, fail_common)
	li a3, 7
	csrw mcycle, a3
	csrr a0, mcycle
	bltu a0, a3, fail_common
	li t2, 0x100000000
	add t2, t2, a3
	li TESTNUM, 18
	bgeu a0, t2, fail_common
	/* cycle and instret are read-only names */
	ILLEGAL_M 19, csrw cycle, zero
	ILLEGAL_M 22, csrw instret, zero
	ILLEGAL_M 25, csrrs a0, time, a3

	/* ---------------- time ---------------- */
	/* QEMU: on -M spike the CLINT does not back the time CSR, so reading
	 * time is an illegal instruction even in M. A board that implements
	 * it must return mtime. Both are accepted: a trap must be exactly
	 * illegal-instruction with mtval = the instruction; a value must lie
	 * between two reads of mtime. */
	ARM(28, 1f)
	li t3, CLINT_MTIME
	ld a1, 0(t3)
2:	csrr a0, time
	ld a2, 0(t3)
	li TESTNUM, 28
	bltu a0, a1, fail_common
	li TESTNUM, 29
	bltu a2, a0, fail_common
	j 3f
1:	CHECK(30, s2, CAUSE_ILLEGAL)
	CHECKA(31, s3, 2b, 0)
	CHECK_INSN32(32, s4, 2b)
3:

	/* ---------------- RV32-only halves ---------------- */
	ILLEGAL_M 33, csrr a0, cycleh
	ILLEGAL_M 36, csrr a0, instreth
	ILLEGAL_M 39, csrr a0, mcycleh
	ILLEGAL_M 42, csrr a0, minstreth

	/* ---------------- mcounteren / scounteren ---------------- */
	ARM(45, fail_common)
	li t0, 7
	csrw mcounteren, t0
	csrr a0, mcounteren
	CHECK(45, a0, 7)
	li t0, 5
	csrw mcounteren, t0
	csrr a0, mcounteren
	CHECK(46, a0, 5)
	li t0, 7
	csrw scounteren, t0
	csrr a0, scounteren
	CHECK(47, a0, 7)
	li t0, 2
	csrw scounteren, t0
	csrr a0, scounteren
	CHECK(48, a0, 2)
	/* M reads the counters whatever mcounteren holds */
	csrw mcounteren, zero
	csrw scounteren, zero
	ARM(49, fail_common)
	csrr a0, cycle
	csrr a0, instret
	csrr a0, mcycle

	/* mcounteren = 0: S may read none of them */
	CLR_X
	ILLEGAL_IN 1, 50, csrr a0, cycle
	ILLEGAL_IN 1, 54, csrr a0, time
	ILLEGAL_IN 1, 58, csrr a0, instret
	ILLEGAL_IN 1, 62, csrr a0, hpmcounter3
	/* M-level counters are never readable from S */
	ILLEGAL_IN 1, 66, csrr a0, mcycle
	ILLEGAL_IN 1, 70, csrr a0, minstret
	/* mcounteren.CY: cycle works from S, instret still does not */
	li t0, 1
	csrw mcounteren, t0
	WORKS_IN 1, 74, csrr a0, cycle
	ILLEGAL_IN 1, 76, csrr a0, instret
	/* mcounteren.IR: instret works from S */
	li t0, 4
	csrw mcounteren, t0
	WORKS_IN 1, 80, csrr a0, instret
	ILLEGAL_IN 1, 82, csrr a0, cycle
	/* scounteren does not matter for S itself */
	li t0, 5
	csrw mcounteren, t0
	csrw scounteren, zero
	WORKS_IN 1, 86, csrr a0, cycle

	/* ---------------- scounteren gating for U ---------------- */
	/* mcounteren CY|IR, scounteren 0: U may not read */
	li t0, 5
	csrw mcounteren, t0
	csrw scounteren, zero
	ILLEGAL_IN 0, 88, csrr a0, cycle
	ILLEGAL_IN 0, 92, csrr a0, instret
	/* scounteren.CY: U reads cycle */
	li t0, 1
	csrw scounteren, t0
	WORKS_IN 0, 96, csrr a0, cycle
	ILLEGAL_IN 0, 98, csrr a0, instret
	/* scounteren all, mcounteren 0: U still may not read */
	csrw mcounteren, zero
	li t0, 7
	csrw scounteren, t0
	ILLEGAL_IN 0, 102, csrr a0, cycle
	ILLEGAL_IN 0, 106, csrr a0, instret
	/* both set: U reads instret; the value is monotonic with M's */
	li t0, 4
	csrw mcounteren, t0
	csrr a5, instret
	WORKS_IN 0, 110, csrr a0, instret
	li TESTNUM, 112
	bltu a0, a5, fail_common
	csrw mcounteren, zero
	csrw scounteren, zero

	/* ---------------- machine ID CSRs ---------------- */
	/* misa: MXL=2 (RV64) and exactly I M A F D C S U.
	 * QEMU: 7.2 also reports H (bit 7) by default; that bit alone is
	 * ignored. */
	ARM(113, fail_common)
	csrr a0, misa
	li t0, ~0x80
	and a0, a0, t0
	CHECK(113, a0, 0x800000000014112d)
	/* a write to misa is ignored, not trapped (QEMU: misa is not
	 * writable) */
	csrr a1, misa
	csrw misa, zero
	csrr a0, misa
	CHECKR(114, a0, a1)
	li t0, 0x4
	csrc misa, t0
	csrr a0, misa
	CHECKR(115, a0, a1)
	csrr a0, mhartid
	CHECK(116, a0, 0)
	/* QEMU: mvendorid = 0 (non-commercial). marchid and mimpid are only
	 * required to be readable (QEMU 7.2 reports a version number). */
	csrr a0, mvendorid
	CHECK(117, a0, 0)
	csrr a0, marchid
	csrr a0, mimpid
	ILLEGAL_M 118, csrw marchid, zero
	ILLEGAL_M 121, csrw mimpid, zero
	ILLEGAL_M 124, csrs mhartid, a0
	/* the ID CSRs are not readable from S */
	ILLEGAL_IN 1, 127, csrr a0, mvendorid
	ILLEGAL_IN 1, 131, csrr a0, misa

	PASS

	PRIV_HANDLERS
RVTEST_END
