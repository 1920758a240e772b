/* layout_ntfs3.c - the layout map of NTFS as Linux's ntfs3 reads it, from
 * its on-disk format (fs/ntfs3/ntfs.h: struct NTFS_BOOT, MFT_REC, ATTRIB,
 * ATTR_STD_INFO5; fs/ntfs3/run.c: run_unpack's mapping pairs;
 * fs/ntfs3/fsntfs.c: ntfs_fix_post_read's update sequence; little-endian).
 *
 * NTFS keeps everything in files: the Master File Table ($MFT, record 0)
 * is itself a file whose records are the inodes (ntfs3's inode number is
 * the record number, fs/ntfs3/inode.c ntfs_iget5), and the metadata are
 * the system files of records 0 to 15 (enum RECORD_NUM, ntfs.h). The walk
 * reads the boot sector, $MFT's own record at the boot sector's mft_clst
 * (its $DATA runs are the map of every other record, super.c
 * ntfs_fill_super), then every record the MFT's $BITMAP marks in use, and
 * claims each non-resident attribute's clusters for the file whose record
 * (or whose base record, for an extension record) holds it; then the
 * clusters $Bitmap leaves clear are free.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock          the boot sector (NTFS_BOOT, LBA 0)
 *   superblock-backup   its copy in the sector after the volume
 *   inode-table         $MFT's records (unit: the record size), record 0
 *                       first, where the boot sector puts it
 *   mft-mirror          $MFTMirr, the copy of the first records
 *   then per record in use, owner = its (base) record number:
 *   inode-bitmap        $MFT's $BITMAP (which records are in use)
 *   journal             $LogFile
 *   attrdef             $AttrDef
 *   block-bitmap        $Bitmap (which clusters are in use)
 *   boot                $Boot after the boot sector (the boot code)
 *   bad-clusters        $BadClus:$Bad's allocated runs
 *   secure              $Secure:$SDS, the security descriptors
 *   upcase              $UpCase
 *   index               an index that is not a directory's ($Secure's
 *                       $SII and $SDH, $Extend's $O, $Q, $R)
 *   attribute-list      a non-resident $ATTRIBUTE_LIST
 *   directory           a directory's $I30 index blocks and their bitmap
 *   symlink             a non-resident $REPARSE_POINT (ntfs3's symlinks)
 *   data                a file's $DATA streams
 *   xattr               a non-resident $EA (ntfs3's xattrs) or security
 *                       descriptor
 *   free                clusters $Bitmap marks free.
 *
 * Untrusted input: the boot sector's geometry is checked as ntfs3 checks
 * it, records are read through $MFT's runs and bounded by them, every
 * attribute and run is checked against its record and the volume, runs
 * per attribute are bounded by the record's bytes, and no walk recurses.
 * An $MFT that needs an attribute list for its own runs is followed only
 * as far as record 0's runs reach. A damaged image is refused with the
 * place it broke. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define NT_SECTOR     512
#define NT_MAX_RECORD 4096		  /* MAXIMUM_BYTES_PER_MFT (ntfs_fs.h) */
#define NT_MAX_RUNS   (NT_MAX_RECORD / 2) /* a run takes two bytes at least */
#define NT_SPARSE     UINT64_MAX

/* Record numbers (enum RECORD_NUM, ntfs.h). */
enum {
	REC_MFT,
	REC_MIRR,
	REC_LOG,
	REC_VOL,
	REC_ATTR,
	REC_ROOT,
	REC_BITMAP,
	REC_BOOT,
	REC_BAD,
	REC_SECURE,
	REC_UPCASE
};

/* Attribute types (enum ATTR_TYPE, ntfs.h). */
#define ATTR_STD     0x10
#define ATTR_LIST    0x20
#define ATTR_SECURE  0x50
#define ATTR_DATA    0x80
#define ATTR_ALLOC   0xa0
#define ATTR_BITMAP  0xb0
#define ATTR_REPARSE 0xc0
#define ATTR_EA	     0xe0
#define ATTR_END     0xffffffffu

