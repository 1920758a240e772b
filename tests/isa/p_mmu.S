/* p_mmu.S: Sv39 address translation, built and checked in the program.
 *
 * Covers:
 *   - 4 KiB, 2 MiB and 1 GiB leaves (data read through each size, including
 *     the far end of a 2 MiB page)
 *   - permission checks: R, W, X and U; S may never execute a U page; U may
 *     never touch an S page
 *   - sstatus.SUM (S load/store of a U page faults unless SUM=1)
 *   - sstatus.MXR (load from an execute-only page faults unless MXR=1)
 *   - mstatus.MPRV with MPP=S and MPP=U: M-mode loads/stores translated and
 *     checked with the MPP privilege; faults are taken in M
 *   - A and D bits updated by hardware on load, store and fetch (QEMU 7.2
 *     updates them; the PTE is read back and compared exactly)
 *   - misaligned superpages (2 MiB and 1 GiB leaves with nonzero low PPN),
 *     a non-leaf PTE at level 0, V=0 PTEs, W=1/R=0 PTEs: page faults
 *   - non-canonical virtual addresses (bits 63..39 unequal to bit 38)
 *   - sfence.vma (global and per address) making a changed PTE visible
 *   - satp MODE=0 (bare) in S-mode; satp writes with a reserved MODE
 *   - exact mcause, mepc and mtval (= faulting virtual address) for every
 *     fault, and MPP
 *
 * Layout (VA -> PA): root[2] maps 0x80000000 1:1 as a 1 GiB RWX S page (the
 * program runs there in S); root[3] maps 0xc0000000 -> 0x80000000 as a 1 GiB
 * RWX U page (U code runs there); root[1] maps 0x40000000 -> 0x80000000 as a
 * 1 GiB RW S page; root[0] -> l1 -> l0 holds the small test pages listed
 * with SETPTE below; l1[1] is a 2 MiB page at PA 0x80200000.
 *
 * Where the spec leaves a choice, QEMU 7.2 (-M spike) is the reference;
 * each such place is marked "QEMU:" below.
 *
 * Sub-tests 1..150. */
#include "p_priv.h"

#define CLR_X                                                                  \
	li t0, XFIELDS;                                                        \
	csrc mstatus, t0;

#define PTE_RWAD (PTE_V|PTE_R|PTE_W|PTE_A|PTE_D)

/* table[index] = leaf or pointer for the page at label. Clobbers t0, t1. */
#define SETPTE(table, index, label, flags)                                     \
	la t0, label;                                                          \
	srli t0, t0, 12;                                                       \
	slli t0, t0, 10;                                                       \
	ori t0, t0, flags;                                                     \
	la t1, table;                                                          \
	sd t0, ((index)*8)(t1);

/* table[index] = leaf for physical address pa. Clobbers t0, t1. */
#define SETPTE_PA(table, index, pa, flags)                                     \
	li t0, ((pa)>>2)|(flags);                                              \
	la t1, table;                                                          \
	sd t0, ((index)*8)(t1);

/* reg = the PTE table[index] */
#define GETPTE(reg, table, index)                                              \
	la t1, table;                                                          \
	ld reg, ((index)*8)(t1);

/* mret to U at the U alias (VA = PA + 0x40000000) of label */
#define ENTER_U(label)                                                         \
	SET_MPP(0)                                                             \
	la t0, label;                                                          \
	li t1, 0x40000000;                                                     \
	add t0, t0, t1;                                                        \
	csrw mepc, t0;                                                         \
	mret;

/* reg == address of label in the U alias */
#define CHECKU(n, reg, label)                                                  \
	li TESTNUM, n;                                                         \
	la t2, label;                                                          \
	li t1, 0x40000000;                                                     \
	add t2, t2, t1;                                                        \
	bne reg, t2, fail_common;

#define MAGIC_A 0xaaaa0001
#define MAGIC_B 0xbbbb0002
#define MAGIC_C 0xcccc0003
#define MAGIC_D 0xdddd0004
#define MAGIC_2M 0x2222000000000001
#define MAGIC_2M_END 0x2222000000000002
#define PA_2M 0x80200000

