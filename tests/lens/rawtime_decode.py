#!/usr/bin/env python3
"""rawtime_decode.py - an independent reading of a file's stored times, for
tests/lens/test_rawtime.sh to compare with `themis clock --raw`. Written
from the on-disk specifications, sharing nothing with src/lens: minix (the
inode table; a name looked up in the root directory's direct zones), vfat
(the root directory's LFN and short entries), exfat (the root directory's
entry sets) and nilfs2 (the way the kernel finds an inode: the superblock's
last log, its super root, the checkpoint file's latest checkpoint, the
ifile, every virtual block number translated through the DAT).

Usage: rawtime_decode.py FS IMG NAME-OR-INO
Prints "ino=N mtime=SEC.NSEC [ctime=SEC.NSEC] FIELDS..."."""
import calendar
import struct
import sys


def u16(b, o): return struct.unpack_from("<H", b, o)[0]
def u32(b, o): return struct.unpack_from("<I", b, o)[0]
def u64(b, o): return struct.unpack_from("<Q", b, o)[0]
def s64(b, o): return struct.unpack_from("<q", b, o)[0]


def minix(img, arg):
    sb = img[1024:1088]
    if u16(sb, 24) == 0x4D5A:
        ver, ninodes, imap, zmap, bs, dsize = 3, u32(sb, 0), u16(sb, 6), u16(sb, 8), u16(sb, 28), 64
    else:
        magic = u16(sb, 16)
        ver = 2 if magic in (0x2468, 0x2478) else 1
        ninodes, imap, zmap, bs = u16(sb, 0), u16(sb, 4), u16(sb, 6), 1024
        dsize = 32 if magic in (0x138F, 0x2478) else 16
    isz = 32 if ver == 1 else 64
    itable = (2 + imap + zmap) * bs

    def inode(n):
        return img[itable + (n - 1) * isz: itable + n * isz]
    if arg.isdigit():
        ino = int(arg)
    else:  # look the name up in the root directory (inode 1)
        root, ino = inode(1), None
        zones = [u16(root, 14 + 2 * i) for i in range(7)] if ver == 1 else \
                [u32(root, 24 + 4 * i) for i in range(7)]
        wide = 4 if ver == 3 else 2
        for z in zones:
            blk = img[z * bs: (z + 1) * bs] if z else b""
            for o in range(0, len(blk), dsize):
                n = u32(blk, o) if wide == 4 else u16(blk, o)
                if n and blk[o + wide: o + dsize].split(b"\0")[0].decode() == arg:
                    ino = n
    i = inode(ino)
    if ver == 1:
        t = u32(i, 8)
        return "ino=%d mtime=%d.000000000 ctime=%d.000000000 i_time=0x%08x" % (ino, t, t, t)
    m, c = u32(i, 16), u32(i, 20)
    return "ino=%d mtime=%d.000000000 ctime=%d.000000000 i_mtime=0x%08x" % (ino, m, c, m)


def dos_time(date, time, cs=0, tz=None):
    y, mo, d = 1980 + (date >> 9), (date >> 5) & 15, date & 31
    h, mi, s = time >> 11, (time >> 5) & 63, (time & 31) * 2
    sec = calendar.timegm((y, mo, d, h, mi, s)) + cs // 100
    if tz is not None and tz & 0x80:
        off = tz & 0x7F
        off = off - 0x80 if off & 0x40 else off  # signed 7 bits, 15-minute units
        sec -= off * 900
    return "%d.%09d" % (sec, (cs % 100) * 10000000)


def chain(img, fat_at, heap, csize, first, fat32_mask, nclusters):
    out, c, seen = b"", first, set()
    while 2 <= c < nclusters + 2 and c not in seen:
        seen.add(c)
        out += img[heap + (c - 2) * csize: heap + (c - 1) * csize]
        c = u32(img, fat_at + 4 * c) & fat32_mask
    return out


def vfat(img, name):
    bps, spc, res, nfats, rootents = u16(img, 11), img[13], u16(img, 14), img[16], u16(img, 17)
    total = u16(img, 19) or u32(img, 32)
    fatsz = u16(img, 22) or u32(img, 36)
    rootsecs = (rootents * 32 + bps - 1) // bps
    data = res + nfats * fatsz + rootsecs
    nclus = (total - data) // spc
    if nclus >= 65525:
        d = chain(img, res * bps, data * bps, spc * bps, u32(img, 44), 0x0FFFFFFF, nclus)
    else:
        d = img[(res + nfats * fatsz) * bps: data * bps]
    parts = {}
    for o in range(0, len(d), 32):
        e = d[o:o + 32]
        if e[0] == 0:
            break
        if e[0] == 0xE5:
            parts = {}
            continue
        if e[11] == 0x0F:
            parts[e[0] & 0x1F] = e[1:11] + e[14:26] + e[28:32]
            continue
        lfn = b"".join(parts[k] for k in sorted(parts)).decode("utf-16-le").split("\0")[0]
        parts = {}
        short = e[0:8].decode().rstrip() + ("." + e[8:11].decode().rstrip() if e[8:11].strip() else "")
        if lfn == name or (not lfn and short.lower() == name.lower()):
            t, dt = u16(e, 22), u16(e, 24)
            return "mtime=%s DIR_WrtDate=0x%04x DIR_WrtTime=0x%04x" % (dos_time(dt, t), dt, t)
    return "no file"