/* Places in struct MFT_REC and struct ATTRIB (ntfs.h). */
#define REC_FIX_OFF   0x04
#define REC_FIX_NUM   0x06
#define REC_ATTR_OFF  0x14
#define REC_FLAGS     0x16 /* RECORD_FLAG_IN_USE 1, RECORD_FLAG_DIR 2 */
#define REC_USED      0x18
#define REC_PARENT    0x20 /* parent_ref: the base record, 0 in a base record */
#define A_SIZE	      0x04
#define A_NONRES      0x08
#define A_NAME_LEN    0x09
#define A_NAME_OFF    0x0a
#define A_RES_SIZE    0x10 /* resident: data_size */
#define A_RES_OFF     0x14 /* resident: data_off */
#define A_SVCN	      0x10 /* non-resident: svcn */
#define A_EVCN	      0x18
#define A_RUN_OFF     0x20
#define A_DATA_SIZE   0x30
#define A_NONRES_HEAD 0x40

struct nt_run {
	uint64_t vcn, lcn, len; /* lcn NT_SPARSE: a hole */
};

struct nt_runs {
	struct nt_run r[NT_MAX_RUNS];
	size_t n;
};

struct ntfs {
	struct lb *b;
	uint32_t cluster, record;
	uint64_t vol_sectors; /* sectors_per_volume */
	uint64_t clusters;    /* of the volume, as far as the image holds it */
	uint64_t mft_lcn;     /* boot sector's mft_clst, mft2_clst */
	uint64_t mirr_lcn;
	uint64_t nrec;	    /* records $MFT's $DATA holds */
	struct nt_runs mft; /* $MFT's $DATA runs (record 0) */
	struct nt_runs run; /* scratch: one attribute's runs */
	uint8_t rec[NT_MAX_RECORD];
};

/* The boot sector's record_size or index_size (NTFS_BOOT): clusters when
 * positive, else a shift of bytes. 0 for a size ntfs3 refuses. */
static uint32_t boot_size(int8_t v, uint32_t cluster)
{
	if (v >= 0)
		return (v && !(v & (v - 1)) && cluster <= NT_MAX_RECORD) ? (uint32_t)v * cluster
									 : 0;
	return -v <= 12 ? 1u << -v : 0; /* MAXIMUM_SHIFT_BYTES_PER_MFT */
}

/* Check the boot sector as ntfs_init_from_boot (super.c) does and set n's
 * geometry. */
static int boot_geometry(struct ntfs *n, const uint8_t *boot)
{
	struct lb *b = n->b;
	uint32_t bps = (uint32_t)boot[0x0c] << 8, spc = boot[0x0d];
	if (boot[0x0b] || bps != NT_SECTOR)
		return lb_fail(b, "%u bytes per sector in the boot sector (Themis reads 512)",
			       lb_le16(boot + 0x0b));
	if (spc > 0x80)
		spc = spc >= 0xf4 ? 1u << (256 - spc) : 0; /* true_sectors_per_clst */
	if (!spc || (spc & (spc - 1)))
		return lb_fail(b, "sectors per cluster %#x in the boot sector", boot[0x0d]);
	n->cluster = bps * spc;
	n->vol_sectors = lb_le64(boot + 0x28);
	n->mft_lcn = lb_le64(boot + 0x30);
	n->mirr_lcn = lb_le64(boot + 0x38);
	n->record = boot_size((int8_t)boot[0x40], n->cluster);
	if (n->record < NT_SECTOR || n->record > NT_MAX_RECORD)
		return lb_fail(b, "MFT record size %d in the boot sector", (int8_t)boot[0x40]);
	uint64_t vol = n->vol_sectors / spc, img = b->size / n->cluster;
	n->clusters = vol < img ? vol : img;
	if (n->mft_lcn >= n->clusters || n->mirr_lcn >= n->clusters)
		return lb_fail(b,
			       "$MFT at cluster %" PRIu64 ", $MFTMirr at %" PRIu64 " of %" PRIu64
			       " clusters",
			       n->mft_lcn, n->mirr_lcn, n->clusters);
	return 0;
}

/* Undo a record's update sequence (ntfs_fix_post_read, fsntfs.c): the
 * last two bytes of each sector are stored in the array at fix_off. A
 * sector whose bytes do not match the sequence number is torn; ntfs3
 * marks the record dirty and reads on, and so does the map. */
