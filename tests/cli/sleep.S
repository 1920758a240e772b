/* Sleeps with every interrupt disabled: nothing can ever wake the hart. */
	.section .text.init
	.globl _start
_start:
	csrw mie, zero
	wfi
	j _start
