/* p_triggers.S: the debug trigger CSRs (Sdtrig: tselect, tdata1..3, tinfo).
 *
 * tselect must exist: the official breakpoint test (rv64mi breakpoint)
 * writes 0 to it and reads it back before it looks for a trigger, and its
 * trap handler fails on an illegal-instruction trap there. The program
 * then enumerates the triggers the way the debug spec does ("Write 0 to
 * tselect. [...] Read back tselect and check that it contains the written
 * value. If not, exit the loop. Read tinfo. If that caused an exception,
 * the debugger must read tdata1 to discover the type. (If type is 0, this
 * trigger doesn't exist. Exit the loop.)") and checks what it finds:
 *
 *   - zero triggers (Themis): tselect reads 0; tdata1, tdata2 and tdata3
 *     read 0 (tdata1 type 0: no trigger here) and ignore writes; any
 *     tselect written reads back at a type-0 tdata1; tinfo is absent or
 *     says "no trigger" (info = 1);
 *   - triggers (QEMU 7.2: two, types 2 and 6): for each, every type
 *     written to tdata1 reads back as a type that trigger supports
 *     (tdata1.type is WARL), a supported type reads back as written,
 *     dmode cannot be set from M, writing 0 leaves a trigger that cannot
 *     match; tselect is WARL over the triggers that exist (an
 *     out-of-range write reads back in range or at a type-0 trigger).
 *   - either way, S-mode cannot reach tselect and U-mode cannot reach
 *     tdata1 (M-only CSRs).
 *
 * QEMU: QEMU 7.2 aborts (g_assert_not_reached in tdata_csr_write) on a
 * tdata1 write of type 1 or 8..14, so those are written only when tinfo
 * says the trigger supports them.
 *
 * Sub-tests 1..9 (always), 10..24 (zero triggers), 40..53 (triggers). */
#include "p_priv.h"

#define CSR_TSELECT 0x7a0
#define CSR_TDATA1 0x7a1
#define CSR_TDATA2 0x7a2
#define CSR_TDATA3 0x7a3
#define CSR_TINFO 0x7a4
#define TDATA1_DMODE 0x0800000000000000
/* types whose write QEMU 7.2 cannot take unless supported: 1, 8..14 */
#define QEMU_ABORT_TYPES 0x7f02
#define MAX_TRIGGERS 64

/* Sub-test num: tselect written with the value insn puts in a0 (one that
 * is not an existing index, s6 triggers) reads back below s6 or at a
 * trigger whose tdata1.type is 0. */
.macro TSELECT_OOR num, insn:vararg
	ARM(\num, fail_common)
	\insn
	csrw CSR_TSELECT, a0
	csrr a0, CSR_TSELECT
	bltu a0, s6, 891f
	csrr a1, CSR_TDATA1
	srli a1, a1, 60
	bnez a1, fail_common
891:
.endm

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

PRIV_BEGIN
	ILLEGAL_IN 1, 1, csrr a0, CSR_TSELECT
	ILLEGAL_IN 0, 5, csrr a0, CSR_TDATA1

	/* enumeration step 1: write 0 to tselect, which must not trap */
	ARM(9, fail_common)
	csrw CSR_TSELECT, zero
	j have_triggers

	/* ---------------- zero triggers ---------------- */
no_triggers:
	ARM(10, fail_common) /* no trap expected in M but at tinfo */
	csrw CSR_TSELECT, zero
	csrr a0, CSR_TSELECT
	CHECKR(10, a0, zero)
	csrr a0, CSR_TDATA1
	CHECKR(11, a0, zero)
	csrr a0, CSR_TDATA2
	CHECKR(12, a0, zero)
	csrr a0, CSR_TDATA3
	CHECKR(13, a0, zero)
	/* writes are ignored: an M-mode execute breakpoint (mcontrol) at an
	 * address never fetched, and all ones */
	li a1, ((2 << 60) | 0x4c)
	li a2, -1
	csrw CSR_TDATA1, a1
	csrw CSR_TDATA2, zero
	csrw CSR_TDATA3, a2
	csrr a0, CSR_TDATA1
	CHECKR(14, a0, zero)
	csrr a0, CSR_TDATA2
	CHECKR(15, a0, zero)
	csrr a0, CSR_TDATA3
	CHECKR(16, a0, zero)
	csrw CSR_TDATA1, a2
	csrw CSR_TDATA2, a2
	csrr a0, CSR_TDATA1
	CHECKR(17, a0, zero)
	csrr a0, CSR_TDATA2
	CHECKR(18, a0, zero)
	/* any tselect reads back at a type-0 tdata1 (s6 = 0) */
	TSELECT_OOR 19, li a0, 1
	TSELECT_OOR 20, li a0, -1
	TSELECT_OOR 21, li a0, 0x8000000000000000
	/* tinfo: absent (illegal instruction, mtval = the instruction) or
	 * info = 1, "no trigger exists at this tselect" */
	csrw CSR_TSELECT, zero
	ARM(22, 1f)
