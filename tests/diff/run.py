#!/usr/bin/env python3
"""CPU differential test: QEMU virt against `themis bare`.

    run.py [--seeds A..B] [--sequences N] [--themis PATH | --qemu-only]

For each seed: gen.py writes a program of N random sequences, the cross
compiler assembles it, QEMU and the emulator run it, and their UART outputs
are compared line by line.  The first difference is shown with its context:
the sequence, its instruction listing (with byte offsets, as printed in trap
lines), the register and its initial value.  The last line is
`compared K sequences in M programs: OK` (exit 0) or a failure summary
(exit 1; exit 2 for a broken setup: no compiler, QEMU failing alone, ...).

Stdlib only.  Nothing is written inside the repository: programs and
outputs go to --work DIR or to a temporary directory (kept on failure).
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(HERE, "gen.py")
LINK = os.path.join(HERE, "link.ld")

CFLAGS = ["-march=rv64gc", "-mabi=lp64d", "-mcmodel=medany", "-nostdlib",
          "-nostartfiles", "-static", "-fno-pie", "-no-pie",
          "-Wl,--build-id=none", "-Wl,--no-warn-rwx-segments"]

# -smp 1 matters: QEMU 7.2 reports AMO faults as load faults only when the
# guest runs single-threaded TCG (see README.md); 128 MiB is the default.
QEMU_ARGS = ["-M", "virt", "-smp", "1", "-m", "128M", "-bios", "none",
             "-nographic", "-kernel"]

REC_NAMES = (["number", "body", "bufseed", "fcsr", "mscratch"] +
             ["x%d" % i for i in range(1, 32)] +
             ["f%d" % i for i in range(32)])


class SetupError(Exception):
    pass


def parse_seeds(s):
    out = []
    for part in s.split(","):
        part = part.strip()
        m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if b < a:
                raise argparse.ArgumentTypeError("empty range " + part)
            out += range(a, b + 1)
        elif re.fullmatch(r"-?\d+", part):
            out.append(int(part))
        else:
            raise argparse.ArgumentTypeError("bad seed list " + s)
    return out


def elf_section(path, name):
    """Bytes of section `name` of an ELF64 little-endian file, or None."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)

    def sh(i):
        base = shoff + i * shentsize
        nm, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", data,
                                                             base)
        return nm, off, size
    _, stroff, _ = sh(shstrndx)
    for i in range(shnum):
        nm, off, size = sh(i)
        end = data.index(b"\0", stroff + nm)
        if data[stroff + nm:end].decode() == name:
            return data[off:off + size]
    return None


def run_machine(cmd, out_path, timeout):
    """Run cmd with stdout to out_path. Returns (status, note): status is
    the exit code, or None on a timeout."""
    err_path = out_path + ".stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=err, start_new_session=True)
        except OSError as e:
            return -1, "cannot run %s: %s" % (cmd[0], e)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, 9)
            except OSError:
                pass
            p.wait()
            return None, "timed out after %gs" % timeout
    return rc, ""


def read_lines(path):
    with open(path, "rb") as f:
        return f.read().decode("latin-1").split("\n")


def stderr_tail(out_path, n=10):
    try:
        lines = read_lines(out_path + ".stderr")
    except OSError:
        return ""
    lines = [l for l in lines if l.strip()][-n:]
    return "".join("      | %s\n" % l for l in lines)


def complete(lines, nseq):
    """Is this a full run of nseq sequences (END line, no FATAL)?"""
    if any(l.startswith("FATAL") for l in lines):
        return False
    return "END %d" % nseq in lines


# ---------------------------------------------------------------- context

def insn_size(text):
    t = text.strip()
    if not t or t.startswith("#") or t.startswith("."):
        if t.startswith(".word"):
            return 4
        if t.startswith(".half"):
            return 2
        return 0
    mnem = t.split()[0]
    if mnem.startswith("c."):
        return 2
    if mnem in ("la", "call", "tail"):
        return 8
    return 4


