/* Shared scaffolding for the bare-metal ISA tests (assembled with
 * riscv64-linux-gnu-gcc, run by `themis bare` and by QEMU -M spike).
 *
 * Convention (HTIF "tohost"): write 1 to pass; write (n << 1) | 1 to report
 * that sub-test n failed. TESTNUM (gp) holds the number of the running
 * sub-test so a failure names it. */
#ifndef THEMIS_ISA_TEST_H
#define THEMIS_ISA_TEST_H

#define TESTNUM gp

#define RVTEST_BEGIN                                                           \
	.section .text.init;                                                   \
	.globl _start;                                                         \
	_start:                                                                \
	li TESTNUM, 0;                                                         \
	la t0, trap_unexpected;                                                \
	csrw mtvec, t0;

/* Fail with the current test number. */
#define FAIL                                                                   \
	j fail_common

#define PASS                                                                   \
	j pass_common

/* TEST_RR(n, op, expected, a, b): rd = op(a, b) must equal expected. */
#define TEST_RR(n, inst, expect, va, vb)                                       \
	li TESTNUM, n;                                                         \
	li a1, va;                                                             \
	li a2, vb;                                                             \
	inst a0, a1, a2;                                                       \
	li t2, expect;                                                         \
	bne a0, t2, fail_common;

#define TEST_RI(n, inst, expect, va, imm)                                      \
	li TESTNUM, n;                                                         \
	li a1, va;                                                             \
	inst a0, a1, imm;                                                      \
	li t2, expect;                                                         \
	bne a0, t2, fail_common;

/* Check that register reg equals the constant expect. */
#define CHECK(n, reg, expect)                                                  \
	li TESTNUM, n;                                                         \
	li t2, expect;                                                         \
	bne reg, t2, fail_common;

/* The common tail: pass/fail writers and the tohost word. */
#define RVTEST_END                                                             \
	pass_common:                                                           \
	fence;                                                                 \
	li t0, 1;                                                              \
	la t1, tohost;                                                         \
	sd t0, 0(t1);                                                          \
	1: j 1b;                                                               \
	fail_common:                                                           \
	fence;                                                                 \
	slli t0, TESTNUM, 1;                                                   \
	ori t0, t0, 1;                                                         \
	la t1, tohost;                                                         \
	sd t0, 0(t1);                                                          \
	1: j 1b;                                                               \
	.align 2;                                                              \
	trap_unexpected:                                                       \
	j fail_common;                                                         \
	.pushsection .tohost, "aw", @progbits;                                 \
	.align 6;                                                              \
	.globl tohost;                                                         \
	tohost: .dword 0;  \
	.size tohost, 8;                                                       \
	.align 6;                                                              \
	.globl fromhost;                                                       \
	fromhost: .dword 0;  \
	.size fromhost, 8;                                                    \
	.popsection;

#endif