static int fixup(struct ntfs *n, uint8_t *rec, uint64_t idx)
{
	uint32_t fo = lb_le16(rec + REC_FIX_OFF), fn = lb_le16(rec + REC_FIX_NUM);
	if ((fo & 1) || fo + 2 * fn > NT_SECTOR || !fn-- || fn * NT_SECTOR > n->record)
		return lb_fail(n->b, "MFT record %" PRIu64 ": update sequence at %u, %u entries",
			       idx, fo, fn);
	for (uint32_t i = 0; i < fn; i++)
		memcpy(rec + (i + 1) * NT_SECTOR - 2, rec + fo + 2 * (i + 1), 2);
	return 0;
}

/* Read bytes [off, off + len) of an attribute through its runs; a hole
 * reads as zeros. */
static int runs_read(struct ntfs *n, const struct nt_runs *x, uint64_t off, uint8_t *buf,
		     size_t len)
{
	while (len) {
		uint64_t vcn = off / n->cluster, in = off % n->cluster;
		const struct nt_run *r = NULL;
		for (size_t i = 0; i < x->n && !r; i++)
			if (vcn >= x->r[i].vcn && vcn - x->r[i].vcn < x->r[i].len)
				r = &x->r[i];
		if (!r)
			return lb_fail(n->b, "byte %" PRIu64 " of an attribute is past its runs",
				       off);
		uint64_t left = (r->len - (vcn - r->vcn)) * n->cluster - in;
		size_t k = left < len ? (size_t)left : len;
		if (r->lcn == NT_SPARSE)
			memset(buf, 0, k);
		else if (lb_read(n->b, (r->lcn + vcn - r->vcn) * n->cluster + in, buf, k))
			return -1;
		buf += k;
		off += k;
		len -= k;
	}
	return 0;
}

/* An le integer of k bytes, sign-extended when sign (run_unpack_s64). */
static uint64_t unpack(const uint8_t *p, unsigned k, bool sign)
{
	uint64_t v = sign && (p[k - 1] & 0x80) ? UINT64_MAX : 0;
	for (unsigned i = k; i--;)
		v = v << 8 | p[i];
	return v;
}

/* The mapping pairs of a non-resident attribute `a` of asize bytes into x
 * (run_unpack, run.c): each a header byte (low nibble: bytes of the
 * length, high nibble: bytes of the signed delta from the previous run's
 * cluster, none for a hole), ending at a zero header. Every run must lie
 * inside the volume and the VCNs inside [svcn, evcn]. */
static int runs_decode(struct ntfs *n, const uint8_t *a, uint32_t asize, struct nt_runs *x,
		       uint64_t ino)
{
	uint32_t ro = lb_le16(a + A_RUN_OFF);
	uint64_t vcn = lb_le64(a + A_SVCN), evcn = lb_le64(a + A_EVCN), lcn = 0;
	x->n = 0;
	if (ro < A_NONRES_HEAD || ro > asize || (evcn + 1 != vcn && evcn < vcn))
		return lb_fail(n->b,
			       "record %" PRIu64 ": runs at %u of %u, VCNs %" PRIu64 " to %" PRIu64,
			       ino, ro, asize, vcn, evcn);
	const uint8_t *p = a + ro, *end = a + asize;
	while (p < end && *p) {
		unsigned ls = *p & 0xf, os = *p >> 4;
		p++;
		if (ls > 8 || os > 8 || (size_t)(end - p) < ls + os || !ls)
			return lb_fail(n->b,
				       "record %" PRIu64 ": run header %#x past the attribute", ino,
				       ls | os << 4);
		uint64_t len = unpack(p, ls, false), at = NT_SPARSE;
		p += ls;
		if (os) {
			lcn += unpack(p, os, true); /* wraps like the kernel's s64 sum */
			p += os;
			at = lcn;
		}
		if (!len || len > evcn + 1 - vcn || x->n == NT_MAX_RUNS ||
		    (at != NT_SPARSE && (at >= n->clusters || len > n->clusters - at)))
			return lb_fail(n->b,
				       "record %" PRIu64 ": run of %" PRIu64 " clusters at %" PRIu64
				       " outside the volume or the attribute",
				       ino, len, at);
		x->r[x->n++] = (struct nt_run){vcn, at, len};
		vcn += len;
	}
	return 0;
}