2:	csrr a0, CSR_TINFO
1:	li t2, -1
	beq s2, t2, 3f
	CHECK(22, s2, CAUSE_ILLEGAL)
	CHECKA(23, s3, 2b, 0)
	CHECK_INSN32(24, s4, 2b)
	PASS
3:	CHECKM(22, a0, 0xffff, 1)
	PASS

	/* ---------------- triggers ---------------- */
	/* s11 = index i; s6 = the number of triggers once counted; a3 = the
	 * types trigger i supports (tinfo.info); a6 = type written */
have_triggers:
	li s11, 0
next_trigger:
	ARM(40, fail_common) /* no trap expected from here on in M */
	csrw CSR_TSELECT, s11
	csrr a0, CSR_TSELECT
	bne a0, s11, counted /* tselect did not keep i: i triggers */
	csrr a1, CSR_TDATA1
	srli a2, a1, 60
	beqz a2, counted /* type 0: no trigger at this tselect */
	/* tinfo, or when it is absent the one type tdata1 shows */
	ARM(41, 1f)
	csrr a3, CSR_TINFO
1:	li t2, -1
	beq s2, t2, 2f
	CHECK(41, s2, CAUSE_ILLEGAL)
	li a3, 1
	sll a3, a3, a2
2:	la s1, fail_common /* again no trap expected */
	li t0, 0xffff
	and a3, a3, t0
	li t0, 1
	beq a3, t0, counted /* info = 1: this trigger does not exist */
	li TESTNUM, 42 /* the current type is one it supports */
	srl t0, a3, a2
	andi t0, t0, 1
	beqz t0, fail_common

	/* every type 0..15 written to tdata1 (data 0: nothing can match) */
	li a6, 0
3:	li t0, QEMU_ABORT_TYPES
	not t1, a3
	and t0, t0, t1
	srl t0, t0, a6
	andi t0, t0, 1
	bnez t0, 4f /* QEMU: skipped, see the top */
	slli a4, a6, 60
	csrw CSR_TDATA1, a4
	csrr a5, CSR_TDATA1
	srli a5, a5, 60
	li TESTNUM, 43 /* never "no trigger here" */
	beqz a5, fail_common
	li TESTNUM, 44 /* a type this trigger supports */
	srl t0, a3, a5
	andi t0, t0, 1
	beqz t0, fail_common
	li TESTNUM, 45 /* a supported type is kept */
	srl t0, a3, a6
	andi t0, t0, 1
	beqz t0, 4f
	bne a5, a6, fail_common
4:	addi a6, a6, 1
	li t0, 16
	bltu a6, t0, 3b

	/* dmode is only writable from Debug Mode: with the lowest supported
	 * type above 0 */
	li a6, 1
5:	srl t0, a3, a6
	andi t0, t0, 1
	bnez t0, 6f
	addi a6, a6, 1
	j 5b
6:	slli a4, a6, 60
	li t0, TDATA1_DMODE
	or a4, a4, t0
	csrw CSR_TDATA1, a4
	csrr a5, CSR_TDATA1
	CHECKM(46, a5, TDATA1_DMODE, 0)

	/* "Writing 0 to this register must result in a trigger that is
	 * disabled": a supported type, and for mcontrol / mcontrol6 no
	 * execute/store/load match enabled */
	csrw CSR_TDATA1, zero
	csrr a5, CSR_TDATA1
	srli a4, a5, 60
	li TESTNUM, 47
	beqz a4, fail_common
	srl t0, a3, a4
	andi t0, t0, 1
	beqz t0, fail_common
	li t0, 2
	beq a4, t0, 7f
	li t0, 6
	bne a4, t0, 8f
7:	CHECKM(48, a5, 0x7, 0)
8:	addi s11, s11, 1
	li TESTNUM, 50 /* tselect keeps every index: not a hart we know */
	li t0, MAX_TRIGGERS
	bgeu s11, t0, fail_common
	j next_trigger

counted:
	mv s6, s11
	beqz s6, no_triggers

	/* tselect is WARL over the triggers that exist: an out-of-range write
	 * reads back as an existing index, or (as the spec also allows) as
	 * one where tdata1.type = 0. */
	TSELECT_OOR 51, mv a0, s6
	TSELECT_OOR 52, li a0, -1
	TSELECT_OOR 53, li a0, 0x8000000000000000
	csrw CSR_TSELECT, zero
	PASS

	PRIV_HANDLERS
RVTEST_END
