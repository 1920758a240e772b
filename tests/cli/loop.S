/* Spins forever: only --max-insns can stop it. */
	.section .text.init
	.globl _start
_start:
	j _start