/* Read record idx of the MFT into rec and undo its update sequence: 0;
 * 1 when it holds no record ("FILE") or one not in use; -1 with b->err. */
static int record_read(struct ntfs *n, uint64_t idx, uint8_t *rec)
{
	if (idx >= n->nrec)
		return lb_fail(n->b, "MFT record %" PRIu64 " is outside the %" PRIu64 " records",
			       idx, n->nrec);
	if (runs_read(n, &n->mft, idx * n->record, rec, n->record))
		return -1;
	if (memcmp(rec, "FILE", 4) || !(lb_le16(rec + REC_FLAGS) & 1))
		return 1;
	return fixup(n, rec, idx);
}

/* The next attribute of a record after *off (struct ATTRIB): 1 with *a and
 * *asize set, 0 at the end marker, -1 with b->err. */
static int attr_next(struct ntfs *n, const uint8_t *rec, uint64_t idx, uint32_t *off,
		     const uint8_t **a, uint32_t *asize)
{
	uint32_t used = lb_le32(rec + REC_USED);
	if (used > n->record)
		used = n->record;
	if (*off + 4 <= used && lb_le32(rec + *off) == ATTR_END)
		return 0;
	if (*off + 0x18 > used)
		return lb_fail(n->b, "record %" PRIu64 ": attribute at %u past its %u bytes", idx,
			       *off, used);
	uint32_t size = lb_le32(rec + *off + A_SIZE);
	const uint8_t *p = rec + *off;
	uint32_t min = p[A_NONRES] ? A_NONRES_HEAD : 0x18;
	if (size < min || size > used - *off || (size & 7) ||
	    lb_le16(p + A_NAME_OFF) + 2u * p[A_NAME_LEN] > size)
		return lb_fail(n->b, "record %" PRIu64 ": attribute at %u of %u bytes", idx, *off,
			       size);
	*a = p;
	*asize = size;
	*off += size;
	return 1;
}

/* Whether the attribute's name is the ASCII name s (UTF-16LE on disk). */
static bool attr_named(const uint8_t *a, const char *s)
{
	size_t len = strlen(s);
	if (a[A_NAME_LEN] != len)
		return false;
	const uint8_t *p = a + lb_le16(a + A_NAME_OFF);
	for (size_t i = 0; i < len; i++)
		if (lb_le16(p + 2 * i) != (uint8_t)s[i])
			return false;
	return true;
}

/* The first attribute of `type` (unnamed, or of any name when any) in the
 * record: 1 with *a set, 0 when none, -1 with b->err. */
static int attr_find(struct ntfs *n, const uint8_t *rec, uint64_t idx, uint32_t type, bool any,
		     const uint8_t **a, uint32_t *asize)
{
	uint32_t off = lb_le16(rec + REC_ATTR_OFF);
	for (int rc; (rc = attr_next(n, rec, idx, &off, a, asize));)
		if (rc < 0 || (lb_le32(*a) == type && (any || !(*a)[A_NAME_LEN])))
			return rc;
	return 0;
}

/* Read the boot sector and $MFT's record 0 where the boot sector puts it,
 * and keep $MFT's runs and record count. */
static int ntfs_open(struct lb *b, struct ntfs *n)
{
	uint8_t boot[NT_SECTOR];
	n->b = b;
	if (lb_read(b, 0, boot, sizeof(boot)) || boot_geometry(n, boot))
		return -1;
	if (lb_read(b, n->mft_lcn * n->cluster, n->rec, n->record))
		return -1;
	if (memcmp(n->rec, "FILE", 4) || fixup(n, n->rec, 0))
		return lb_fail(b, "no MFT record at cluster %" PRIu64, n->mft_lcn);
	const uint8_t *a;
	uint32_t asize;
	int rc = attr_find(n, n->rec, 0, ATTR_DATA, false, &a, &asize);
	if (rc <= 0 || !a[A_NONRES] || lb_le64(a + A_SVCN))
		return rc < 0 ? -1 : lb_fail(b, "$MFT has no non-resident $DATA in record 0");
	if (runs_decode(n, a, asize, &n->mft, REC_MFT))
		return -1;
	uint64_t have = 0;
	for (size_t i = 0; i < n->mft.n; i++)
		have += n->mft.r[i].len;
	uint64_t size = lb_le64(a + A_DATA_SIZE) / n->record;
	n->nrec = size < have * n->cluster / n->record ? size : have * n->cluster / n->record;
	return 0;
}

