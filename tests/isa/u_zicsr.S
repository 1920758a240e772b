/* u_zicsr.S: the Zicsr instructions.
 * - csrrw / csrrs / csrrc / csrrwi / csrrsi / csrrci on mscratch: the old
 *   value is returned, the new value is written (the immediate forms
 *   zero-extend their 5-bit immediate), rd = x0 still writes, rd = rs1
 *   swaps, csrrs/csrrc with rs1 = x0 and csrrsi/csrrci with 0 only read.
 * - read-only CSRs (mvendorid, marchid, mimpid, mhartid, cycle, instret):
 *   the read-only forms do not trap, every writing form raises illegal
 *   instruction (cause 2) and leaves rd unchanged.
 * - CSRs that do not exist raise illegal instruction: the RV32-only
 *   cycleh / mcycleh / mstatush, and a custom CSR number (0x8c0).
 * - fcsr / frm / fflags aliasing (fcsr = frm << 5 | fflags), writes of
 *   each part, set/clear forms, and writing fflags with FS = Initial sets
 *   FS = Dirty and mstatus.SD.
 * - misa reports MXL = 64 and the I, M, A, F, D, C extensions.
 *
 * Implementation-defined behaviour pinned to QEMU 7.2:
 * - bits above the architected fields of fcsr (8), frm (3) and fflags (5)
 *   read back as 0 after writing ones there.
 * - mhartid is 0 (the board has one hart).
 * - mtval of the illegal-instruction traps is not checked.
 * Not tested: csrrs/csrrc with rs1 != x0 holding 0 on a read-only CSR (the
 * spec says it attempts a write and traps; QEMU 7.2 does not trap). */
#include "u_test.h"
	.option norvc

/* Sub-test n: the instruction at the local label must trap with illegal
 * instruction and leave a0 (its rd) at 0x55. */
#define U_ILLEGAL(n, insn...)                                                  \
	U_TRAP_BEGIN(n)                                                        \
	li a0, 0x55;                                                           \
	li t0, 1;                                                              \
	777: insn;                                                             \
	U_TRAP_CHECK(2, 777b)                                                  \
	U_CHECKR(a0, 0x55)

