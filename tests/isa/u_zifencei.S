/* u_zifencei.S: fence.i and self-modifying code. Each case executes an
 * instruction at least once (so any instruction cache or decoded-block
 * cache holds it), overwrites it in RAM with ordinary stores, executes
 * fence.i, and checks that the next execution shows the new instruction:
 * - a called function patched with sw (after one call, and after 100
 *   calls so that a hot, cached or translated copy exists);
 * - an instruction in the straight-line code of a loop, a few
 *   instructions after the store;
 * - only the upper halfword of an instruction patched with sh, and one
 *   byte of it with sb;
 * - a compressed instruction patched in place, and a 32-bit instruction
 *   replaced by two compressed ones (the decoder must re-split);
 * - code copied into a data buffer, executed, rewritten, executed again;
 * - a hot call into another page, patched between two passes through the
 *   same call (a translation cache's chained cross-page jump must see it);
 * - a return into code the callee patched (an indirect jump's lookup).
 * Without fence.i the result is unspecified, so that is never tested.
 * Nothing here is implementation-defined. */
#include "u_test.h"
	.option norvc

#define ADDI_A0(imm) (0x00000513 | ((imm) << 20))	/* addi a0, x0, imm */

RVTEST_BEGIN

	/* ---- a patched function ---- */
	U_NUM(1)
	jal ra, u_smc_fn
	U_CHECKR(a0, 1)
	la t0, u_smc_fn
	li t1, ADDI_A0(2)
	sw t1, 0(t0)
	fence.i
	jal ra, u_smc_fn
	U_CHECKR(a0, 2)
	U_NUM(2)
	/* hot: 100 calls, then patch again */
	li s2, 100
1:	jal ra, u_smc_fn
	U_CHECKR(a0, 2)
	addi s2, s2, -1
	bnez s2, 1b
	la t0, u_smc_fn
	li t1, ADDI_A0(3)
	sw t1, 0(t0)
	fence.i
	jal ra, u_smc_fn
	U_CHECKR(a0, 3)
	U_NUM(3)
	/* patch the second instruction: the ret becomes addi a0, a0, 100;
	 * the function then falls through into its second ret */
	la t0, u_smc_fn
	li t1, 0x06450513	/* addi a0, a0, 100 */
	sw t1, 4(t0)
	fence.i
	jal ra, u_smc_fn
	U_CHECKR(a0, 103)

	/* ---- an instruction in the running code ---- */
	U_NUM(4)
	li s2, 0
	li s3, 0
2:
u_smc_inline:
	addi a0, x0, 4		/* patched to addi a0, x0, 5 */
	add s3, s3, a0
	bnez s2, 3f
	li s2, 1
	la t0, u_smc_inline
	li t1, ADDI_A0(5)
	sw t1, 0(t0)
	fence.i
	j 2b
3:	U_CHECKR(a0, 5)
	U_CHECKR(s3, 9)
	U_NUM(5)
	/* the store right before the patched instruction, no loop */
	la t0, 1f
	li t1, ADDI_A0(7)
	sw t1, 0(t0)
	fence.i
1:	addi a0, x0, 6		/* never executed as written */
	U_CHECKR(a0, 7)

	/* ---- partial patches: sh, sb ---- */
	U_NUM(6)
	li s2, 0
2:
u_smc_half:
	addi a0, x0, 8		/* upper halfword patched: imm 8 -> 0x123 */
	bnez s2, 3f
	U_CHECKR(a0, 8)
	li s2, 1
	la t0, u_smc_half
	li t1, ADDI_A0(0x123) >> 16
	sh t1, 2(t0)
	fence.i
	j 2b
3:	U_CHECKR(a0, 0x123)
	U_NUM(7)
	li s2, 0
2:
u_smc_byte:
	addi a0, x0, 0x10	/* byte 3 patched: imm 0x10 -> 0x7f0 */
	bnez s2, 3f
	U_CHECKR(a0, 0x10)
	li s2, 1
	la t0, u_smc_byte
	li t1, 0x7f
	sb t1, 3(t0)		/* bits 31:24 of the word: imm[11:4] */
	fence.i
	j 2b
