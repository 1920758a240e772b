/* u_zeropage.S: RAM that was never written reads as zeros, and the first
 * store to it is what the next load sees. A machine may serve every page
 * never written from one shared page of zeros, and cache that in its TLB
 * for reads: then the first store must drop those entries, for whichever
 * kind of store it is (sd, sb, an AMO, a misaligned store across two such
 * pages), and only for the page written. The pages are .bss, which the
 * ELF loader never writes. Nothing here is implementation-defined
 * (misaligned accesses are done by the hart or by a trap handler that
 * emulates them; both machines run here do them in hardware). */
#include "u_test.h"
	.option norvc

RVTEST_BEGIN

	/* ---- loads, a store, loads ---- */
	U_NUM(1)
	la s2, u_fresh
	ld a0, 0(s2)
	U_CHECKR(a0, 0)
	ld a0, 8(s2)		/* a hit on whatever the first load cached */
	U_CHECKR(a0, 0)
	li a1, 0x1122334455667788
	sd a1, 16(s2)
	ld a0, 16(s2)
	U_CHECKR(a0, 0x1122334455667788)
	U_NUM(2)
	ld a0, 0(s2)
	U_CHECKR(a0, 0)
	ld a0, 24(s2)
	U_CHECKR(a0, 0)

	/* ---- the next page: read, then a byte store ---- */
	U_NUM(3)
	li t0, 4096
	add s3, s2, t0
	lbu a0, 100(s3)
	U_CHECKR(a0, 0)
	li a1, 0xab
	sb a1, 100(s3)
	lbu a0, 100(s3)
	U_CHECKR(a0, 0xab)
	ld a0, 96(s3)
	U_CHECKR(a0, 0xab00000000)

	/* ---- an AMO into a page read before ---- */
	U_NUM(4)
	add s4, s3, t0
	ld a0, 0(s4)
	U_CHECKR(a0, 0)
	li a1, 5
	amoadd.d a2, a1, (s4)
	U_CHECKR(a2, 0)
	ld a0, 0(s4)
	U_CHECKR(a0, 5)

	/* ---- a store across two pages, both read before ---- */
	U_NUM(5)
	add s5, s4, t0		/* pages s5 and s6 = s5 + 4096 */
	add s6, s5, t0
	addi s7, s6, -16	/* the last 16 bytes of page s5 */
	ld a0, 8(s7)
	U_CHECKR(a0, 0)
	ld a0, 0(s6)
	U_CHECKR(a0, 0)
	li a1, 0x0102030405060708
	sd a1, 12(s7)		/* 4 bytes in each page */
	lwu a0, 12(s7)
	U_CHECKR(a0, 0x05060708)
	lwu a0, 0(s6)
	U_CHECKR(a0, 0x01020304)
	U_NUM(6)
	ld a0, 8(s6)		/* the rest of both pages still zeros */
	U_CHECKR(a0, 0)
	ld a0, 0(s7)
	U_CHECKR(a0, 0)

RVTEST_END

	.bss
	.balign 4096
u_fresh:
	.skip 6 * 4096
