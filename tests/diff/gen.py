#!/usr/bin/env python3
"""Random RV64GC test-program generator for the Themis CPU differential test.

    gen.py --seed S --sequences N --out prog.S

writes one bare-metal assembly program (M-mode, entry 0x80000000, the QEMU
`virt` UART and test finisher) that runs N random instruction sequences.
Sequence k of seed S depends only on (S, k): `--only K` writes a program that
runs sequence K alone, with the same instructions and initial state as inside
the full program, to reproduce one failure in isolation.

Each sequence: the harness fills the scratch buffer from a per-sequence PRNG
seed, loads fcsr, mscratch, f0..f31 and x1..x31 from a per-sequence record,
and jumps to the sequence body, which runs ~20-60 random instructions and then
hands control back to the harness, which prints every register (one line per
register, as hex) and a hash of the scratch buffer over the UART.  A trap
prints its mcause, mepc (as an offset from the sequence start) and mtval, and
resumes at the next instruction (mepc + 2 or 4, decided by reading the
instruction).

Output of the program, one line each:
    S <k>                         start of sequence k (decimal)
    T <mcause> +<mepc offset> <mtval>   a trap (hex)
    x1 <16 hex> .. x31, f0 .. f31, fcsr, mscratch
    mem <16 hex>                  FNV-1a-style hash of the scratch buffer
                                  (with --full-mem: m000 .. m1f8, one per dword)
    END <n>                       after the last sequence
Harness-internal failures print `FATAL ...` and stop with a failing exit.

Register roles inside a body: x31 is free (the harness parks its initial
value in sscratch and the body's first instruction takes it back), so all 31
registers are random except the base register B (one of x8..x15, chosen per
sequence) that points at the middle of the scratch buffer, and sp when the
sequence uses it as a second base for c.*sp loads and stores.  The harness
uses sscratch (never touched by the random code) to save a register in the
trap handler and at the end of a body; random code may use mscratch.

Stdlib only.
"""

import argparse
import random
import struct

BUF_BYTES = 512          # scratch buffer; bases point at its middle
BUF_HALF = BUF_BYTES // 2
REC_DWORDS = 68          # number, body, seed, fcsr, mscratch, x1..x31, f0..f31
REC_X = 5                # index of x1 in a record
REC_F = REC_X + 31       # index of f0 in a record

RM_NAMES = ["rne", "rtz", "rdn", "rup", "rmm", None, None, "dyn"]

# Addresses that are neither RAM nor a device on QEMU virt nor on the Themis
# board (QEMU virt has an MROM at 0x1000..0x10fff and more devices than
# Themis; these avoid all of them).  (value, lines that load it into T)
UNMAPPED = [0x0, 0x8, 0x20000, 0x40000, 0xf0000, 0x90000000,
            0x100000000, 0xfffffffffffff000, 0x8000000000000000]

M64 = (1 << 64) - 1


def s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def hex64(v):
    return "0x%016x" % (v & M64)


# ---------------------------------------------------------------- values

def int_value(r):
    """A 64-bit integer biased to interesting values."""
    c = r.random()
    if c < 0.30:
        return r.choice([
            0, 1, 2, 3, M64, M64 - 1, 1 << 63, (1 << 63) - 1, (1 << 63) + 1,
            0xffffffff80000000, 0x7fffffff, 0x80000000, 0xffffffff,
            0x100000000, 0xffffffff7fffffff, 0x00000000ffff8000,
            0x7fff, 0x8000, 0xffff, 0xff, 0x80, 0x7f, 0xffffffffffffff80,
            0xffffffffffff8000, 0x8000000000000001, 0x5555555555555555,
            0xaaaaaaaaaaaaaaaa, 31, 32, 33, 63, 64, 65, 0x1f, 0x3f])
    if c < 0.45:
        return r.randint(-16, 16) & M64
    if c < 0.55:
        k = r.randrange(64)
        return ((1 << k) + r.choice([-1, 0, 0, 1])) & M64
    if c < 0.62:
        k = r.randrange(64)
        return (-(1 << k)) & M64
    if c < 0.75:
        return s64(r.getrandbits(32) | (r.getrandbits(1) << 31)) & M64 \
            if r.random() < 0.5 else r.getrandbits(32)
    if c < 0.80:
        v = r.getrandbits(32)
        return (v | 0xffffffff00000000) if v >> 31 else v
    return r.getrandbits(64)


F32_SPECIAL = [0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
               0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000,
               0x7fffffff, 0xff800001, 0x00000001, 0x80000001, 0x007fffff,
               0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
               0x3f000000, 0x3fc00000, 0x40000000, 0x4f000000, 0xcf000000,
               0x4f800000, 0x5f000000, 0xdf000000, 0x5f800000, 0x4effffff,
               0xcf000001, 0x4f7fffff, 0x3effffff, 0xbf000000, 0x34000000,
               0x33800000, 0x00400000, 0x3f800001, 0x3f7fffff, 0x0b000000,
               0x4b000000, 0x4b7fffff, 0x3eaaaaab, 0x7e800000]

F64_SPECIAL = [0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000,
               0xbff0000000000000, 0x7ff0000000000000, 0xfff0000000000000,
               0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
               0x7ff4000000000000, 0x7fffffffffffffff, 0xfff0000000000001,
               0x0000000000000001, 0x8000000000000001, 0x000fffffffffffff,
               0x800fffffffffffff, 0x0010000000000000, 0x8010000000000000,
               0x7fefffffffffffff, 0xffefffffffffffff, 0x3fe0000000000000,
               0x3ff8000000000000, 0x4000000000000000, 0x41e0000000000000,
               0xc1e0000000000000, 0x41dfffffffe00000, 0x41dfffffffffffff,
               0xc1e0000000100000, 0xc1e0000000200000, 0x41efffffffe00000,
               0x41effffffff00000, 0x41f0000000000000, 0x43e0000000000000,
               0xc3e0000000000000, 0x43dfffffffffffff, 0x43f0000000000000,
               0x43efffffffffffff, 0x3fdfffffffffffff, 0xbfe0000000000000,
               0x3ca0000000000000, 0x3ff0000000000001, 0x3fefffffffffffff,
               0x0008000000000000, 0x4330000000000000, 0x3810000000000000,
               0x380fffffffffffff, 0x36a0000000000000, 0x47efffffe0000000,
               0x47efffff00000000, 0x7fe0000000000000, 0x3fd5555555555555]