/* What a non-resident attribute of record `owner` holds (see the top). */
static const char *attr_what(uint64_t owner, const uint8_t *a)
{
	static const char *const sys_data[] = {
	    [REC_MFT] = "inode-table",	[REC_MIRR] = "mft-mirror",     [REC_LOG] = "journal",
	    [REC_ATTR] = "attrdef",	[REC_BITMAP] = "block-bitmap", [REC_BOOT] = "boot",
	    [REC_BAD] = "bad-clusters", [REC_SECURE] = "secure",       [REC_UPCASE] = "upcase"};
	switch (lb_le32(a)) {
	case ATTR_DATA:
		if (owner <= REC_UPCASE && sys_data[owner])
			return sys_data[owner];
		return lb_kind_of_mode(0100000);
	case ATTR_BITMAP:
		if (owner == REC_MFT)
			return "inode-bitmap";
		/* An index's bitmap goes with its blocks. */
		return attr_named(a, "$I30") ? lb_kind_of_mode(0040000) : "index";
	case ATTR_ALLOC: return attr_named(a, "$I30") ? lb_kind_of_mode(0040000) : "index";
	case ATTR_REPARSE: return lb_kind_of_mode(0120000);
	case ATTR_LIST: return "attribute-list";
	case ATTR_EA:
	case ATTR_SECURE: return "xattr";
	default: return lb_kind_of_mode(0100000);
	}
}

/* Claim every non-resident attribute of one record in use. */
static int record_claims(struct ntfs *n, uint64_t idx)
{
	uint64_t owner =
	    lb_le64(n->rec + REC_PARENT) ? lb_le64(n->rec + REC_PARENT) & 0xffffffffffffu : idx;
	uint32_t off = lb_le16(n->rec + REC_ATTR_OFF), asize;
	const uint8_t *a;
	for (int rc; (rc = attr_next(n, n->rec, idx, &off, &a, &asize));) {
		if (rc < 0)
			return -1;
		if (!a[A_NONRES])
			continue;
		if (runs_decode(n, a, asize, &n->run, idx))
			return -1;
		const char *what = attr_what(owner, a);
		uint32_t unit = owner == REC_MFT && lb_le32(a) == ATTR_DATA ? n->record : 0;
		for (size_t i = 0; i < n->run.n; i++) {
			const struct nt_run *r = &n->run.r[i];
			if (r->lcn != NT_SPARSE && lb_add(n->b, r->lcn * n->cluster,
							  r->len * n->cluster, what, unit, owner))
				return -1;
		}
	}
	return 0;
}

/* The bytes [0, len) of record idx's unnamed attribute `type`, resident
 * or not, into a malloc'd *out (zeros past the attribute's data). */
static int attr_load(struct ntfs *n, uint64_t idx, uint32_t type, uint8_t **out, size_t len)
{
	const uint8_t *a;
	uint32_t asize;
	*out = NULL;
	int rc = record_read(n, idx, n->rec);
	if (rc > 0)
		return lb_fail(n->b, "MFT record %" PRIu64 " is not in use", idx);
	if (!rc)
		rc = attr_find(n, n->rec, idx, type, false, &a, &asize);
	if (rc <= 0)
		return rc < 0 ? -1
			      : lb_fail(n->b, "record %" PRIu64 ": no attribute %#x", idx, type);
	uint8_t *buf = calloc(1, len ? len : 1);
	if (!buf)
		return lb_fail(n->b, "out of memory for %zu bytes", len);
	*out = buf;
	if (a[A_NONRES]) {
		uint64_t size = lb_le64(a + A_DATA_SIZE);
		if (runs_decode(n, a, asize, &n->run, idx))
			return -1;
		return runs_read(n, &n->run, 0, buf, size < len ? (size_t)size : len);
	}
	uint32_t ro = lb_le16(a + A_RES_OFF), rs = lb_le32(a + A_RES_SIZE);
	if (ro > asize || rs > asize - ro)
		return lb_fail(n->b, "record %" PRIu64 ": resident value past its attribute", idx);
	memcpy(buf, a + ro, rs < len ? rs : len);
	return 0;
}