def exfat(img, name):
    fatoff, heapoff, nclus, root = u32(img, 80), u32(img, 88), u32(img, 92), u32(img, 96)
    ss, cs = 1 << img[108], 1 << img[108] + img[109]
    d = chain(img, fatoff * ss, heapoff * ss, cs, root, 0xFFFFFFFF, nclus)
    for o in range(0, len(d), 32):
        if d[o] != 0x85:
            continue
        n = d[o + 1]
        nlen = d[o + 32 + 3]
        units = b"".join(d[o + 32 * k + 2: o + 32 * k + 32] for k in range(2, n + 1))
        if units[:2 * nlen].decode("utf-16-le") == name:
            ts, ms, tz = u32(d, o + 12), d[o + 21], d[o + 23]
            return "mtime=%s LastModifiedTimestamp=0x%08x LastModified10msIncrement=%d " \
                   "LastModifiedUtcOffset=0x%02x" % (dos_time(ts >> 16, ts & 0xFFFF, ms, tz), ts, ms, tz)
    return "no file"


def nilfs2(img, arg):
    sb = img[1024:1024 + 256]
    bs = 1024 << u32(sb, 20)
    last_cno, last_pseg = u64(sb, 0x38), u64(sb, 0x40)
    isz, desz, cpsz = u16(sb, 0x90), u16(sb, 0x92), u16(sb, 0x94)

    def block(n):
        return img[n * bs:(n + 1) * bs]
    ss = block(last_pseg)
    assert u32(ss, 8) == 0x1EAFFA11 and u16(ss, 14) & 4, "no super root in the last log"
    sr = block(last_pseg + u32(ss, 40) - 1)
    dat_inode = sr[16:16 + isz]
    cp_inode = sr[16 + isz:16 + 2 * isz]

    def bmap(inode, key, translate):
        """The block of key in the inode's bmap (direct, or a btree)."""
        bm = inode[56:112]
        if not bm[0] & 1:  # direct: pointers after the flags word
            return translate(u64(bm, 8 + 8 * key))
        level, n = bm[1], u16(bm, 2)
        keys = [u64(bm, 8 + 8 * i) for i in range(n)]
        ptrs = [u64(bm, 32 + 8 * i) for i in range(n)]
        ncmax = (bs - 16) // 16
        while True:
            i = max(j for j in range(n) if keys[j] <= key)
            if level == 1:
                assert keys[i] == key
                return translate(ptrs[i])
            node = block(translate(ptrs[i]))
            level, n = node[1], u16(node, 2)
            keys = [u64(node, 16 + 8 * j) for j in range(n)]
            ptrs = [u64(node, 16 + 8 * ncmax + 8 * j) for j in range(n)]

    def palloc(nr, esize):
        """Block and byte of entry nr of a persistent allocator file."""
        epb, per_group = bs // esize, bs * 8
        bpg = (per_group + epb - 1) // epb + 1
        gpd = bs // 4
        bpd = gpd * bpg + 1
        g = nr // per_group
        return g // gpd * bpd + 1 + g % gpd * bpg + 1 + nr % per_group // epb, nr % per_group % epb * esize

    def dat(vblocknr):
        blk, off = palloc(vblocknr, desz)
        return u64(block(bmap(dat_inode, blk, lambda p: p)), off)
    first = (32 + cpsz - 1) // cpsz
    cpb = bs // cpsz
    k = last_cno + first - 1
    cp = block(bmap(cp_inode, k // cpb, dat))[k % cpb * cpsz:]
    assert u64(cp, 24) == last_cno
    ifile = cp[64:64 + isz]
    ino = int(arg)
    blk, off = palloc(ino, isz)
    i = block(bmap(ifile, blk, dat))[off:off + isz]
    return "ino=%d mtime=%d.%09d ctime=%d.%09d i_mtime=0x%016x" % (
        ino, s64(i, 24), u32(i, 36), s64(i, 16), u32(i, 32), u64(i, 24))


if __name__ == "__main__":
    fs, path, arg = sys.argv[1:4]
    with open(path, "rb") as f:
        data = f.read()
    print({"minix": minix, "vfat": vfat, "exfat": exfat, "nilfs2": nilfs2}[fs](data, arg))