PRIV_BEGIN
	/* ---------------- build the tables ---------------- */
	/* data in the 2 MiB page, at its start and near its end */
	li t0, PA_2M
	li t1, MAGIC_2M
	sd t1, 0(t0)
	li t0, PA_2M+0x1ff008
	li t1, MAGIC_2M_END
	sd t1, 0(t0)
	SETPTE(root, 0, l1, PTE_V)
	SETPTE_PA(root, 1, 0x80000000, PTE_RWAD)
	SETPTE_PA(root, 2, 0x80000000, PTE_RWAD|PTE_X)
	SETPTE_PA(root, 3, 0x80000000, PTE_RWAD|PTE_X|PTE_U)
	/* root[4]: a 1 GiB leaf whose PA is only 2 MiB aligned: misaligned */
	SETPTE_PA(root, 4, PA_2M, PTE_RWAD)
	/* root[5] -> l1b -> l0b whose entry 0 is a pointer (not a leaf) */
	SETPTE(root, 5, l1b, PTE_V)
	SETPTE(l1b, 0, l0b, PTE_V)
	SETPTE(l0b, 0, page_a, PTE_V)
	SETPTE(l1, 0, l0, PTE_V)
	/* l1[1]: VA 0x200000, 2 MiB leaf at PA 0x80200000 */
	SETPTE_PA(l1, 1, PA_2M, PTE_RWAD)
	/* l1[2]: VA 0x400000, 2 MiB leaf at PA 0x80201000: misaligned */
	SETPTE_PA(l1, 2, PA_2M+0x1000, PTE_RWAD)
	/* 4 KiB pages */
	SETPTE(l0, 1, page_a, PTE_RWAD)
	SETPTE(l0, 2, page_b, PTE_V|PTE_R|PTE_A)
	SETPTE(l0, 3, page_c, PTE_V|PTE_X|PTE_A)
	SETPTE(l0, 4, page_a, PTE_RWAD|PTE_U)
	SETPTE(l0, 5, page_d, PTE_V|PTE_W|PTE_A|PTE_D)
	SETPTE(l0, 6, page_a, PTE_V|PTE_R|PTE_W)
	SETPTE(l0, 7, page_a, PTE_RWAD)
	SETPTE(l0, 8, page_a, PTE_R|PTE_W|PTE_X|PTE_A|PTE_D)
	SETPTE(l0, 9, xpage, PTE_V|PTE_X)
	SETPTE(l0, 10, xpage, PTE_V|PTE_R)
	SETPTE(l0, 11, xpage, PTE_V|PTE_X|PTE_U|PTE_A)
	SETPTE(l0, 12, page_c, PTE_V|PTE_R|PTE_U|PTE_A)
	SETPTE(l0, 13, page_b, PTE_V|PTE_R|PTE_W)
	/* satp = Sv39, ASID 0, root */
	la t0, root
	srli t0, t0, 12
	li t1, SATP_SV39
	or s11, t0, t1
	csrw satp, s11
	sfence.vma
	ARM(1, fail_common)
	csrr a0, satp
	CHECKR(1, a0, s11)
	/* a reserved MODE (1) is not accepted: satp keeps its value */
	li t0, 0x1000000000000000
	csrw satp, t0
	csrr a0, satp
	CHECKR(2, a0, s11)
	csrw satp, s11

	/* ---------------- page sizes (S-mode) ---------------- */
	CLR_X
	ARM(3, 1f)
	la t3, tdata
	li t0, 0x40000000
	sub t4, t3, t0
	ENTER(1, 2f)
	/* 1 GiB: tdata through the identity map and through root[1] */
2:	ld a0, 0(t3)
	ld a1, 0(t4)
	/* 4 KiB */
	li t5, 0x1000
	ld a2, 0(t5)
	/* 2 MiB: start and far end */
	li t5, 0x200000
	ld a3, 0(t5)
	li t6, 0x3ff008
	ld a4, 0(t6)
	ecall
	j fail_common
1:	CHECK(3, s2, CAUSE_ECALL_S)
	CHECK(4, a0, 0x1122334455667788)
	CHECK(5, a1, 0x1122334455667788)
	CHECK(6, a2, MAGIC_A)
	CHECK(7, a3, MAGIC_2M)
	CHECK(8, a4, MAGIC_2M_END)
	/* a store through the 2 MiB page lands at the right PA */
	ARM(9, 1f)
	li t5, 0x2ff000
	li a5, 0x5a5a
	ENTER(1, 2f)
2:	sd a5, 0x10(t5)
	ecall
	j fail_common