def f32_value(r):
    c = r.random()
    if c < 0.55:
        return r.choice(F32_SPECIAL)
    if c < 0.70:   # random finite with an exponent near the edges
        e = r.choice([0, 1, 2, 0x7d, 0x7e, 0x7f, 0x80, 0x96, 0x9e, 0xbe,
                      0xfd, 0xfe])
        return (r.getrandbits(1) << 31) | (e << 23) | r.getrandbits(23)
    if c < 0.80:   # NaN with a payload
        return (r.getrandbits(1) << 31) | 0x7f800000 | (r.getrandbits(23) or 1)
    if c < 0.90:   # small integers (exact conversions)
        v = float(r.randint(-100, 100)) / r.choice([1, 2, 4, 3])
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return r.getrandbits(32)


def f64_value(r):
    c = r.random()
    if c < 0.55:
        return r.choice(F64_SPECIAL)
    if c < 0.70:
        e = r.choice([0, 1, 2, 0x3fd, 0x3fe, 0x3ff, 0x400, 0x41e, 0x41f,
                      0x43e, 0x43f, 0x36a, 0x380, 0x47e, 0x7fd, 0x7fe])
        return (r.getrandbits(1) << 63) | (e << 52) | r.getrandbits(52)
    if c < 0.80:
        return (r.getrandbits(1) << 63) | 0x7ff0000000000000 | \
            (r.getrandbits(52) or 1)
    if c < 0.90:
        v = float(r.randint(-100, 100)) / r.choice([1, 2, 4, 3])
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    return r.getrandbits(64)


def fp_reg_value(r):
    """64-bit contents of an f register: a double, a NaN-boxed single, or
    an improperly boxed single."""
    c = r.random()
    if c < 0.45:
        return f64_value(r)
    if c < 0.88:
        return 0xffffffff00000000 | f32_value(r)
    # not NaN-boxed: a single whose upper half is not all ones
    hi = r.choice([0, 0xfffffffe, 0x7fffffff, 0x7ff80000, r.getrandbits(32)])
    if hi == 0xffffffff:
        hi = 0
    return (hi << 32) | f32_value(r)


# ---------------------------------------------------------------- encoders

def enc_fp_r(funct5, fmt, rs2, rs1, rm, rd):
    return ((funct5 << 27) | (fmt << 25) | (rs2 << 20) | (rs1 << 15) |
            (rm << 12) | (rd << 7) | 0x53)


def enc_fma(op, rs3, fmt, rs2, rs1, rm, rd):
    return ((rs3 << 27) | (fmt << 25) | (rs2 << 20) | (rs1 << 15) |
            (rm << 12) | (rd << 7) | op)


FMA_OPS = {"fmadd": 0x43, "fmsub": 0x47, "fnmsub": 0x4b, "fnmadd": 0x4f}
FP_BIN = {"fadd": 0, "fsub": 1, "fmul": 2, "fdiv": 3}


# ---------------------------------------------------------------- units

class Unit:
    """A group of instructions emitted together; labels (branch targets)
    are only placed between units.  `size` is in bytes (exact)."""

    def __init__(self, lines, size, target=None, kind=None, limit=None):
        self.lines = lines        # list of strings; may contain {T}/{A}
        self.size = size
        self.target = target      # None, or max distance in units
        self.kind = kind          # branch kind for target resolution
        self.limit = limit        # max forward byte distance to the target