def listing(src_lines, k):
    """The body of sequence k from the .S, annotated with byte offsets."""
    start = "# ==== sequence %d:" % k
    out = []
    inside = False
    off = 0
    for line in src_lines:
        if line.startswith(start):
            inside = True
            out.append(line)
            continue
        if not inside:
            continue
        if line.startswith("# ==== end"):
            break
        s = line.strip()
        if s.startswith(".option") or s.startswith(".balign") or \
                s.startswith(".pushsection") or s.startswith(".popsection") \
                or s.startswith(".word .L"):
            continue
        m = re.match(r"^(\.L\w+|seq_\d+):\s*(.*)$", s)
        if m:
            if m.group(2):
                out.append("  %s:" % m.group(1))
                s = m.group(2)
            else:
                out.append("  %s:" % m.group(1))
                continue
        out.append("  +%04x  %s" % (off, s))
        off += insn_size(s)
    return out


def initial_values(src_lines, k):
    """{name: value string} from sequence k's record."""
    vals = []
    inside = False
    for line in src_lines:
        if line == "rec_%d:" % k:
            inside = True
            continue
        if inside:
            s = line.strip()
            if not s.startswith(".dword"):
                break
            vals += [v.strip() for v in s[len(".dword"):].split(",")]
    return dict(zip(REC_NAMES, vals))


def seq_of_line(lines, i):
    for j in range(min(i, len(lines) - 1), -1, -1):
        if lines[j].startswith("S "):
            return int(lines[j][2:])
    return None


def isolate(seed, k, a, work, bcmd_of):
    """Run sequence k of seed alone (with the whole scratch buffer dumped)
    on both machines; return lines describing the result."""
    base = os.path.join(work, "seed%d-seq%d" % (seed, k))
    src, elf = base + ".S", base + ".elf"
    p = subprocess.run([sys.executable, GEN, "--seed", str(seed),
                        "--sequences", str(a.sequences), "--only", str(k),
                        "--full-mem", "--out", src] + a.gen_args,
                       capture_output=True, text=True)
    if p.returncode:
        return ["  (could not generate the sequence alone)"]
    p = subprocess.run([a.cc] + CFLAGS + ["-T", LINK, src, "-o", elf],
                       capture_output=True, text=True)
    if p.returncode:
        return ["  (could not assemble the sequence alone)"]
    outs = []
    for name, cmd in (("qemu", [a.qemu] + QEMU_ARGS + [elf]),
                      ("b", bcmd_of(elf))):
        path = base + "." + name + ".out"
        rc, note = run_machine(cmd, path, a.timeout)
        outs.append((read_lines(path), rc, note))
    (qa, _, _), (qb, rcb, noteb) = outs
    diffs = [(j, qa[j] if j < len(qa) else "<end>",
              qb[j] if j < len(qb) else "<end>")
             for j in range(max(len(qa), len(qb)))
             if (qa[j] if j < len(qa) else None) !=
             (qb[j] if j < len(qb) else None)]
    rel = os.path.relpath(src, work)
    if not diffs:
        return ["  run alone (%s in the work dir): the outputs agree, so the "
                "difference depends on earlier sequences" % rel]
    out = ["  run alone (%s in the work dir, whole buffer dumped as "
           "m<offset> lines): %d differing lines%s" % (
               rel, len(diffs), " (" + noteb + ")" if noteb else "")]
    for j, la, lb in diffs[:12]:
        out.append("    qemu %-26s | other %s" % (la, lb))
    return out