1:	CHECK(9, s2, CAUSE_ECALL_S)
	li t0, PA_2M+0xff010
	ld a0, 0(t0)
	CHECK(10, a0, 0x5a5a)

	/* ---------------- R/W/X ---------------- */
	/* store to a read-only page */
	ARM(11, 1f)
	li t3, 0x2000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
3:	sd zero, 8(t3)
	j fail_common
1:	CHECK(11, s2, CAUSE_STORE_PAGE)
	CHECKA(12, s3, 3b, 0)
	CHECK(13, s4, 0x2008)
	CHECKM(14, s5, XFIELDS, MSTATUS_MPP_S)
	CHECK(15, a0, MAGIC_B)
	/* AMO to a read-only page: store page fault */
	ARM(16, 1f)
	li t3, 0x2000
	ENTER(1, 2f)
2:	amoadd.w a0, a0, (t3)
	j fail_common
1:	CHECK(16, s2, CAUSE_STORE_PAGE)
	CHECKA(17, s3, 2b, 0)
	CHECK(18, s4, 0x2000)
	/* fetch from a page without X */
	ARM(19, 1f)
	li t3, 0xa000
	ENTER(1, 2f)
2:	jalr ra, 0(t3)
	j fail_common
1:	CHECK(19, s2, CAUSE_FETCH_PAGE)
	CHECK(20, s3, 0xa000)
	CHECK(21, s4, 0xa000)
	CHECKA(22, ra, 2b, 4)
	/* fetch from an execute-only page works (and sets A, see below) */
	ARM(23, 1f)
	li t3, 0x9000
	li a0, 0
	ENTER(1, 2f)
2:	jalr ra, 0(t3)
	ecall
	j fail_common
1:	CHECK(23, s2, CAUSE_ECALL_S)
	CHECK(24, a0, 0x77)
	/* QEMU: A is set by hardware on the fetch (no fault for A=0) */
	GETPTE(a0, l0, 9)
	CHECKM(25, a0, 0xff, PTE_V|PTE_X|PTE_A)
	/* load from an execute-only page: fault without MXR */
	ARM(26, 1f)
	li t3, 0x3000
	ENTER(1, 2f)
2:	lw a0, 4(t3)
	j fail_common
1:	CHECK(26, s2, CAUSE_LOAD_PAGE)
	CHECKA(27, s3, 2b, 0)
	CHECK(28, s4, 0x3004)
	/* ... works with MXR=1 */
	li t0, MSTATUS_MXR
	csrs mstatus, t0
	ARM(29, 1f)
	li t3, 0x3000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
3:	sd a0, 0(t3)
	j fail_common
1:	CHECK(29, a0, MAGIC_C)
	/* MXR does not make it writable */
	CHECK(30, s2, CAUSE_STORE_PAGE)
	CHECKA(31, s3, 3b, 0)
	CHECK(32, s4, 0x3000)
	/* MXR set by S through sstatus works the same */
	li t0, MSTATUS_MXR
	csrc mstatus, t0
	ARM(33, 1f)
	li t3, 0x3000
	ENTER(1, 2f)
2:	li t0, MSTATUS_MXR
	csrs sstatus, t0
	ld a0, 0(t3)
	csrc sstatus, t0
3:	ld a1, 0(t3)
	j fail_common
1:	CHECK(33, a0, MAGIC_C)
	CHECK(34, s2, CAUSE_LOAD_PAGE)
	CHECKA(35, s3, 3b, 0)
	/* W=1, R=0 is reserved: load and store both fault */
	ARM(36, 1f)
	li t3, 0x5000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(36, s2, CAUSE_LOAD_PAGE)
	CHECKA(37, s3, 2b, 0)
	CHECK(38, s4, 0x5000)
	ARM(39, 1f)
	li t3, 0x5000
	ENTER(1, 2f)
2:	sd zero, 0x18(t3)
	j fail_common
1:	CHECK(39, s2, CAUSE_STORE_PAGE)
	CHECKA(40, s3, 2b, 0)
	CHECK(41, s4, 0x5018)
	/* V=0 (with R, W, X, A, D set): load, store, fetch fault */
	ARM(42, 1f)
	li t3, 0x8000
	ENTER(1, 2f)
2:	lb a0, 0x7ff(t3)
	j fail_common
1:	CHECK(42, s2, CAUSE_LOAD_PAGE)
	CHECK(43, s4, 0x87ff)
	ARM(44, 1f)
	li t3, 0x8000
	ENTER(1, 2f)