RVTEST_BEGIN

	/* ---- csrrw ---- */
	U_NUM(1)
	li t0, 0x0123456789abcdef
	csrw mscratch, t0
	li t1, 0xfedcba9876543210
	csrrw a0, mscratch, t1
	U_CHECKR(a0, 0x0123456789abcdef)
	csrr a1, mscratch
	U_CHECKR(a1, 0xfedcba9876543210)
	U_NUM(2)
	csrrw x0, mscratch, x0
	csrr a1, mscratch
	U_CHECKR(a1, 0)
	U_NUM(3)
	/* rd == rs1: swap */
	li t0, 0x1111
	csrw mscratch, t0
	li a0, 0x2222
	csrrw a0, mscratch, a0
	U_CHECKR(a0, 0x1111)
	csrr a1, mscratch
	U_CHECKR(a1, 0x2222)

	/* ---- csrrs ---- */
	U_NUM(4)
	li t0, 0xf0
	csrw mscratch, t0
	li t1, 0x800000000000000f
	csrrs a0, mscratch, t1
	U_CHECKR(a0, 0xf0)
	csrr a1, mscratch
	U_CHECKR(a1, 0x80000000000000ff)
	U_NUM(5)
	csrrs a0, mscratch, x0
	U_CHECKR(a0, 0x80000000000000ff)
	csrr a1, mscratch
	U_CHECKR(a1, 0x80000000000000ff)
	U_NUM(6)
	li t1, 0x100
	csrs mscratch, t1
	csrr a1, mscratch
	U_CHECKR(a1, 0x80000000000001ff)

	/* ---- csrrc ---- */
	U_NUM(7)
	li t1, 0x8000000000000011
	csrrc a0, mscratch, t1
	U_CHECKR(a0, 0x80000000000001ff)
	csrr a1, mscratch
	U_CHECKR(a1, 0x1ee)
	U_NUM(8)
	csrrc a0, mscratch, x0
	U_CHECKR(a0, 0x1ee)
	csrr a1, mscratch
	U_CHECKR(a1, 0x1ee)
	U_NUM(9)
	li t1, -1
	csrc mscratch, t1
	csrr a1, mscratch
	U_CHECKR(a1, 0)

	/* ---- immediate forms ---- */
	U_NUM(10)
	li t0, -1
	csrw mscratch, t0
	csrrwi a0, mscratch, 31
	U_CHECKR(a0, -1)
	csrr a1, mscratch
	U_CHECKR(a1, 31)
	U_NUM(11)
	csrrwi a0, mscratch, 0
	U_CHECKR(a0, 31)
	csrr a1, mscratch
	U_CHECKR(a1, 0)
	U_NUM(12)
	li t0, 0x100
	csrw mscratch, t0
	csrrsi a0, mscratch, 0x1f
	U_CHECKR(a0, 0x100)
	csrr a1, mscratch
	U_CHECKR(a1, 0x11f)
	U_NUM(13)
	csrrsi a0, mscratch, 0
	U_CHECKR(a0, 0x11f)
	csrr a1, mscratch
	U_CHECKR(a1, 0x11f)
	U_NUM(14)
	csrrci a0, mscratch, 0x13
	U_CHECKR(a0, 0x11f)
	csrr a1, mscratch
	U_CHECKR(a1, 0x10c)
	U_NUM(15)
	csrrci a0, mscratch, 0
	U_CHECKR(a0, 0x10c)
	csrr a1, mscratch
	U_CHECKR(a1, 0x10c)
	U_NUM(16)
	csrwi mscratch, 1
	csrsi mscratch, 0x10
	csrci mscratch, 1
	csrr a1, mscratch
	U_CHECKR(a1, 0x10)

	/* ---- read-only CSRs: reading forms are fine ---- */
	U_NUM(17)
	li s10, -1
	U_TRAP_ARM
	csrr a0, mvendorid
	csrrs a0, marchid, x0
	csrrc a0, mimpid, x0
	csrrsi a0, mhartid, 0
	csrrci a0, mhartid, 0
	U_CHECKR(a0, 0)
	csrr a0, cycle
	csrr a0, instret
	U_NO_TRAP
	/* ---- ... and every writing form is illegal ---- */
	U_ILLEGAL(18, csrw mvendorid, t0)
	U_ILLEGAL(19, csrrw a0, marchid, x0)
	U_ILLEGAL(20, csrrs a0, mimpid, t0)
	U_ILLEGAL(21, csrrc a0, mhartid, t0)
	U_ILLEGAL(22, csrrwi a0, mvendorid, 0)
	U_ILLEGAL(23, csrrsi a0, mhartid, 1)
	U_ILLEGAL(24, csrrci a0, marchid, 31)
	U_ILLEGAL(25, csrrw a0, cycle, t0)
	U_ILLEGAL(26, csrrs a0, instret, t0)
	/* ---- CSRs that do not exist ---- */
	U_ILLEGAL(27, csrr a0, 0xc80)	/* cycleh: RV32 only */
	U_ILLEGAL(28, csrr a0, 0xb80)	/* mcycleh: RV32 only */
	U_ILLEGAL(29, csrr a0, 0x310)	/* mstatush: RV32 only */
	U_ILLEGAL(30, csrr a0, 0x8c0)	/* custom, not implemented */
	U_ILLEGAL(31, csrrw a0, 0x8c0, t0)
	U_ILLEGAL(32, csrrsi a0, 0xc80, 0)
	U_TRAP_DISARM

	/* ---- misa ---- */
	U_NUM(33)
	csrr a0, misa
	srli a1, a0, 62
	U_CHECKR(a1, 2)
	li t0, (1 << 0) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 8) | (1 << 12)
	and a1, a0, t0
	bne a1, t0, fail_common

	/* ---- fcsr / frm / fflags ---- */
	U_FP_ENABLE
	U_NUM(34)
	li t0, 0xff
	csrw fcsr, t0
	csrr a0, frm
	U_CHECKR(a0, 7)
	csrr a0, fflags
	U_CHECKR(a0, 0x1f)
	csrr a0, fcsr
	U_CHECKR(a0, 0xff)
	U_NUM(35)
	li t0, 3
	csrrw a0, frm, t0
	U_CHECKR(a0, 7)
	csrr a0, fcsr
	U_CHECKR(a0, 0x7f)
	U_NUM(36)
	csrrw a0, fflags, x0
	U_CHECKR(a0, 0x1f)
	csrr a0, fcsr
	U_CHECKR(a0, 0x60)
	U_NUM(37)
	csrrsi a0, fflags, 0x5
	U_CHECKR(a0, 0)
	csrr a0, fcsr
	U_CHECKR(a0, 0x65)
	U_NUM(38)
	csrrci a0, frm, 1
	U_CHECKR(a0, 3)
	csrr a0, fcsr
	U_CHECKR(a0, 0x45)
	U_NUM(39)
	csrrwi a0, fcsr, 0x1f
	U_CHECKR(a0, 0x45)
	csrr a0, frm
	U_CHECKR(a0, 0)
	csrr a0, fflags
	U_CHECKR(a0, 0x1f)
	U_NUM(40)
	li t0, 0x9a
	csrrs a0, fcsr, t0
	U_CHECKR(a0, 0x1f)
	csrr a0, fcsr
	U_CHECKR(a0, 0x9f)
	csrr a0, frm
	U_CHECKR(a0, 4)
	U_NUM(41)
	/* bits above the fields read as zero */
	li t0, -1
	csrw fcsr, t0
	csrr a0, fcsr
	U_CHECKR(a0, 0xff)
	csrw fflags, x0
	csrw frm, x0
	csrw fflags, t0
	csrr a0, fflags
	U_CHECKR(a0, 0x1f)
	csrr a0, fcsr
	U_CHECKR(a0, 0x1f)
	csrw frm, t0
	csrr a0, frm
	U_CHECKR(a0, 7)
	csrr a0, fcsr
	U_CHECKR(a0, 0xff)
	U_NUM(42)
	/* writing fflags with FS = Initial makes FS Dirty and sets SD */
	li t0, 0x6000
	csrc mstatus, t0
	li t0, 0x2000
	csrs mstatus, t0
	csrr a0, mstatus
	srli a1, a0, 13
	andi a1, a1, 3
	U_CHECKR(a1, 1)
	bltz a0, fail_common	/* SD clear while FS = Initial */
	csrwi fflags, 1
	csrr a0, mstatus
	srli a1, a0, 13
	andi a1, a1, 3
	U_CHECKR(a1, 3)
	bgez a0, fail_common	/* SD set */
	csrw fcsr, x0

	PASS
U_TRAP_HANDLER
RVTEST_END
