#!/usr/bin/env python3
"""udf_decode.py - a small, independent reader of a udf image's files, for
tests/lens/test_layout_udf.sh: udftools 2.3 has no command that prints file
entries or their allocation descriptors. Written from ECMA-167 3rd edition
(part 3: volume structure; part 4: file structure) and OSTA UDF 2.01; it
shares no code with src/format/layout_udf.c.

The volume's geometry comes from the caller (udfinfo's blocksize, PSPACE
and MVDS), so only the file level is decoded here: the Logical Volume
Descriptor in the main sequence gives the File Set Descriptor, whose root
ICB starts a walk of every directory. A file's inode number is what Linux
gives it: the physical block of its file entry.

Usage:
  udf_decode.py IMG BS PSTART MVDS queries
      one line per structure, in 512-byte sectors:
      "FIRST LAST STRUCTURE [OWNER]" (file-set, file-entry, allocation-extent,
      directory, data, symlink), and "# kinds ..." at the end
  udf_decode.py IMG BS PSTART MVDS times INO
      "MSEC MNSEC CSEC CNSEC" from the entry's modification and attribute
      times
"""
import calendar
import struct
import sys


class Image:
    def __init__(self, path, bs, pstart):
        self.f = open(path, "rb")
        self.bs = bs
        self.pstart = pstart

    def block(self, phys, n=1):
        self.f.seek(phys * self.bs)
        return self.f.read(n * self.bs)

    def lblock(self, lbn, n=1):
        return self.block(self.pstart + lbn, n)


def tag_id(d):
    return struct.unpack_from("<H", d, 0)[0]


def find_lvd(img, mvds):
    """ECMA-167 3/10.6: the Logical Volume Descriptor, tag identifier 6."""
    for i in range(16):
        d = img.block(mvds + i)
        if tag_id(d) == 6:
            return d
        if tag_id(d) == 8:
            break
    sys.exit("no LVD in the main sequence")


def long_ad(d, off):
    """4/14.14.2: extent length, lb_addr (block, partition reference)."""
    ln, lbn, pref = struct.unpack_from("<IIH", d, off)
    return ln & 0x3FFFFFFF, ln >> 30, lbn


def allocation_descs(img, area, adtype):
    """4/14.14: the extents (type, length, lbn) of short (8 bytes), long
    (16) or extended (20) descriptors, following type-3 continuations into
    Allocation Extent Descriptors (4/14.5, tag 258). Yields
    ("aed", lbn) for those blocks too."""
    size = {0: 8, 1: 16, 2: 20}[adtype]
    while True:
        nxt = None
        for off in range(0, len(area) - size + 1, size):
            ln = struct.unpack_from("<I", area, off)[0]
            if adtype == 2:
                lbn = struct.unpack_from("<I", area, off + 12)[0]
            else:
                lbn = struct.unpack_from("<I", area, off + 4)[0]
            length, etype = ln & 0x3FFFFFFF, ln >> 30
            if length == 0:
                return
            if etype == 3:
                nxt = lbn
                break
            yield ("ext", etype, length, lbn)
        if nxt is None:
            return
        yield ("aed", 3, img.bs, nxt)
        d = img.lblock(nxt)
        assert tag_id(d) == 258, "not an allocation extent"
        n = struct.unpack_from("<I", d, 20)[0]
        area = d[24 : 24 + n]


def entry(img, lbn):
    """4/14.9 File Entry (tag 261) or 4/14.17 Extended File Entry (266)."""
    d = img.lblock(lbn)
    t = tag_id(d)
    assert t in (261, 266), "block %d: tag %d is no file entry" % (lbn, t)
    ext = t == 266
    hdr = 216 if ext else 176
    l_ea, l_ad = struct.unpack_from("<II", d, hdr - 8)
    s_len, _, s_lbn = long_ad(d, 152)  # 4/14.17.12 streamDirectoryICB
    return {
        "d": d,
        "stream": s_lbn if ext and s_len else None,
        "type": d[27],
        "adtype": struct.unpack_from("<H", d, 34)[0] & 7,
        "size": struct.unpack_from("<Q", d, 56)[0],
        "mtime": d[92:104] if ext else d[84:96],
        "attr": d[116:128] if ext else d[96:108],
        "ads": d[hdr + l_ea : hdr + l_ea + l_ad],
    }


