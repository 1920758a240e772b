/* Prints over the 16550 (after programming the divisor latch, whose bytes
 * must not reach the console) and stops through the test finisher. */
	.section .text.init
	.globl _start
_start:
	li t0, 0x10000000
	li t1, 0x80
	sb t1, 3(t0)          /* LCR.DLAB = 1 */
	li t1, 0x01
	sb t1, 0(t0)          /* DLL: must not print */
	sb zero, 1(t0)        /* DLM */
	li t1, 0x03
	sb t1, 3(t0)          /* 8N1, DLAB = 0 */
	la t2, msg
1:	lbu t1, 0(t2)
	beqz t1, 2f
	sb t1, 0(t0)
	addi t2, t2, 1
	j 1b
2:	li t0, 0x100000
	li t1, 0x5555
	sw t1, 0(t0)
3:	j 3b
msg:	.asciz "hello from the bare board\n"