def describe_mismatch(seed, src_path, nseq, qa, qb, name_b, i, gen_extra):
    """Text explaining the first difference at line index i."""
    la = qa[i] if i < len(qa) else "<end of output>"
    lb = qb[i] if i < len(qb) else "<end of output>"
    seqno = None
    seq_line = 0
    for j in range(min(i, len(qa) - 1), -1, -1):
        if qa[j].startswith("S "):
            seqno = int(qa[j][2:])
            seq_line = j
            break
    out = []
    out.append("MISMATCH: seed %d, sequence %s, output line %d" % (
        seed, seqno if seqno is not None else "?", i + 1))
    out.append("  qemu:  %s" % la)
    out.append("  %-6s %s" % (name_b + ":", lb))
    ta, tb = la.split(" ", 1)[0], lb.split(" ", 1)[0]
    src = read_lines(src_path)
    init = initial_values(src, seqno) if seqno is not None else {}
    if ta == tb and ta in init:
        out.append("  register %s (initial value %s)" % (ta, init[ta]))
    elif ta == tb == "mem":
        out.append("  the scratch buffer differs (the run alone below "
                   "shows which dwords)")
    elif "T" in (ta, tb) and ta != tb:
        out.append("  one side trapped where the other did not "
                   "(T <mcause> +<offset> <mtval>)")
    elif ta == tb == "T":
        out.append("  trap report differs (T <mcause> +<offset> <mtval>)")
    lo = max(seq_line, i - 6)
    out.append("  context (qemu | %s):" % name_b)
    for j in range(lo, i + 4):
        a = qa[j] if j < len(qa) else ""
        b = qb[j] if j < len(qb) else ""
        mark = ">>" if j == i else "  "
        out.append("   %s %-28s | %s" % (mark, a, b))
    if seqno is not None:
        out.append("  sequence %d (offsets as in trap lines):" % seqno)
        out += ["    " + l for l in listing(src, seqno)]
        names = [n for n in REC_NAMES[3:] if n in init]
        out.append("  initial state:")
        for j in range(0, len(names), 4):
            out.append("    " + "  ".join("%-8s %-18s" % (n, init[n])
                                          for n in names[j:j + 4]).rstrip())
        extra = " ".join(gen_extra)
        out.append("  reproduce alone: python3 tests/diff/gen.py --seed %d "
                   "--only %d %s--out one.S (then assemble and run as in "
                   "tests/diff/README.md)" % (seed, seqno,
                                              extra + " " if extra else ""))
    out.append("  program: %s" % src_path)
    return "\n".join(out)


# ---------------------------------------------------------------- one seed