def fids(data):
    """4/14.4 File Identifier Descriptors: (characteristics, icb lbn)."""
    off = 0
    while off + 38 <= len(data):
        assert tag_id(data[off:]) == 257, "no FID at %d" % off
        chars, l_fi = data[off + 18], data[off + 19]
        icb_len, _, icb_lbn = long_ad(data, off + 20)
        l_iu = struct.unpack_from("<H", data, off + 36)[0]
        yield chars, icb_len, icb_lbn
        off += (38 + l_iu + l_fi + 3) // 4 * 4


def q(img, phys, nbytes, what, owner=""):
    per = img.bs // 512
    nblk = (nbytes + img.bs - 1) // img.bs
    print(phys * per, (phys + nblk) * per - 1, what, owner)


def queries(img, mvds):
    lvd = find_lvd(img, mvds)
    fsd_len, _, fsd_lbn = long_ad(lvd, 248)  # 3/10.6.7 logicalVolContentsUse
    q(img, img.pstart + fsd_lbn, fsd_len, "file-set")
    fsd = img.lblock(fsd_lbn)
    assert tag_id(fsd) == 256, "no FSD"
    _, _, root = long_ad(fsd, 400)  # 4/14.1 rootDirectoryICB
    # UDF 2.01 2.3.4 / 3.3.4: the system stream directory (file type 13).
    sys_len, _, sys_stream = long_ad(fsd, 464)
    kinds = {4: "directory", 13: "directory", 5: "data", 12: "symlink"}
    todo = [root] + ([sys_stream] if sys_len else [])
    seen, shown = set(todo), set()
    while todo:
        lbn = todo.pop(0)
        ino = img.pstart + lbn
        e = entry(img, lbn)
        q(img, ino, img.bs, "file-entry", ino)
        if e["stream"] is not None and e["stream"] not in seen:
            seen.add(e["stream"])
            todo.append(e["stream"])
        kind = kinds.get(e["type"])
        if kind is None:
            continue
        shown.add("file-entry")
        if e["adtype"] == 3:
            data = e["ads"]
        else:
            data = b""
            for what, etype, length, elbn in allocation_descs(img, e["ads"], e["adtype"]):
                if what == "aed":
                    q(img, img.pstart + elbn, length, "allocation-extent", ino)
                    shown.add("allocation-extent")
                    continue
                if etype != 2:
                    q(img, img.pstart + elbn, length, kind, ino)
                    shown.add(kind)
                if kind == "directory":
                    blk = img.lblock(elbn, (length + img.bs - 1) // img.bs)
                    data += blk[:length] if etype == 0 else bytes(length)
            data = data[: e["size"]]
        if kind != "directory":
            continue
        for chars, icb_len, child in fids(data):
            if chars & 0x0C or not icb_len or child in seen:
                continue  # parent (0x08) or deleted (0x04)
            seen.add(child)
            todo.append(child)
    print("# kinds", " ".join(sorted(shown)))


def stamp(t):
    """1/7.3 timestamp: type and time zone (minutes, 12 bits signed, when
    the type is 1; -2047 unspecified), year, month, day, hour, minute,
    second, centiseconds, hundreds of microseconds, microseconds."""
    tz, year, mon, day, hh, mm, ss, cs, hus, us = struct.unpack("<HhBBBBBBBB", t)
    off = 0
    if tz >> 12 == 1:
        off = tz & 0xFFF
        if off & 0x800:
            off -= 0x1000
        if off == -2047:
            off = 0
    sec = calendar.timegm((year, mon, day, hh, mm, ss, 0, 0, 0)) - off * 60
    return sec, (cs * 10000 + hus * 100 + us) * 1000


def main():
    img = Image(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    mvds, cmd = int(sys.argv[4]), sys.argv[5]
    if cmd == "queries":
        queries(img, mvds)
    elif cmd == "times":
        e = entry(img, int(sys.argv[6]) - img.pstart)
        print(*stamp(e["mtime"]), *stamp(e["attr"]))
    else:
        sys.exit(__doc__)


main()
