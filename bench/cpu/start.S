/* Entry of the CPU benchmark (bare metal, M-mode, both `themis bare` and
 * `qemu-system-riscv64 -M virt -bios none`).
 *
 * The very first instruction reads minstret, so the count that main() prints
 * starts here and does not include whatever a machine ran before jumping to
 * the entry (QEMU's reset ROM runs a few instructions first). */
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	csrr	a0, minstret		/* main(instret at entry) */
	la	sp, __stack_top
	la	t0, trap_entry
	csrw	mtvec, t0
	li	t0, 0x6000		/* mstatus.FS = Dirty: turn the FPU on */
	csrs	mstatus, t0
	fscsr	zero			/* round to nearest even, no flags */
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	1b
2:	call	main
	/* main returned: SiFive test finisher, 0x5555 = pass. */
	li	t0, 0x100000
	li	t1, 0x5555
	sw	t1, 0(t0)
3:	wfi
	j	3b

/* Any trap is a failure: report it and stop with code 1. */
	.align	2
trap_entry:
	la	sp, __stack_top
	csrr	a0, mcause
	csrr	a1, mepc
	csrr	a2, mtval
	call	bench_trap
	li	t0, 0x100000
	li	t1, 0x13333		/* 0x3333 | (1 << 16): fail, code 1 */
	sw	t1, 0(t0)
4:	wfi
	j	4b