def do_seed(seed, a, work):
    """Returns dict(status=ok|mismatch|error, text=..., seqs=n)."""
    base = os.path.join(work, "seed%d" % seed)
    src = base + ".S"
    elf = base + ".elf"
    gen_cmd = [sys.executable, GEN, "--seed", str(seed), "--sequences",
               str(a.sequences), "--out", src] + a.gen_args
    p = subprocess.run(gen_cmd, capture_output=True, text=True)
    if p.returncode:
        return dict(status="error", text="seed %d: gen.py failed:\n%s" % (
            seed, p.stderr))
    p = subprocess.run([a.cc] + CFLAGS + ["-T", LINK, src, "-o", elf],
                       capture_output=True, text=True)
    if p.returncode:
        return dict(status="error", text="seed %d: assembling failed:\n%s" % (
            seed, p.stderr[:4000]))
    chk = elf_section(elf, ".diffcheck")
    if chk and any(chk):
        return dict(status="error", text="seed %d: gen.py's jump offsets "
                    "disagree with the assembler (.diffcheck)" % seed)
    qcmd = [a.qemu] + QEMU_ARGS + [elf]
    qout = base + ".qemu.out"
    rc, note = run_machine(qcmd, qout, a.timeout)
    qa = read_lines(qout)
    if rc != 0 or not complete(qa, a.sequences):
        why = note or ("exit status %s" % rc if rc else "incomplete output")
        fatal = [l for l in qa if l.startswith("FATAL")]
        return dict(status="error", text="seed %d: QEMU failed (%s)%s\n%s" % (
            seed, why, ": " + fatal[0] if fatal else "", stderr_tail(qout)))
    if a.qemu_only:
        name_b = "qemu2"
        bcmd = qcmd
    else:
        name_b = "themis"
        bcmd = [a.themis, "bare", elf]
    bout = base + "." + name_b + ".out"
    t0 = time.time()
    rc, note = run_machine(bcmd, bout, a.timeout)
    qb = read_lines(bout)
    def bcmd_of(e):
        return qcmd[:-1] + [e] if a.qemu_only else [a.themis, "bare", e]

    if rc is None:
        # a hang: still show where the output stopped
        i = next((j for j in range(len(qa))
                  if j >= len(qb) or qa[j] != qb[j]), len(qa))
        text = "seed %d: %s %s (after %d output lines)\n" % (
            seed, name_b, note, len(qb)) + \
            describe_mismatch(seed, src, a.sequences, qa, qb, name_b,
                              min(i, len(qa) - 1), a.gen_args)
        return dict(status="mismatch", text=text)
    for i in range(max(len(qa), len(qb))):
        la = qa[i] if i < len(qa) else None
        lb = qb[i] if i < len(qb) else None
        if la != lb:
            text = describe_mismatch(seed, src, a.sequences, qa, qb, name_b,
                                     i, a.gen_args)
            k = seq_of_line(qa, i)
            if k is not None:
                text += "\n" + "\n".join(isolate(seed, k, a, work, bcmd_of))
            if rc:
                text += "\n  (%s exited with status %d)\n%s" % (
                    name_b, rc, stderr_tail(bout))
            return dict(status="mismatch", text=text)
    if rc:
        return dict(status="mismatch", text="seed %d: outputs equal but %s "
                    "exited with status %d\n%s" % (seed, name_b, rc,
                                                   stderr_tail(bout)))
    if not a.keep:
        for f in (src, elf, qout, bout, qout + ".stderr", bout + ".stderr"):
            try:
                os.remove(f)
            except OSError:
                pass
    return dict(status="ok", seqs=a.sequences, secs=time.time() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Compare QEMU virt and themis on random RV64GC programs.")
    ap.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1..20"),
                    help="A..B, A, or a comma list (default 1..20)")
    ap.add_argument("--sequences", type=int, default=500,
                    help="sequences per program (default 500)")
    ap.add_argument("--themis", default=os.path.join(ROOT, "build", "themis"),
                    help="the emulator (default: build/themis of this tree)")
    ap.add_argument("--qemu-only", action="store_true",
                    help="compare QEMU with itself (determinism check)")
    ap.add_argument("--qemu", default="qemu-system-riscv64")
    ap.add_argument("--cc", default="riscv64-linux-gnu-gcc")
    ap.add_argument("--work", help="keep programs and outputs here")
    ap.add_argument("--keep", action="store_true",
                    help="keep the files of passing seeds too")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per run (default 30 + 0.1 per sequence)")
    ap.add_argument("--no-qemu-quirks", action="store_true",
                    help="pass --no-qemu-quirks to gen.py")
    a = ap.parse_args(argv)
    if a.timeout is None:
        a.timeout = 30 + 0.1 * a.sequences
    a.gen_args = ["--no-qemu-quirks"] if a.no_qemu_quirks else []
    if a.sequences < 1:
        ap.error("--sequences must be >= 1")

    for tool in (a.cc, a.qemu):
        if not shutil.which(tool):
            print("error: %s not found" % tool)
            return 2
    if not a.qemu_only:
        if not (os.path.isfile(a.themis) and os.access(a.themis, os.X_OK)):
            print("error: emulator %s not found (build it, pass --themis, "
                  "or use --qemu-only)" % a.themis)
            return 2
        a.themis = os.path.abspath(a.themis)

    if a.work:
        os.makedirs(a.work, exist_ok=True)
        work, temp = a.work, False
    else:
        work, temp = tempfile.mkdtemp(prefix="themis-diff-"), True

    t0 = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        futs = {ex.submit(do_seed, s, a, work): s for s in a.seeds}
        for f in concurrent.futures.as_completed(futs):
            s = futs[f]
            try:
                results[s] = f.result()
            except Exception as e:          # a bug here is a setup error
                results[s] = dict(status="error", text="seed %d: %r" % (s, e))
    elapsed = time.time() - t0

    bad = [s for s in a.seeds if results[s]["status"] != "ok"]
    seqs = sum(results[s].get("seqs", 0) for s in a.seeds)
    progs = len(a.seeds) - len(bad)
    for s in bad[:3]:
        print(results[s]["text"])
        print()
    if len(bad) > 3:
        print("(%d more failing seeds not shown)" % (len(bad) - 3))
    if temp and not bad and not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    elif bad:
        print("work files kept in %s" % work)
    what = "qemu vs qemu" if a.qemu_only else "qemu vs themis"
    print("%s, %d seeds, %d jobs, %.1fs" % (what, len(a.seeds), a.jobs,
                                            elapsed))
    if not bad:
        print("compared %d sequences in %d programs: OK" % (seqs, progs))
        return 0
    kinds = {results[s]["status"] for s in bad}
    print("compared %d sequences in %d programs: FAILED: seeds %s" % (
        seqs, progs, ",".join(map(str, bad))))
    return 2 if kinds == {"error"} else 1


if __name__ == "__main__":
    sys.exit(main())