2:	sb zero, 1(t3)
	j fail_common
1:	CHECK(44, s2, CAUSE_STORE_PAGE)
	CHECK(45, s4, 0x8001)
	ARM(46, 1f)
	li t3, 0x8000
	ENTER(1, 2f)
2:	jr t3
	j fail_common
1:	CHECK(46, s2, CAUSE_FETCH_PAGE)
	CHECK(47, s3, 0x8000)
	CHECK(48, s4, 0x8000)
	/* a pointer PTE at the last level: page fault */
	ARM(49, 1f)
	li t3, 0x140000000
	ENTER(1, 2f)
2:	ld a0, 0x10(t3)
	j fail_common
1:	CHECK(49, s2, CAUSE_LOAD_PAGE)
	CHECK(50, s4, 0x140000010)
	/* a VA with no mapping at the root (root[6] is zero) */
	ARM(51, 1f)
	li t3, 0x180000000
	ENTER(1, 2f)
2:	sd zero, 0(t3)
	j fail_common
1:	CHECK(51, s2, CAUSE_STORE_PAGE)
	CHECK(52, s4, 0x180000000)

	/* ---------------- misaligned superpages ---------------- */
	ARM(53, 1f)
	li t3, 0x400000
	ENTER(1, 2f)
2:	ld a0, 8(t3)
	j fail_common
1:	CHECK(53, s2, CAUSE_LOAD_PAGE)
	CHECKA(54, s3, 2b, 0)
	CHECK(55, s4, 0x400008)
	ARM(56, 1f)
	li t3, 0x400000
	ENTER(1, 2f)
2:	sw zero, 0(t3)
	j fail_common
1:	CHECK(56, s2, CAUSE_STORE_PAGE)
	CHECK(57, s4, 0x400000)
	ARM(58, 1f)
	li t3, 0x100000000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(58, s2, CAUSE_LOAD_PAGE)
	CHECKA(59, s3, 2b, 0)
	CHECK(60, s4, 0x100000000)
	ARM(61, 1f)
	li t3, 0x100000000
	ENTER(1, 2f)
2:	jalr ra, 0x20(t3)
	j fail_common
1:	CHECK(61, s2, CAUSE_FETCH_PAGE)
	CHECK(62, s3, 0x100000020)
	CHECK(63, s4, 0x100000020)

	/* ---------------- non-canonical addresses ---------------- */
	/* bit 39 set, bit 38 clear. QEMU: mtval = the full 64-bit VA. */
	ARM(64, 1f)
	li t3, 0x0000008000001000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(64, s2, CAUSE_LOAD_PAGE)
	CHECKA(65, s3, 2b, 0)
	CHECK(66, s4, 0x0000008000001000)
	/* upper bits set, bit 38 clear: would be VA 0x1000 if truncated */
	ARM(67, 1f)
	li t3, 0xffffff8000001000
	ENTER(1, 2f)
2:	sd zero, 0(t3)
	j fail_common
1:	CHECK(67, s2, CAUSE_STORE_PAGE)
	CHECK(68, s4, 0xffffff8000001000)
	/* bit 63 only */
	ARM(69, 1f)
	li t3, 0x8000000080001000
	ENTER(1, 2f)
2:	lw a0, 0(t3)
	j fail_common
1:	CHECK(69, s2, CAUSE_LOAD_PAGE)
	CHECK(70, s4, 0x8000000080001000)
	/* fetch from a non-canonical address */
	ARM(71, 1f)
	li t3, 0x0000004080000000
	ENTER(1, 2f)
2:	jr t3
	j fail_common
1:	CHECK(71, s2, CAUSE_FETCH_PAGE)
	CHECK(72, s3, 0x0000004080000000)
	CHECK(73, s4, 0x0000004080000000)
	/* a canonical upper-half address walks the table (root[256] = 0) */
	ARM(74, 1f)
	li t3, 0xffffffc000000000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(74, s2, CAUSE_LOAD_PAGE)
	CHECK(75, s4, 0xffffffc000000000)

	/* ---------------- U bit, SUM ---------------- */
	/* S load from a U page without SUM: fault */
	CLR_X
	ARM(76, 1f)
	li t3, 0x4000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(76, s2, CAUSE_LOAD_PAGE)
	CHECKA(77, s3, 2b, 0)
	CHECK(78, s4, 0x4000)
	ARM(79, 1f)
	li t3, 0x4000
	ENTER(1, 2f)