class SeqGen:
    def __init__(self, seed, index, quirks):
        self.r = random.Random("themis-diff:%d:%d" % (seed, index))
        self.index = index
        self.quirks = quirks
        r = self.r
        self.base = r.randrange(8, 16)
        self.sp_base = r.random() < 0.5
        self.fixed = {self.base} | ({2} if self.sp_base else set())
        self.writable = [x for x in range(1, 32) if x not in self.fixed]
        self.cregs = [x for x in range(8, 16) if x not in self.fixed]
        self.units = []
        self.nanchor = 0

    # register pickers
    def rd(self):
        if self.r.random() < 0.03:
            return 0
        return self.r.choice(self.writable)

    def rs(self):
        r = self.r
        if r.random() < 0.08:
            return 0
        return r.randrange(1, 32)

    def tmp(self, avoid=()):
        return self.r.choice([x for x in self.writable if x not in avoid])

    def frs(self):
        return self.r.randrange(32)

    def rm(self, allow_default=True):
        r = self.r
        c = r.random()
        if c < 0.15 and allow_default:
            return None                     # assembler default: dyn
        if c < 0.35:
            return 7
        return r.randrange(5)

    def add(self, lines, size, **kw):
        if isinstance(lines, str):
            lines = [lines]
        self.units.append(Unit(lines, size, **kw))

    def imm12(self):
        r = self.r
        c = r.random()
        if c < 0.3:
            return r.choice([0, 1, -1, 2047, -2048, 2046, -2047, 31, 32, 63,
                             64, 0x7ff, -0x800, 0x555, -0x556])
        if c < 0.7:
            return r.randint(-16, 16)
        return r.randint(-2048, 2047)

    # -------------------------------------------------- instruction kinds

    def g_int_rr(self):
        op = self.r.choice([
            "add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or",
            "and", "addw", "subw", "sllw", "srlw", "sraw",
            "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu",
            "mulw", "divw", "divuw", "remw", "remuw"])
        self.add("%s x%d, x%d, x%d" % (op, self.rd(), self.rs(), self.rs()), 4)

    def g_int_ri(self):
        r = self.r
        op = r.choice(["addi", "slti", "sltiu", "xori", "ori", "andi",
                       "slli", "srli", "srai", "addiw", "slliw", "srliw",
                       "sraiw", "lui", "auipc"])
        if op in ("slli", "srli", "srai"):
            imm = r.choice([0, 1, 31, 32, 33, 63, r.randrange(64)])
        elif op in ("slliw", "srliw", "sraiw"):
            imm = r.choice([0, 1, 15, 31, r.randrange(32)])
        elif op in ("lui", "auipc"):
            imm = r.choice([0, 1, 0x80000, 0x7ffff, 0xfffff, 0x7ff,
                            r.randrange(1 << 20)])
            self.add("%s x%d, 0x%x" % (op, self.rd(), imm), 4)
            return
        else:
            imm = self.imm12()
        self.add("%s x%d, x%d, %d" % (op, self.rd(), self.rs(), imm), 4)

    def mem_off(self, size, misalign_p=0.25):
        """Offset from the base (buffer middle) for an access of `size`."""
        r = self.r
        lo, hi = -BUF_HALF, BUF_HALF - size
        if r.random() < misalign_p:
            return r.randint(lo, hi)
        return r.randint(lo // size, hi // size) * size

    def g_load(self):
        r = self.r
        op, size = r.choice([("lb", 1), ("lh", 2), ("lw", 4), ("ld", 8),
                             ("lbu", 1), ("lhu", 2), ("lwu", 4)])
        self.add("%s x%d, %d(x%d)" % (op, self.rd(), self.mem_off(size),
                                      self.base), 4)

    def g_store(self):
        r = self.r
        op, size = r.choice([("sb", 1), ("sh", 2), ("sw", 4), ("sd", 8)])
        self.add("%s x%d, %d(x%d)" % (op, self.rs(), self.mem_off(size),
                                      self.base), 4)

    def g_fload_store(self):
        r = self.r
        op, size = r.choice([("flw", 4), ("fld", 8), ("fsw", 4), ("fsd", 8)])
        self.add("%s f%d, %d(x%d)" % (op, self.frs(), self.mem_off(size),
                                      self.base), 4)

    def addr_into(self, t, off):
        """addi t, base, off (off within +-2047)."""
        return "addi x%d, x%d, %d" % (t, self.base, off)

    def g_amo(self):
        r = self.r
        w = r.choice(["w", "d"])
        size = 4 if w == "w" else 8
        op = r.choice(["amoswap", "amoadd", "amoxor", "amoand", "amoor",
                       "amomin", "amomax", "amominu", "amomaxu"])
        order = r.choice(["", "", ".aq", ".rl", ".aqrl"])
        misalign = self.quirks and r.random() < 0.06
        off = self.mem_off(size, 0)
        if misalign:
            off += r.randrange(1, size)
            if off > BUF_HALF - size:
                off -= size
        rs2 = self.rs()
        if off == 0 and r.random() < 0.5:
            self.add("%s.%s%s x%d, x%d, (x%d)" % (op, w, order, self.rd(),
                                                   rs2, self.base), 4)
            return
        t = self.tmp()
        self.add([self.addr_into(t, off),
                  "%s.%s%s x%d, x%d, (x%d)" % (op, w, order, self.rd(), rs2, t)],
                 8)

    def g_lrsc(self):
        r = self.r
        w = r.choice(["w", "d"])
        size = 4 if w == "w" else 8
        off = self.mem_off(size, 0)
        t = self.tmp()
        lines = [self.addr_into(t, off)]
        n = 4
        c = r.random()
        if c < 0.08:
            # misaligned LR: load-address-misaligned trap, then the SC fails
            lines = [self.addr_into(t, off + r.randrange(1, size)
                                    if off + size < BUF_HALF else off - 1)]
        lr_rd = self.tmp(avoid=(t,))
        lines.append("lr.%s%s x%d, (x%d)" % (w, r.choice(["", ".aq", ".aqrl"]),
                                           lr_rd, t))
        n += 4
        # a few ALU instructions that write neither t nor the base
        for _ in range(r.randrange(4)):
            op = r.choice(["add", "xor", "sub", "mul", "sltu", "or"])
            lines.append("%s x%d, x%d, x%d" % (op, self.tmp(avoid=(t,)),
                                               self.rs(), self.rs()))
            n += 4
        sc_t = t
        c2 = r.random()
        if c2 < 0.15:
            # SC to a different (aligned) address: must fail
            other = self.mem_off(size, 0)
            if other == off:
                other = off + size if off + 2 * size <= BUF_HALF else off - size
            sc_t = self.tmp(avoid=(t,))
            lines.append(self.addr_into(sc_t, other))
            n += 4
        lines.append("sc.%s%s x%d, x%d, (x%d)" % (
            w, r.choice(["", ".rl", ".aqrl"]), self.rd(), self.rs(), sc_t))
        n += 4
        self.add(lines, n)

    def g_sc_alone(self):
        """An SC with no reservation: fails, writes rd = 1."""
        r = self.r
        w = r.choice(["w", "d"])
        size = 4 if w == "w" else 8
        off = self.mem_off(size, 0)
        t = self.tmp()
        if self.quirks and r.random() < 0.3:
            # misaligned or unmapped: QEMU 7.2 checks neither when there is
            # no matching reservation (the SC just fails)
            if r.random() < 0.5:
                off += r.randrange(1, size) if off + size < BUF_HALF else -1
            else:
                lines, n = self.load_const(t, r.choice(UNMAPPED))
                self.add(lines + ["sc.%s x%d, x%d, (x%d)" % (
                    w, self.rd(), self.rs(), t)], n + 4)
                return
        self.add([self.addr_into(t, off),
                  "sc.%s x%d, x%d, (x%d)" % (w, self.rd(), self.rs(), t)], 8)

    def load_const(self, t, value):
        """Lines that put a constant into t without pseudo-instructions
        (so the size is known)."""
        value &= M64
        sv = s64(value)
        if -2048 <= sv < 2048:
            return ["addi x%d, x0, %d" % (t, sv)], 4
        if sv == s64(value & 0xfffff000) and (-(1 << 31)) <= sv < (1 << 31):
            return ["lui x%d, 0x%x" % (t, (value >> 12) & 0xfffff)], 4
        # shift a small constant left
        for sh in range(1, 64):
            if value % (1 << sh) == 0 and -2048 <= s64(value) >> sh < 2048 \
                    and ((s64(value) >> sh) << sh) & M64 == value:
                return ["addi x%d, x0, %d" % (t, s64(value) >> sh),
                        "slli x%d, x%d, %d" % (t, t, sh)], 8
        raise ValueError(hex(value))

    def g_unmapped(self):
        r = self.r
        addr = r.choice(UNMAPPED)
        t = self.tmp()
        lines, n = self.load_const(t, addr)
        kinds = ["ld", "lw", "lbu", "sd", "sb", "sw", "flw", "fsd", "lr.d"]
        if self.quirks:
            kinds += ["amoadd.d", "amoswap.w"]
        k = r.choice(kinds)
        if k in ("ld", "lw", "lbu"):
            lines.append("%s x%d, 0(x%d)" % (k, self.rd(), t))
        elif k in ("sd", "sb", "sw"):
            lines.append("%s x%d, 0(x%d)" % (k, self.rs(), t))
        elif k == "flw":
            lines.append("flw f%d, 0(x%d)" % (self.frs(), t))
        elif k == "fsd":
            lines.append("fsd f%d, 0(x%d)" % (self.frs(), t))
        elif k == "lr.d":
            lines.append("lr.d x%d, (x%d)" % (self.rd(), t))
        else:
            lines.append("%s x%d, x%d, (x%d)" % (k, self.rd(), self.rs(), t))
        self.add(lines, n + 4)

    def g_csr(self):
        r = self.r
        csr = r.choice(["fflags", "frm", "fcsr", "mscratch", "fflags", "frm"])
        op = r.choice(["csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci"])
        if op.endswith("i"):
            if csr == "frm" and r.random() < 0.8:
                src = r.randrange(5)
            else:
                src = r.randrange(32)
            self.add("%s x%d, %s, %d" % (op, self.rd(), csr, src), 4)
        else:
            src = self.rs() if r.random() < 0.8 else 0
            self.add("%s x%d, %s, x%d" % (op, self.rd(), csr, src), 4)

    def fp_rm_insn(self, mnem, ops, word, rm, gas_rm=True):
        """An FP instruction with a rounding mode. Reserved rm (5, 6) and
        forms that GAS will not take an rm for are emitted as .word."""
        if rm is None:
            return "%s %s" % (mnem, ops), 4
        if rm in (5, 6) or (not gas_rm and rm != 0):
            return ".word 0x%08x  # %s %s, rm=%d" % (word, mnem, ops, rm), 4
        if not gas_rm:
            return "%s %s" % (mnem, ops), 4
        return "%s %s, %s" % (mnem, ops, RM_NAMES[rm]), 4

    def pick_rm(self):
        r = self.r
        if r.random() < 0.03:
            return r.choice([5, 6])         # reserved: illegal instruction
        return self.rm()

    def g_fp_arith(self):
        r = self.r
        fmt = r.randrange(2)
        sfx = ".s" if fmt == 0 else ".d"
        rm = self.pick_rm()
        rmw = 7 if rm is None else rm
        c = r.random()
        rd, a, b, d = self.frs(), self.frs(), self.frs(), self.frs()
        if c < 0.45:
            op = r.choice(list(FP_BIN))
            line = self.fp_rm_insn(op + sfx, "f%d, f%d, f%d" % (rd, a, b),
                                   enc_fp_r(FP_BIN[op], fmt, b, a, rmw, rd), rm)
        elif c < 0.55:
            line = self.fp_rm_insn("fsqrt" + sfx, "f%d, f%d" % (rd, a),
                                   enc_fp_r(0x0b, fmt, 0, a, rmw, rd), rm)
        else:
            op = r.choice(list(FMA_OPS))
            line = self.fp_rm_insn(
                op + sfx, "f%d, f%d, f%d, f%d" % (rd, a, b, d),
                enc_fma(FMA_OPS[op], d, fmt, b, a, rmw, rd), rm)
        self.add(line[0], 4)

    def g_fp_misc(self):
        r = self.r
        fmt = r.randrange(2)
        sfx = ".s" if fmt == 0 else ".d"
        op = r.choice(["fsgnj", "fsgnjn", "fsgnjx", "fmin", "fmax"])
        self.add("%s%s f%d, f%d, f%d" % (op, sfx, self.frs(), self.frs(),
                                         self.frs()), 4)

    def g_fp_cmp(self):
        r = self.r
        sfx = r.choice([".s", ".d"])
        if r.random() < 0.25:
            self.add("fclass%s x%d, f%d" % (sfx, self.rd(), self.frs()), 4)
        else:
            op = r.choice(["feq", "flt", "fle"])
            self.add("%s%s x%d, f%d, f%d" % (op, sfx, self.rd(), self.frs(),
                                             self.frs()), 4)

    def g_fp_cvt(self):
        r = self.r
        rm = self.pick_rm()
        rmw = 7 if rm is None else rm
        c = r.random()
        if c < 0.4:       # float -> int
            fmt = r.randrange(2)
            k = r.randrange(4)
            name = "fcvt.%s.%s" % (["w", "wu", "l", "lu"][k], "sd"[fmt])
            rd, a = self.rd(), self.frs()
            line = self.fp_rm_insn(name, "x%d, f%d" % (rd, a),
                                   enc_fp_r(0x18, fmt, k, a, rmw, rd), rm)
        elif c < 0.8:     # int -> float
            fmt = r.randrange(2)
            k = r.randrange(4)
            name = "fcvt.%s.%s" % ("sd"[fmt], ["w", "wu", "l", "lu"][k])
            rd, a = self.frs(), self.rs()
            exact = fmt == 1 and k < 2     # fcvt.d.w[u]: GAS takes no rm
            line = self.fp_rm_insn(name, "f%d, x%d" % (rd, a),
                                   enc_fp_r(0x1a, fmt, k, a, rmw, rd), rm,
                                   gas_rm=not exact)
        elif c < 0.9:
            rd, a = self.frs(), self.frs()
            line = self.fp_rm_insn("fcvt.s.d", "f%d, f%d" % (rd, a),
                                   enc_fp_r(0x08, 0, 1, a, rmw, rd), rm)
        else:
            rd, a = self.frs(), self.frs()
            line = self.fp_rm_insn("fcvt.d.s", "f%d, f%d" % (rd, a),
                                   enc_fp_r(0x08, 1, 0, a, rmw, rd), rm,
                                   gas_rm=False)
        self.add(line[0], 4)

    def g_fp_mv(self):
        r = self.r
        op = r.choice(["fmv.x.w", "fmv.x.d", "fmv.w.x", "fmv.d.x"])
        if op.startswith("fmv.x"):
            self.add("%s x%d, f%d" % (op, self.rd(), self.frs()), 4)
        else:
            self.add("%s f%d, x%d" % (op, self.frs(), self.rs()), 4)

    def g_fence(self):
        self.add(self.r.choice(["fence", "fence rw, rw", "fence.i",
                                "fence r, w", "fence.tso"]), 4)

    def g_trap(self):
        r = self.r
        c = r.randrange(10)
        if c == 0:
            self.add("ebreak", 4)
        elif c == 1:
            self.add("ecall", 4)
        elif c == 2:
            self.add([".option rvc", "c.ebreak", ".option norvc"], 2)
        elif c == 3:
            self.add(r.choice([".word 0x00000000  # illegal",
                               ".word 0xffffffff  # illegal",
                               ".word 0x0420f0d3  # fadd.h (no Zfh)",
                               ".word 0x0620f0d3  # fadd.q (no Q)",
                               ".word 0x203130d3  # fsgnj.s funct3=3",
                               ".word 0x283120d3  # fmin.s funct3=2",
                               ".word 0xe0012553  # fmv.x.w funct3=2",
                               ".word 0x0203129b  # slliw shamt[5]=1",
                               ".word 0x4203529b  # sraiw shamt[5]=1",
                               ".word 0x0000007f  # 80-bit+ encoding"
                               " space (illegal)",
                               ".word 0xf1129073  # csrw mvendorid, x5"
                               " (read-only)"]), 4)
        elif c == 4:
            self.add(r.choice([".half 0x0000  # c.unimp",
                               ".half 0x0004  # c.addi4spn imm=0",
                               ".half 0x6281  # c.lui imm=0",
                               ".half 0x6101  # c.addi16sp imm=0",
                               ".half 0x4002  # c.lwsp rd=0",
                               ".half 0x6002  # c.ldsp rd=0",
                               ".half 0x8002  # c.jr x0"]), 2)
        elif c == 5:
            # reserved static rounding mode
            fmt = r.randrange(2)
            a, b, rd = self.frs(), self.frs(), self.frs()
            rm = r.choice([5, 6])
            self.add(".word 0x%08x  # fadd.%s f%d, f%d, f%d, rm=%d" % (
                enc_fp_r(0, fmt, b, a, rm, rd), "sd"[fmt], rd, a, b, rm), 4)
        elif c == 6:
            # make frm invalid, then DYN instructions trap
            v = r.choice([5, 6, 7])
            self.add("csrrwi x%d, frm, %d" % (self.rd(), v), 4)
        elif c in (7, 8):
            self.g_unmapped()
        else:
            # misaligned LR
            size = r.choice([4, 8])
            off = self.mem_off(size, 0)
            off += r.randrange(1, size) if off + size < BUF_HALF else -1
            t = self.tmp()
            self.add([self.addr_into(t, off),
                      "lr.%s x%d, (x%d)" % ("wd"[size == 8], self.rd(), t)], 8)

    # ---------------------------------------------- compressed

    def creg(self):
        return self.r.choice(self.cregs)

    def crs(self):
        return self.r.randrange(8, 16)

    def g_compressed(self):
        r = self.r
        base = self.base
        choices = ["addi4spn", "lw", "ld", "sw", "sd", "fld", "fsd", "nop",
                   "addi", "addiw", "li", "lui", "srli", "srai", "andi",
                   "sub", "xor", "or", "and", "subw", "addw", "slli", "mv",
                   "add"]
        if self.sp_base:
            choices += ["lwsp", "ldsp", "swsp", "sdsp", "fldsp", "fsdsp"] * 2
        else:
            choices += ["addi16sp"]
        k = r.choice(choices)
        wr = [x for x in self.writable]
        if k == "addi4spn":
            s = "c.addi4spn x%d, x2, %d" % (self.creg(), 4 * r.randrange(1, 256))
        elif k in ("lw", "sw"):
            reg = self.creg() if k == "lw" else self.crs()
            s = "c.%s x%d, %d(x%d)" % (k, reg, 4 * r.randrange(32), base)
        elif k in ("ld", "sd"):
            reg = self.creg() if k == "ld" else self.crs()
            s = "c.%s x%d, %d(x%d)" % (k, reg, 8 * r.randrange(32), base)
        elif k in ("fld", "fsd"):
            s = "c.%s f%d, %d(x%d)" % (k, r.randrange(8, 16),
                                       8 * r.randrange(32), base)
        elif k == "nop":
            s = "c.nop"
        elif k == "addi":
            imm = r.choice([i for i in range(-32, 32) if i])
            s = "c.addi x%d, %d" % (r.choice(wr), imm)
        elif k == "addiw":
            s = "c.addiw x%d, %d" % (r.choice(wr), r.randint(-32, 31))
        elif k == "li":
            s = "c.li x%d, %d" % (r.choice(wr), r.randint(-32, 31))
        elif k == "lui":
            rd = r.choice([x for x in wr if x != 2])
            imm = r.choice(list(range(1, 32)) + list(range(0xfffe0, 0x100000)))
            s = "c.lui x%d, 0x%x" % (rd, imm)
        elif k in ("srli", "srai"):
            s = "c.%s x%d, %d" % (k, self.creg(), r.randrange(1, 64))
        elif k == "andi":
            s = "c.andi x%d, %d" % (self.creg(), r.randint(-32, 31))
        elif k in ("sub", "xor", "or", "and", "subw", "addw"):
            s = "c.%s x%d, x%d" % (k, self.creg(), self.crs())
        elif k == "slli":
            s = "c.slli x%d, %d" % (r.choice(wr), r.randrange(1, 64))
        elif k == "mv":
            s = "c.mv x%d, x%d" % (r.choice(wr), r.randrange(1, 32))
        elif k == "add":
            s = "c.add x%d, x%d" % (r.choice(wr), r.randrange(1, 32))
        elif k == "addi16sp":
            s = "c.addi16sp x2, %d" % (16 * r.choice(
                [i for i in range(-32, 32) if i]))
        elif k in ("lwsp", "swsp"):
            reg = r.choice(wr) if k == "lwsp" else r.randrange(32)
            s = "c.%s x%d, %d(x2)" % (k, reg, 4 * r.randrange(BUF_HALF // 4 - 1))
        elif k in ("ldsp", "sdsp"):
            reg = r.choice(wr) if k == "ldsp" else r.randrange(32)
            s = "c.%s x%d, %d(x2)" % (k, reg, 8 * r.randrange(BUF_HALF // 8 - 1))
        elif k in ("fldsp", "fsdsp"):
            s = "c.%s f%d, %d(x2)" % (k, r.randrange(32),
                                      8 * r.randrange(BUF_HALF // 8 - 1))
        self.add([".option rvc", s, ".option norvc"], 2)

    # ---------------------------------------------- control flow

    def g_branch(self):
        r = self.r
        c = r.random()
        if c < 0.45:
            op = r.choice(["beq", "bne", "blt", "bge", "bltu", "bgeu"])
            a = self.rs()
            b = a if r.random() < 0.15 else self.rs()
            self.add(["%s x%d, x%d, {T}" % (op, a, b)], 4, target=12,
                     limit=4000)
        elif c < 0.6:
            self.add(["jal x%d, {T}" % self.rd()], 4, target=12, limit=4000)
        elif c < 0.72:
            t = self.tmp()
            self.add(["{A}: auipc x%d, 0" % t,
                      "jalr x%d, ({T} - {A})(x%d)" % (self.rd(), t)], 8,
                     target=12, limit=2000)
        elif c < 0.8:
            # c.jr / c.jalr through an auipc-computed address
            t = self.tmp()
            op = r.choice(["c.jr", "c.jalr"])
            self.add(["{A}: auipc x%d, 0" % t,
                      "addi x%d, x%d, ({T} - {A})" % (t, t),
                      ".option rvc", "%s x%d" % (op, t), ".option norvc"],
                     10, target=12, limit=2000)
        elif c < 0.88:
            self.add([".option rvc", "c.j {T}", ".option norvc"], 2,
                     target=12, limit=2000)
        else:
            op = r.choice(["c.beqz", "c.bnez"])
            self.add([".option rvc", "%s x%d, {T}" % (op, self.crs()),
                      ".option norvc"], 2, target=8, limit=250)

    KINDS = [
        ("g_int_rr", 14), ("g_int_ri", 12), ("g_load", 6), ("g_store", 6),
        ("g_fload_store", 4), ("g_amo", 4), ("g_lrsc", 2), ("g_sc_alone", 0.5),
        ("g_csr", 3), ("g_fp_arith", 12), ("g_fp_misc", 4), ("g_fp_cmp", 4),
        ("g_fp_cvt", 7), ("g_fp_mv", 3), ("g_fence", 0.5), ("g_trap", 3),
        ("g_compressed", 10), ("g_branch", 6),
    ]

    def generate(self):
        r = self.r
        n = r.randint(20, 60)
        names = [k for k, _ in self.KINDS]
        weights = [w for _, w in self.KINDS]
        # per-sequence emphasis: sometimes favour one family
        focus = r.choice([None, None, "int", "fp", "mem", "ctl"])
        if focus:
            fam = {"int": ("g_int_rr", "g_int_ri", "g_compressed"),
                   "fp": ("g_fp_arith", "g_fp_cvt", "g_fp_misc", "g_fp_cmp"),
                   "mem": ("g_load", "g_store", "g_amo", "g_lrsc",
                           "g_fload_store"),
                   "ctl": ("g_branch", "g_trap", "g_csr")}[focus]
            weights = [w * (3 if k in fam else 1) for k, w in self.KINDS]
        for _ in range(n):
            getattr(self, r.choices(names, weights)[0])()
        return self.units

    def generate_all(self):
        state = self.initial_state()
        units = self.generate()
        targets = resolve(self.index, units, self.r)
        return state, units, targets

    def initial_state(self):
        r = self.r
        xs = [int_value(r) for _ in range(31)]
        fs = [fp_reg_value(r) for _ in range(32)]
        frm = r.randrange(5) if r.random() < 0.92 else r.choice([5, 6, 7])
        fcsr = (frm << 5) | (r.randrange(32) if r.random() < 0.6 else 0)
        mscratch = int_value(r)
        seed = r.getrandbits(64) | 1
        return xs, fs, fcsr, mscratch, seed


# ---------------------------------------------------------------- program

HARNESS = r"""
	.option norelax
	.option norvc
	.equ UART, 0x10000000
	.equ FINISHER, 0x100000
	.equ BUF_HALF, {buf_half}
	.equ BUF_DWORDS, {buf_dwords}
	.equ REC_BYTES, {rec_bytes}
	.equ NSEQ, {nseq}

	.section .text.init, "ax", @progbits
	.globl _start
_start:
	la t0, trap_entry
	csrw mtvec, t0
	li t0, 0x6000              # mstatus.FS = Dirty
	csrs mstatus, t0
	csrwi fcsr, 0
	la t0, cur_index
	sd zero, 0(t0)

next_seq:
	la s0, cur_index
	ld s1, 0(s0)               # s1 = position in the record table
	li t0, NSEQ
	bgeu s1, t0, all_done
	li t0, REC_BYTES
	mul t0, t0, s1
	la s2, records
	add s2, s2, t0             # s2 = record
	# print "S <number>"
	li a0, 'S'
	call putc
	li a0, ' '
	call putc
	ld a0, 0(s2)
	call putdec
	li a0, '\n'
	call putc
	# fill the scratch buffer from the record's seed (xorshift64)
	ld t0, 16(s2)
	la t1, buf
	li t2, BUF_DWORDS
1:	slli t3, t0, 13
	xor t0, t0, t3
	srli t3, t0, 7
	xor t0, t0, t3
	slli t3, t0, 17
	xor t0, t0, t3
	sd t0, 0(t1)
	addi t1, t1, 8
	addi t2, t2, -1
	bnez t2, 1b
	# drop any reservation
	la t1, resv_dummy
	sc.d t2, zero, (t1)
	ld t0, 24(s2)
	csrw fcsr, t0
	ld t0, 32(s2)
	csrw mscratch, t0
	ld t0, 8(s2)
	la t1, cur_start
	sd t0, 0(t1)
	la t1, in_body
	li t0, 1
	sd t0, 0(t1)
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fld f\n, 8*({rec_f}+\n)(s2)
	.endr
	ld t0, 8*({rec_x}+30)(s2)  # x31's initial value: the body takes it from sscratch
	csrw sscratch, t0
	mv x31, s2
	.irp n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30
	ld x\n, 8*({rec_x}+\n-1)(x31)
	.endr
	ld x31, 8(x31)             # the body's address
	jr x31

# A body ends with: csrw sscratch, x31; la x31, seq_done; jr x31
seq_done:
	la x31, regsave
	.irp n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30
	sd x\n, 8*(\n-1)(x31)
	.endr
	csrr x1, sscratch
	sd x1, 8*30(x31)
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fsd f\n, 8*(31+\n)(x31)
	.endr
	csrr x1, fcsr
	sd x1, 8*63(x31)
	csrr x1, mscratch
	sd x1, 8*64(x31)
	la t0, in_body
	sd zero, 0(t0)
	# print the registers: name table has 8 bytes per entry
	la s3, regsave
	la s4, regnames
	li s5, 65
2:	mv a0, s4
	call puts
	li a0, ' '
	call putc
	ld a0, 0(s3)
	call puthex16
	li a0, '\n'
	call putc
	addi s3, s3, 8
	addi s4, s4, 8
	addi s5, s5, -1
	bnez s5, 2b
{mem_dump}
	la s0, cur_index
	ld s1, 0(s0)
	addi s1, s1, 1
	sd s1, 0(s0)
	j next_seq

all_done:
	la a0, str_end
	call puts
	li a0, NSEQ
	call putdec
	li a0, '\n'
	call putc
	li t0, FINISHER
	li t1, 0x5555
	sw t1, 0(t0)
3:	j 3b

fatal:                         # a0 = message
	call puts
	li t0, FINISHER
	li t1, 0x10000 | 0x3333    # fail, code 1
	sw t1, 0(t0)
4:	j 4b

# ---- UART helpers (use a0..a7, t4..t6 and ra)
putc:
	li t6, UART
5:	lbu t5, 5(t6)
	andi t5, t5, 0x20
	beqz t5, 5b
	sb a0, 0(t6)
	ret

puts:                          # a0 = NUL-terminated string
	mv t4, a0
	mv a6, ra
6:	lbu a0, 0(t4)
	beqz a0, 7f
	call putc
	addi t4, t4, 1
	j 6b
7:	mv ra, a6
	ret

puthex16:                      # a0 = value, 16 hex digits
	li a1, 16
puthexn:                       # a0 = value, a1 = number of digits
	mv a7, ra
	mv a2, a0
	slli a3, a1, 2
8:	addi a3, a3, -4
	srl a0, a2, a3
	andi a0, a0, 15
	addi a0, a0, '0'
	li t4, '9'
	ble a0, t4, 9f
	addi a0, a0, 'a' - '0' - 10
9:	call putc
	bnez a3, 8b
	mv ra, a7
	ret

putdec:                        # a0 = unsigned value
	mv a5, ra
	la a2, decbuf + 24
	sb zero, 0(a2)
	li a3, 10
10:	remu a4, a0, a3
	divu a0, a0, a3
	addi a4, a4, '0'
	addi a2, a2, -1
	sb a4, 0(a2)
	bnez a0, 10b
	mv a0, a2
	call puts
	mv ra, a5
	ret

# ---- trap handler: print "T mcause +off mtval", skip the instruction
	.align 2
trap_entry:
	csrw sscratch, x31
	la x31, trapsave
	.irp n, 1,5,6,7,10,11,12,13,14,15,16,17,28,29,30
	sd x\n, 8*\n(x31)
	.endr
	la t0, in_body
	ld t1, 0(t0)
	beqz t1, harness_trap
	la t0, in_trap
	ld t1, 0(t0)
	bnez t1, harness_trap
	li t1, 1
	sd t1, 0(t0)
	csrr t0, mepc
	la t1, cur_start
	ld t1, 0(t1)
	sub t0, t0, t1
	li t1, 0x10000             # mepc must lie inside the body
	bgeu t0, t1, harness_trap
	li a0, 'T'
	call putc
	li a0, ' '
	call putc
	csrr a0, mcause
	call puthex16
	li a0, ' '
	call putc
	li a0, '+'
	call putc
	csrr a0, mepc
	la t1, cur_start
	ld t1, 0(t1)
	sub a0, a0, t1
	li a1, 4
	call puthexn
	li a0, ' '
	call putc
	csrr a0, mtval
	call puthex16
	li a0, '\n'
	call putc
	# resume after the trapping instruction: 2 or 4 bytes
	csrr t0, mepc
	lhu t1, 0(t0)
	andi t1, t1, 3
	li t2, 3
	addi t0, t0, 2
	bne t1, t2, 11f
	addi t0, t0, 2
11:	csrw mepc, t0
	la t1, resv_dummy          # drop any reservation (harness choice)
	sc.d t2, zero, (t1)
	la t0, in_trap
	sd zero, 0(t0)
	la x31, trapsave
	.irp n, 1,5,6,7,10,11,12,13,14,15,16,17,28,29,30
	ld x\n, 8*\n(x31)
	.endr
	csrr x31, sscratch
	mret

harness_trap:
	la a0, str_fatal
	call puts
	csrr a0, mcause
	call puthex16
	li a0, ' '
	call putc
	csrr a0, mepc
	call puthex16
	li a0, ' '
	call putc
	csrr a0, mtval
	call puthex16
	li a0, '\n'
	call putc
	la a0, str_empty
	j fatal

	.section .rodata
str_end:	.asciz "END "
str_fatal:	.asciz "FATAL harness trap "
str_empty:	.asciz ""
	.align 3
regnames:
	.irp n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.balign 8
	.asciz "x\n"
	.endr
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.balign 8
	.asciz "f\n"
	.endr
	.balign 8
	.asciz "fcsr"
	.balign 8
	.asciz "mscratch"
	.balign 8

	# at a fixed address (link.ld), so that addresses do not depend on the
	# number of sequences: a sequence run alone (--only) sees the same ones
	.section .harness.data, "aw", @progbits
	.balign 64
buf:	.fill {buf_bytes}, 1, 0
	.balign 64
regsave:	.fill 66, 8, 0
trapsave:	.fill 32, 8, 0
cur_index:	.dword 0
cur_start:	.dword 0
in_body:	.dword 0
in_trap:	.dword 0
resv_dummy:	.dword 0
decbuf:		.fill 32, 1, 0
"""

MEM_HASH = r"""
	# mem: FNV-1a over the buffer's dwords
	la t0, buf
	li t1, BUF_DWORDS
	li a0, 0xcbf29ce484222325
	li t2, 0x100000001b3
12:	ld t3, 0(t0)
	xor a0, a0, t3
	mul a0, a0, t2
	addi t0, t0, 8
	addi t1, t1, -1
	bnez t1, 12b
	mv s6, a0
	la a0, str_mem
	call puts
	mv a0, s6
	call puthex16
	li a0, '\n'
	call putc
	.pushsection .rodata
str_mem: .asciz "mem "
	.popsection
"""

MEM_FULL = r"""
	# mem: every dword of the buffer, "mOOO value" (OOO = hex byte offset)
	la s3, buf
	li s4, 0
13:	li a0, 'm'
	call putc
	mv a0, s4
	li a1, 3
	call puthexn
	li a0, ' '
	call putc
	ld a0, 0(s3)
	call puthex16
	li a0, '\n'
	call putc
	addi s3, s3, 8
	addi s4, s4, 8
	li t0, BUF_DWORDS * 8
	bltu s4, t0, 13b
"""


def resolve(seq_no, units, r):
    """Pick forward branch targets (unit indices; len(units) = the end)
    within each unit's distance limit, and return the label set used."""
    addr = [0]
    for u in units:
        addr.append(addr[-1] + u.size)
    targets = {}
    for i, u in enumerate(units):
        if u.target is None:
            continue
        cands = [j for j in range(i + 1, min(len(units), i + u.target) + 1)
                 if addr[j] - addr[i] <= u.limit]
        # a branch to the very next unit is legal but dull; still allowed
        targets[i] = r.choice(cands)
    return targets


def emit_body(out, seq_no, units, targets, check=True):
    """Append a body's lines to out.  Offsets of auipc-based jumps are
    computed here from the exact unit sizes; `check` adds assembler-time
    assertions that they match the labels."""
    addr = [0]
    for u in units:
        addr.append(addr[-1] + u.size)
    used = set(targets.values())
    checks = []
    anchor = 0
    out.append("seq_%d:" % seq_no)
    out.append("\tcsrr x31, sscratch")
    for i, u in enumerate(units):
        if i in used:
            out.append(".L%d_%d:" % (seq_no, i))
        tl = ".L%d_%d" % (seq_no, targets[i]) if i in targets else None
        al = ".La%d_%d" % (seq_no, anchor)
        anchored = False
        for line in u.lines:
            if "{A}" in line:
                anchored = True
            if "({T} - {A})" in line:
                dist = addr[targets[i]] - addr[i]
                line = line.replace("({T} - {A})", str(dist))
                checks.append((tl, al, dist))
            line = line.replace("{T}", tl or "").replace("{A}", al)
            if line.startswith(".L"):
                out.append(line)
            else:
                out.append("\t" + line)
        if anchored:
            anchor += 1
    if len(units) in used:
        out.append(".L%d_%d:" % (seq_no, len(units)))
    out.append("\tcsrw sscratch, x31")
    out.append("\tla x31, seq_done")
    out.append("\tjr x31")
    if check and checks:
        # GAS cannot evaluate these in .if (branches make variable frags),
        # so they go to a non-allocated section that run.py reads: every
        # word must be zero.
        out.append('\t.pushsection .diffcheck, "", @progbits')
        for tl, al, dist in checks:
            out.append("\t.word %s - %s - %d" % (tl, al, dist))
        out.append("\t.popsection")


def body_size(units):
    """Bytes of a body as emit_body lays it out: csrr (4), the units,
    csrw + la + jr (16).  Bodies follow each other with no padding (they
    may start at 2 mod 4)."""
    return 4 + sum(u.size for u in units) + 16


def generate(seed, nseq, only=None, quirks=True, full_mem=False):
    seqs = [only] if only is not None else list(range(nseq))
    text = []
    data = []
    if only is not None:
        # put the body at the address it has in the full program, so that
        # PC-relative results (auipc, jal links) are the same
        pad = sum(body_size(SeqGen(seed, k, quirks).generate_all()[1])
                  for k in range(only))
        if pad:
            text.append("\t.skip %d  # bodies 0..%d of the full program" % (
                pad, only - 1))
    for k in seqs:
        g = SeqGen(seed, k, quirks)
        (xs, fs, fcsr, mscratch, bufseed), units, targets = g.generate_all()
        # base registers point at the middle of the buffer
        text.append("# ==== sequence %d: base x%d%s" % (
            k, g.base, ", sp" if g.sp_base else ""))
        emit_body(text, k, units, targets)
        text.append("# ==== end %d" % k)
        for b in g.fixed:
            xs[b - 1] = None
        rec = ["seq_%d" % k, hex64(bufseed), hex64(fcsr), hex64(mscratch)]
        rec += ["buf + BUF_HALF" if v is None else hex64(v) for v in xs]
        rec += [hex64(v) for v in fs]
        rec = ["%d" % k] + rec
        data.append("rec_%d:" % k)
        for i in range(0, len(rec), 4):
            data.append("\t.dword " + ", ".join(rec[i:i + 4]))
    # records are laid out at a fixed stride (REC_DWORDS dwords each)
    hdr = HARNESS.format(buf_half=BUF_HALF, buf_dwords=BUF_BYTES // 8,
                         rec_bytes=REC_DWORDS * 8, nseq=len(seqs),
                         rec_x=REC_X, rec_f=REC_F,
                         buf_bytes=BUF_BYTES,
                         mem_dump=MEM_FULL if full_mem else MEM_HASH)
    out = ["# generated by tests/diff/gen.py --seed %d --sequences %d%s%s%s"
           % (seed, nseq, "" if only is None else " --only %d" % only,
              "" if quirks else " --no-qemu-quirks",
              " --full-mem" if full_mem else ""), hdr]
    out.append("\t.text")
    out.append("\t.option norvc")
    out += text
    out.append("\t.data")
    out.append("\t.balign 8")
    out.append("records:")
    out += data
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--sequences", type=int, default=500)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", type=int, default=None,
                    help="emit only sequence K of this seed")
    ap.add_argument("--no-qemu-quirks", action="store_true",
                    help="leave out the cases where QEMU 7.2 departs from "
                    "the spec (misaligned AMOs, AMOs to unmapped addresses, "
                    "misaligned SC)")
    ap.add_argument("--full-mem", action="store_true",
                    help="dump every scratch-buffer dword, not a hash")
    a = ap.parse_args(argv)
    if a.only is not None and not (0 <= a.only):
        ap.error("--only must be >= 0")
    src = generate(a.seed, a.sequences, a.only, not a.no_qemu_quirks,
                   a.full_mem)
    with open(a.out, "w") as f:
        f.write(src)


if __name__ == "__main__":
    main()
