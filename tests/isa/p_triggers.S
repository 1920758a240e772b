/* p_triggers.S: the debug trigger CSRs (Sdtrig: tselect, tdata1..3, tinfo).
 *
 * A hart either has no triggers or a trigger module; the program finds out
 * the way the debug spec's enumeration does ("Write 0 to tselect. If this
 * results in an illegal instruction exception, then there are no triggers
 * implemented") and checks whichever it finds:
 *
 *   - no triggers (Themis): every trigger CSR raises illegal instruction
 *     ("Accessing trigger CSRs that are not used by any of the implemented
 *     triggers must result in an illegal instruction exception"), mtval =
 *     the instruction; nothing reads back at all;
 *   - triggers (QEMU 7.2: two, types 2 and 6): at least one exists; for
 *     each, every type written to tdata1 reads back as a type that trigger
 *     supports (tdata1.type is WARL), a supported type reads back as
 *     written, dmode cannot be set from M, writing 0 leaves a trigger that
 *     cannot match; tselect is WARL over the triggers that exist (an
 *     out-of-range write reads back in range or at a type-0 trigger).
 *   - either way, S-mode cannot reach tselect (an M-only CSR).
 *
 * QEMU: QEMU 7.2 aborts (g_assert_not_reached in tdata_csr_write) on a
 * tdata1 write of type 1 or 8..14, so those are written only when tinfo
 * says the trigger supports them.
 *
 * Sub-tests 1..37 (no triggers), 1..4 and 40..53 (triggers). */
#include "p_priv.h"

#define CSR_TSELECT 0x7a0
#define CSR_TDATA1 0x7a1
#define CSR_TDATA2 0x7a2
#define CSR_TDATA3 0x7a3
#define CSR_TINFO 0x7a4
#define CSR_TCONTROL 0x7a5
#define CSR_MCONTEXT 0x7a8
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
	ILLEGAL_IN 1, 1, csrr a0, CSR_TSELECT

	/* enumeration step 1: write 0 to tselect */
	ARM(5, 1f)
2:	csrw CSR_TSELECT, zero
1:	li t2, -1
	beq s2, t2, have_triggers

	/* ---------------- no triggers ---------------- */
	CHECK(5, s2, CAUSE_ILLEGAL)
	CHECKA(6, s3, 2b, 0)
	CHECK_INSN32(7, s4, 2b)
	li a0, 1
	li a1, (2 << 60)
	ILLEGAL_M 8, csrr a0, CSR_TSELECT
	ILLEGAL_M 11, csrw CSR_TSELECT, a0
	ILLEGAL_M 14, csrr a0, CSR_TDATA1
	ILLEGAL_M 17, csrw CSR_TDATA1, a1
	ILLEGAL_M 20, csrr a0, CSR_TDATA2
	ILLEGAL_M 23, csrr a0, CSR_TDATA3
	ILLEGAL_M 26, csrr a0, CSR_TINFO
	ILLEGAL_M 29, csrr a0, CSR_TCONTROL
	ILLEGAL_M 32, csrr a0, CSR_MCONTEXT
	/* and still nothing after those writes */
	ILLEGAL_M 35, csrr a0, CSR_TSELECT
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
	/* "If Sdtrig is implemented, the Trigger Module must support at least
	 * one trigger." */
	li TESTNUM, 49
	beqz s6, fail_common

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