/* Every record $MFT's $BITMAP marks in use. */
static int records(struct ntfs *n)
{
	uint8_t *map;
	int rc = attr_load(n, REC_MFT, ATTR_BITMAP, &map, (size_t)((n->nrec + 7) / 8));
	for (uint64_t i = 0; !rc && i < n->nrec; i++) {
		if (!(map[i / 8] & 1u << (i % 8)))
			continue;
		rc = record_read(n, i, n->rec);
		if (!rc)
			rc = record_claims(n, i);
		else if (rc > 0)
			rc = 0; /* marked but never written: nothing to claim */
	}
	free(map);
	return rc;
}

/* Free: the clusters $Bitmap's bits leave clear. */
static int free_clusters(struct ntfs *n)
{
	uint8_t *map;
	int rc = attr_load(n, REC_BITMAP, ATTR_DATA, &map, (size_t)((n->clusters + 7) / 8));
	uint64_t run = 0;
	for (uint64_t c = 0; !rc && c <= n->clusters; c++) {
		if (c < n->clusters && !(map[c / 8] & 1u << (c % 8))) {
			run++;
			continue;
		}
		if (run)
			rc = lb_add(n->b, (c - run) * n->cluster, run * n->cluster, "free", 0, 0);
		run = 0;
	}
	free(map);
	return rc;
}

/* The fixed places: the boot sector and its backup, $MFT's first record
 * and $MFTMirr where the boot sector puts them. */
static int fixed(struct ntfs *n)
{
	struct lb *b = n->b;
	int rc = lb_add(b, 0, NT_SECTOR, "superblock", 0, 0);
	if (!rc && n->vol_sectors < b->size / NT_SECTOR)
		rc = lb_add(b, n->vol_sectors * NT_SECTOR, NT_SECTOR, "superblock-backup", 0, 0);
	if (!rc)
		rc = lb_add(b, n->mft_lcn * n->cluster, n->record, "inode-table", n->record, 0);
	if (!rc)
		rc = lb_add(b, n->mirr_lcn * n->cluster, n->record, "mft-mirror", 0, REC_MIRR);
	return rc;
}

int layout_ntfs3_std(struct lb *b, uint64_t ino, uint8_t si[48])
{
	struct ntfs *n = calloc(1, sizeof(*n));
	if (!n)
		return lb_fail(b, "out of memory");
	const uint8_t *a;
	uint32_t asize;
	int rc = ntfs_open(b, n);
	if (!rc)
		rc = record_read(n, ino, n->rec);
	if (rc > 0 || (!rc && lb_le64(n->rec + REC_PARENT)))
		rc = lb_fail(b, "MFT record %" PRIu64 " is not a file's record in use", ino);
	if (!rc)
		rc = attr_find(n, n->rec, ino, ATTR_STD, false, &a, &asize);
	if (!rc)
		rc = lb_fail(b, "MFT record %" PRIu64 " has no $STANDARD_INFORMATION", ino);
	if (rc > 0) {
		uint32_t ro = lb_le16(a + A_RES_OFF), rs = lb_le32(a + A_RES_SIZE);
		rc = 0;
		/* inode.c ntfs_read_mft refuses a non-resident or short one. */
		if (a[A_NONRES] || ro > asize || rs > asize - ro || rs < 48)
			rc = lb_fail(b, "MFT record %" PRIu64 ": $STANDARD_INFORMATION of %u bytes",
				     ino, rs);
		else
			memcpy(si, a + ro, 48);
	}
	free(n);
	return rc;
}

int layout_ntfs3(struct lb *b)
{
	struct ntfs *n = calloc(1, sizeof(*n));
	if (!n)
		return lb_fail(b, "out of memory");
	int rc = ntfs_open(b, n);
	if (!rc) {
		b->l->block_size = n->cluster;
		b->l->inode_size = n->record;
		rc = fixed(n);
	}
	if (!rc)
		rc = records(n);
	if (!rc)
		rc = free_clusters(n);
	free(n);
	return rc;
}