2:	sd zero, 0x40(t3)
	j fail_common
1:	CHECK(79, s2, CAUSE_STORE_PAGE)
	CHECK(80, s4, 0x4040)
	/* with SUM=1 (set by S in sstatus): load and store work */
	ARM(81, 1f)
	li t3, 0x4000
	li a5, 0x1234
	ENTER(1, 2f)
2:	li t0, MSTATUS_SUM
	csrs sstatus, t0
	ld a0, 0(t3)
	sd a5, 0x40(t3)
	ld a1, 0x40(t3)
	ecall
	j fail_common
1:	CHECK(81, s2, CAUSE_ECALL_S)
	CHECK(82, a0, MAGIC_A)
	CHECK(83, a1, 0x1234)
	la t0, page_a
	ld a0, 0x40(t0)
	CHECK(84, a0, 0x1234)
	/* SUM=1 still: S may not execute from a U page */
	ARM(85, 1f)
	li t3, 0xb000
	ENTER(1, 2f)
2:	jalr ra, 0(t3)
	j fail_common
1:	CHECK(85, s2, CAUSE_FETCH_PAGE)
	CHECK(86, s3, 0xb000)
	CHECK(87, s4, 0xb000)
	/* ... nor read an execute-only U page with SUM but no MXR */
	ARM(88, 1f)
	li t3, 0xb000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(88, s2, CAUSE_LOAD_PAGE)
	CHECK(89, s4, 0xb000)
	li t0, MSTATUS_SUM
	csrc mstatus, t0

	/* ---------------- U-mode ---------------- */
	/* U code runs from the U alias; reads its U data page */
	ARM(90, 1f)
	li t3, 0x4000
	li t4, 0xc000
	li a0, 0
	li a1, 0
	ENTER_U(2f)
2:	ld a3, 0(t3)
	ld a1, 0(t4)
	/* and calls U code in an execute-only U page */
	li t5, 0xb000
	jalr ra, 0(t5)
3:	ecall
	j fail_common