3:	U_CHECKR(a0, 0x7f0)

	/* ---- compressed code ---- */
	U_NUM(8)
	jal ra, u_smc_cfn
	U_CHECKR(a0, 8)
	la t0, u_smc_cfn
	li t1, 0x4525		/* c.li a0, 9 */
	sh t1, 0(t0)
	fence.i
	jal ra, u_smc_cfn
	U_CHECKR(a0, 9)
	U_NUM(9)
	/* a 32-bit instruction becomes two compressed ones */
	jal ra, u_smc_fn2
	U_CHECKR(a0, 1)
	la t0, u_smc_fn2
	li t1, 0x0505 << 16 | 0x4529	/* c.li a0, 10 ; c.addi a0, 1 */
	sw t1, 0(t0)
	fence.i
	jal ra, u_smc_fn2
	U_CHECKR(a0, 11)
	U_NUM(10)
	/* ... and back */
	la t0, u_smc_fn2
	li t1, ADDI_A0(12)
	sw t1, 0(t0)
	fence.i
	jal ra, u_smc_fn2
	U_CHECKR(a0, 12)

	/* ---- code built in a data buffer ---- */
	U_NUM(11)
	la a1, u_codebuf
	li t1, ADDI_A0(20)
	sw t1, 0(a1)
	li t1, 0x00008067	/* ret */
	sw t1, 4(a1)
	fence.i
	jalr ra, 0(a1)
	U_CHECKR(a0, 20)
	U_NUM(12)
	la a1, u_codebuf
	li t1, 0x00150513	/* addi a0, a0, 1 */
	sw t1, 0(a1)
	sw t1, 4(a1)
	li t1, 0x00008067	/* ret */
	sw t1, 8(a1)
	fence.i
	li a0, 30
	jalr ra, 0(a1)
	U_CHECKR(a0, 32)
	U_NUM(13)
	/* a loop calling the buffer, rewritten on every pass */
	li s2, 0
	li s3, 0
1:	la a1, u_codebuf
	slli t1, s2, 20
	ori t1, t1, ADDI_A0(0)	/* addi a0, x0, s2 */
	sw t1, 0(a1)
	li t1, 0x00008067
	sw t1, 4(a1)
	fence.i
	jalr ra, 0(a1)
	bne a0, s2, fail_common
	add s3, s3, a0
	addi s2, s2, 1
	li t1, 10
	blt s2, t1, 1b
	U_CHECKR(s3, 45)

	/* ---- across pages ---- */
	U_NUM(14)
	li s2, 0
1:	jal ra, u_smc_far	/* the same call before and after the patch */
	addi s2, s2, 1
	li t1, 50
	bne s2, t1, 2f
	la t0, u_smc_far
	li t1, ADDI_A0(22)
	sw t1, 0(t0)
	fence.i
2:	li t1, 51
	blt s2, t1, 1b
	U_CHECKR(a0, 22)
	U_NUM(15)
	li s2, 0
1:	jal ra, u_smc_patcher	/* patches u_smc_ret on the third pass */
u_smc_ret:
	addi a0, x0, 13		/* patched to addi a0, x0, 14 */
	addi s2, s2, 1
	li t1, 3
	blt s2, t1, 1b
	U_CHECKR(a0, 14)

	PASS

	.balign 4
u_smc_fn:
	addi a0, x0, 1
	ret
	ret

u_smc_fn2:
	addi a0, x0, 1
	ret

	.option push
	.option rvc
	.balign 4
u_smc_cfn:
	c.li a0, 8
	c.jr ra
	.option pop

	.balign 4096
u_smc_far:
	addi a0, x0, 21
	ret

	.balign 4096
u_smc_patcher:
	li t1, 2
	bne s2, t1, 1f
	la t0, u_smc_ret
	li t2, ADDI_A0(14)
	sw t2, 0(t0)
	fence.i
1:	ret

RVTEST_END

	.data
	.balign 64
u_codebuf:
	.skip 64