1:	CHECK(90, s2, CAUSE_ECALL_U)
	CHECK(91, a3, MAGIC_A)
	CHECK(92, a1, MAGIC_C)
	CHECK(93, a0, 0x77)
	CHECKU(94, s3, 3b)
	/* U load from an S page */
	ARM(95, 1f)
	li t3, 0x1000
	ENTER_U(2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(95, s2, CAUSE_LOAD_PAGE)
	CHECKU(96, s3, 2b)
	CHECK(97, s4, 0x1000)
	CHECKM(98, s5, XFIELDS, 0)
	/* U store to a read-only U page (0xc000: R, U) */
	ARM(99, 1f)
	li t3, 0xc000
	ENTER_U(2f)
2:	sw zero, 4(t3)
	j fail_common
1:	CHECK(99, s2, CAUSE_STORE_PAGE)
	CHECKU(100, s3, 2b)
	CHECK(101, s4, 0xc004)
	/* U fetch from an S page (the identity map of the program) */
	ARM(102, 1f)
	la t3, 3f
	ENTER_U(2f)
2:	jr t3
3:	j fail_common
1:	CHECK(102, s2, CAUSE_FETCH_PAGE)
	CHECKA(103, s3, 3b, 0)
	CHECKA(104, s4, 3b, 0)
	CHECKM(105, s5, XFIELDS, 0)
	/* SUM has no effect on U: S page still faults */
	li t0, MSTATUS_SUM
	csrs mstatus, t0
	ARM(106, 1f)
	li t3, 0x1000
	ENTER_U(2f)
2:	ld a0, 0(t3)
	j fail_common
1:	CHECK(106, s2, CAUSE_LOAD_PAGE)
	CHECK(107, s4, 0x1000)
	li t0, MSTATUS_SUM
	csrc mstatus, t0

	/* ---------------- A and D ---------------- */
	/* QEMU: A and D are set by hardware (no page fault). l0[6] maps
	 * page_a RW with A=0, D=0. A load sets A only. */
	ARM(108, 1f)
	li t3, 0x6000
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	ecall
	j fail_common
1:	CHECK(108, s2, CAUSE_ECALL_S)
	CHECK(109, a0, MAGIC_A)
	GETPTE(a0, l0, 6)
	CHECKM(110, a0, 0xff, PTE_V|PTE_R|PTE_W|PTE_A)
	/* the PPN is not disturbed */
	la t0, page_a
	srli t0, t0, 2
	ori t0, t0, PTE_V|PTE_R|PTE_W|PTE_A
	CHECKR(111, a0, t0)
	/* then a store sets D */
	ARM(112, 1f)
	li t3, 0x6000
	li a5, MAGIC_A
	ENTER(1, 2f)
2:	sd a5, 0(t3)
	ecall
	j fail_common
1:	CHECK(112, s2, CAUSE_ECALL_S)
	GETPTE(a0, l0, 6)
	CHECKM(113, a0, 0xff, PTE_V|PTE_R|PTE_W|PTE_A|PTE_D)
	/* a store to a fresh page (l0[13], A=0 D=0) sets both */
	ARM(114, 1f)
	li t3, 0xd000
	ENTER(1, 2f)
2:	sd zero, 0x80(t3)
	ecall
	j fail_common
1:	CHECK(114, s2, CAUSE_ECALL_S)
	GETPTE(a0, l0, 13)
	CHECKM(115, a0, 0xff, PTE_V|PTE_R|PTE_W|PTE_A|PTE_D)
	/* a faulting access does not set A: l0[10] (R only, A=0) took the
	 * fetch fault of test 19 and is unchanged */
	GETPTE(a0, l0, 10)
	CHECKM(116, a0, 0xff, PTE_V|PTE_R)
	/* a store fault on a read-only page leaves D clear */
	GETPTE(a0, l0, 2)
	CHECKM(117, a0, 0xff, PTE_V|PTE_R|PTE_A)
	/* and a load through a PTE with A already set does not set D */
	GETPTE(a0, l0, 4)
	CHECKM(118, a0, 0xff, PTE_RWAD|PTE_U)

	/* ---------------- MPRV ---------------- */
	/* MPRV=1, MPP=S in M: loads/stores translated with S rights */
	CLR_X
	ARM(119, fail_common)
	li t3, 0x1000
	li t4, 0x2000
	li t5, 0x200000
	li a5, 0x6789
	li t0, MSTATUS_MPRV|MSTATUS_MPP_S
	csrs mstatus, t0
	ld a0, 0(t3)
	ld a1, 0(t4)
	ld a2, 0(t5)
	sd a5, 0x48(t3)
	li t0, MSTATUS_MPRV
	csrc mstatus, t0
	CHECK(119, a0, MAGIC_A)
	CHECK(120, a1, MAGIC_B)
	CHECK(121, a2, MAGIC_2M)
	la t0, page_a
	ld a0, 0x48(t0)
	CHECK(122, a0, 0x6789)
	/* a fault under MPRV is taken in M: MPP becomes M, mtval = VA */
	ARM(123, 1f)
	li t3, 0x8000
	li t0, MSTATUS_MPRV
	csrs mstatus, t0
2:	ld a0, 0(t3)
	j fail_common
1:	csrr a1, mstatus
	li t0, MSTATUS_MPRV
	csrc mstatus, t0
	CHECK(123, s2, CAUSE_LOAD_PAGE)
	CHECKA(124, s3, 2b, 0)
	CHECK(125, s4, 0x8000)
	CHECKM(126, s5, MSTATUS_MPP, MSTATUS_MPP_M)
	/* MPRV itself is left set by the trap */
	CHECKM(127, a1, MSTATUS_MPRV, MSTATUS_MPRV)
	/* store to a read-only page under MPRV */
	SET_MPP(1)
	ARM(128, 1f)
	li t3, 0x2000
	li t0, MSTATUS_MPRV
	csrs mstatus, t0
2:	sd zero, 0(t3)
	j fail_common
1:	li t0, MSTATUS_MPRV
	csrc mstatus, t0
	CHECK(128, s2, CAUSE_STORE_PAGE)
	CHECKA(129, s3, 2b, 0)
	CHECK(130, s4, 0x2000)
	/* MPRV with MPP=S: U page faults without SUM, works with SUM */
	SET_MPP(1)
	ARM(131, 1f)
	li t3, 0x4000
	li t0, MSTATUS_MPRV
	csrs mstatus, t0
2:	ld a0, 0(t3)
	j fail_common
1:	li t0, MSTATUS_MPRV
	csrc mstatus, t0
	CHECK(131, s2, CAUSE_LOAD_PAGE)
	CHECK(132, s4, 0x4000)
	SET_MPP(1)
	ARM(133, fail_common)
	li t3, 0x4000
	li t0, MSTATUS_MPRV|MSTATUS_SUM
	csrs mstatus, t0
	ld a0, 0(t3)
	csrc mstatus, t0
	CHECK(133, a0, MAGIC_A)
	/* MPRV with MPP=U: U page fine, S page faults */
	SET_MPP(0)
	ARM(134, fail_common)
	li t3, 0x4000
	li t0, MSTATUS_MPRV
	csrs mstatus, t0
	ld a0, 0(t3)
	csrc mstatus, t0
	CHECK(134, a0, MAGIC_A)
	SET_MPP(0)
	ARM(135, 1f)
	li t3, 0x1000
	li t0, MSTATUS_MPRV
	csrs mstatus, t0
2:	ld a0, 0(t3)
	j fail_common
1:	li t0, MSTATUS_MPRV
	csrc mstatus, t0
	CHECK(135, s2, CAUSE_LOAD_PAGE)
	CHECKA(136, s3, 2b, 0)
	CHECK(137, s4, 0x1000)
	/* MPRV with MPP=M: no translation */
	SET_MPP(3)
	ARM(138, fail_common)
	la t3, tdata
	li t0, MSTATUS_MPRV
	csrs mstatus, t0
	ld a0, 0(t3)
	csrc mstatus, t0
	CHECK(138, a0, 0x1122334455667788)

	/* ---------------- sfence.vma ---------------- */
	/* S reads VA 0x7000 (page_a), rewrites its PTE to page_b through the
	 * identity map, sfence.vma, reads again: page_b's value. Then back to
	 * page_a with an address-specific sfence.vma. */
	CLR_X
	ARM(139, 1f)
	li t3, 0x7000
	la t4, l0
	addi t4, t4, 7*8
	la t5, page_b
	srli t5, t5, 2
	ori t5, t5, PTE_RWAD
	la t6, page_a
	srli t6, t6, 2
	ori t6, t6, PTE_RWAD
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	sd t5, 0(t4)
	sfence.vma
	ld a1, 0(t3)
	sd t6, 0(t4)
	sfence.vma t3, zero
	ld a2, 0(t3)
	ecall
	j fail_common
1:	CHECK(139, s2, CAUSE_ECALL_S)
	CHECK(140, a0, MAGIC_A)
	CHECK(141, a1, MAGIC_B)
	CHECK(142, a2, MAGIC_A)
	/* invalidating a PTE takes effect after sfence.vma */
	ARM(143, 1f)
	li t3, 0x7000
	la t4, l0
	addi t4, t4, 7*8
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	sd zero, 0(t4)
	sfence.vma t3
3:	ld a1, 0(t3)
	j fail_common
1:	CHECK(143, s2, CAUSE_LOAD_PAGE)
	CHECKA(144, s3, 3b, 0)
	CHECK(145, s4, 0x7000)
	CHECK(146, a0, MAGIC_A)

	/* ---------------- bare mode in S ---------------- */
	/* satp = 0: S addresses are physical; an unmapped PA is an access
	 * fault, not a page fault */
	csrw satp, zero
	sfence.vma
	ARM(147, 1f)
	la t3, tdata
	ENTER(1, 2f)
2:	ld a0, 0(t3)
	li t4, UNMAPPED_HIGH
3:	ld a1, 0(t4)
	j fail_common
1:	CHECK(147, a0, 0x1122334455667788)
	CHECK(148, s2, CAUSE_LOAD_ACCESS)
	CHECKA(149, s3, 3b, 0)
	CHECK(150, s4, UNMAPPED_HIGH)

	PASS

	/* An executable 4 KiB page (mapped at VA 0x9000 X-only, 0xa000
	 * R-only and 0xb000 X+U). Returns 0x77 in a0. */
	.align 12
xpage:
	li a0, 0x77
	ret
	.align 12

	PRIV_HANDLERS
RVTEST_END

	.data
	.align 12
root:	.zero 4096
l1:	.zero 4096
l0:	.zero 4096
l1b:	.zero 4096
l0b:	.zero 4096
page_a:	.dword MAGIC_A
	.zero 4088
page_b:	.dword MAGIC_B
	.zero 4088
page_c:	.dword MAGIC_C
	.zero 4088
page_d:	.dword MAGIC_D
	.zero 4088
tdata:	.dword 0x1122334455667788
