/* layout_nilfs2.c - the layout map of nilfs2, from its on-disk format
 * (Linux's include/uapi/linux/nilfs2_ondisk.h; the log walk follows
 * fs/nilfs2/segment.c, which writes the summaries, and recovery.c, which
 * reads them back; little-endian).
 *
 * nilfs2 is log-structured: the device is a row of segments, each filled
 * from its start by logs (partial segments). A log is its summary blocks
 * (a nilfs_segment_summary, then per file a nilfs_finfo followed by one
 * binfo per block), the blocks those entries describe, in the same order
 * (each file's data blocks, then its btree node blocks), and, when
 * NILFS_SS_SR is set, a super root as its last block. Logs of old
 * checkpoints stay in their segments until the cleaner reclaims the
 * segment, so the map names what each block was WRITTEN as, live or not:
 * an old log's blocks are still named by the inode that wrote them.
 *
 * Whether an inode's data is a directory comes from its mode in the ifile
 * of the checkpoint that wrote the data. The ifile's and the sufile's
 * blocks are themselves found in the logs: of the copies of a file block,
 * the newest (highest checkpoint, then segment sequence, then position)
 * up to a checkpoint is that checkpoint's, so no DAT lookup is needed.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock, superblock-backup
 *   segment-summary     a log's summary blocks (owner = the segment number)
 *   super-root          a log's super root block
 *   dat, checkpoint-file, segment-usage-file, inode-file
 *                       data blocks of inodes 3, 4, 5, 6 (owner = inode)
 *   directory, data, symlink  data blocks of any other inode (owner = inode)
 *   btree               btree node blocks of any inode (owner = inode)
 *   free                segments the sufile marks clean (not walked)
 *   segment             the rest of each segment: past its last valid log,
 *                       or stale logs of an older use (owner = segment)
 *
 * Untrusted input: a log is walked only when its magic, its segment's
 * sequence number, and every count in it are consistent (nblocks inside
 * the segment, summary bytes inside the log, finfo and binfo entries
 * inside the summary, the finfo block counts adding up to the log); the
 * first log that is not ends the segment's walk, as it ends the kernel's
 * recovery scan, and is validated whole before any of it is claimed. Each
 * walk advances by at least one block, so it is linear in the device. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define NILFS_SEGSUM_MAGIC 0x1eaffa11u
#define NILFS_SS_SR	   0x0004u
#define NILFS_DAT_INO	   3u
#define NILFS_CPFILE_INO   4u
#define NILFS_SUFILE_INO   5u
#define NILFS_IFILE_INO	   6u
#define SS_MIN_BYTES	   56u /* through ss_pad: the fields read here */
#define FINFO_BYTES	   24u
#define SUFILE_HDR_BYTES   24u /* struct nilfs_sufile_header */
#define INODE_MODE_OFF	   48u /* i_mode in struct nilfs_inode */

/* A data block of the sufile or the ifile, seen in some log. */
struct mdblock {
	uint64_t ino, blkoff, cno, seq, blocknr;
};

struct nilfs {
	struct lb *b;
	uint64_t bs, per_seg, nseg, first;
	uint32_t inode_size, su_size;
	struct mdblock *md; /* sorted after the first pass */
	size_t nmd, capmd;
	uint8_t *sum;	   /* the summary block under the cursor */
	uint8_t *blk;	   /* an ifile or sufile block */
	uint64_t blk_addr; /* which one (UINT64_MAX: none) */
	struct {	   /* a run of blocks waiting to be claimed */
		uint64_t start, len, owner;
		const char *what;
	} run;
};

/* One log's header, checked against its segment. */
struct log {
	uint64_t seg, pseg, seq, sumblks, payload_end;
	uint32_t nblocks, nfinfo, sumbytes, ss_bytes;
	bool sr;
};

/* Where the summary is read: entries never straddle a block (segment.c's
 * nilfs_segctor_map_segsum_entry moves an entry that would not fit to the
 * next block, and recovery.c's nilfs_read_summary_info reads it there). */
struct cursor {
	uint64_t blk; /* index of the summary block in the log */
	uint32_t off;
	uint64_t loaded; /* index of the block in n->sum, or UINT64_MAX */
};

enum pass { DRY, COLLECT, CLAIM };

static uint64_t seg_start(const struct nilfs *n, uint64_t s)
{
	return s ? s * n->per_seg : n->first;
}

static int claim_flush(struct nilfs *n)
{
	int rc = 0;
	if (n->run.len)
		rc = lb_add(n->b, n->run.start * n->bs, n->run.len * n->bs, n->run.what, 0,
			    n->run.owner);
	n->run.len = 0;
	return rc;
}

/* Claim one block, merged with the run before it when it continues it. */
static int claim(struct nilfs *n, uint64_t blocknr, const char *what, uint64_t owner)
{
	if (n->run.len && n->run.start + n->run.len == blocknr && n->run.what == what &&
	    n->run.owner == owner) {
		n->run.len++;
		return 0;
	}
	if (claim_flush(n))
		return -1;
	n->run.start = blocknr;
	n->run.len = 1;
	n->run.what = what;
	n->run.owner = owner;
	return 0;
}

/* The next entry of `size` bytes of the summary: a pointer into n->sum,
 * NULL when the summary ends first (*rc = 1) or a read fails (*rc = -1). */
static const uint8_t *cursor_next(struct nilfs *n, const struct log *lg, struct cursor *c,
				  uint32_t size, int *rc)
{
	if (c->off + size > n->bs) {
		c->blk++;
		c->off = 0;
	}
	if (c->blk * n->bs + c->off + size > lg->sumbytes) {
		*rc = 1;
		return NULL;
	}
	if (c->loaded != c->blk) {
		if (lb_read(n->b, (lg->pseg + c->blk) * n->bs, n->sum, n->bs)) {
			*rc = -1;
			return NULL;
		}
		c->loaded = c->blk;
	}
	const uint8_t *p = n->sum + c->off;
	c->off += size;
	return p;
}

static const char *data_name(uint64_t ino)
{
	switch (ino) {
	case NILFS_DAT_INO: return "dat";
	case NILFS_CPFILE_INO: return "checkpoint-file";
	case NILFS_SUFILE_INO: return "segment-usage-file";
	case NILFS_IFILE_INO: return "inode-file";
	default: return NULL; /* an ordinary inode: data or directory */
	}
}

static int mdblock_cmp(const void *a, const void *b)
{
	const struct mdblock *x = a, *y = b;
	const uint64_t kx[] = {x->ino, x->blkoff, x->cno, x->seq, x->blocknr};
	const uint64_t ky[] = {y->ino, y->blkoff, y->cno, y->seq, y->blocknr};
	for (int i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* The newest copy of block `blkoff` of metadata file `ino` written for a
 * checkpoint up to `cno`, or NULL. */
static const struct mdblock *md_find(const struct nilfs *n, uint64_t ino, uint64_t blkoff,
				     uint64_t cno)
{
	size_t lo = 0, hi = n->nmd; /* the first entry past (ino, blkoff, cno) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mdblock *m = &n->md[mid];
		if (m->ino != ino	  ? m->ino < ino
		    : m->blkoff != blkoff ? m->blkoff < blkoff
					  : m->cno <= cno)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || n->md[lo - 1].ino != ino || n->md[lo - 1].blkoff != blkoff)
		return NULL;
	return &n->md[lo - 1];
}

/* Bytes at `off` of block `blkoff` of file `ino` as of checkpoint `cno`:
 * 0 (into out), 1 when no log holds that block, -1 when a read fails. */
static int md_read(struct nilfs *n, uint64_t ino, uint64_t blkoff, uint64_t cno, uint32_t off,
		   void *out, uint32_t len)
{
	const struct mdblock *m = md_find(n, ino, blkoff, cno);
	if (!m)
		return 1;
	if (n->blk_addr != m->blocknr) {
		n->blk_addr = UINT64_MAX;
		if (lb_read(n->b, m->blocknr * n->bs, n->blk, n->bs))
			return -1;
		n->blk_addr = m->blocknr;
	}
	memcpy(out, n->blk + off, len);
	return 0;
}

/* Where inode ino lives in the ifile: its block and its byte in it. The
 * ifile is a persistent allocator file (fs/nilfs2/alloc.c): per
 * descriptor block, groups of a bitmap block and entry blocks. */
static void ifile_place(const struct nilfs *n, uint64_t ino, uint64_t *blkoff, uint32_t *off)
{
	uint64_t per_group = n->bs * 8, per_block = n->bs / n->inode_size;
	uint64_t blocks_per_group = (per_group + per_block - 1) / per_block + 1;
	uint64_t groups_per_desc = n->bs / 4,
		 blocks_per_desc = groups_per_desc * blocks_per_group + 1;
	uint64_t group = ino / per_group, in_group = ino % per_group;
	*blkoff = group / groups_per_desc * blocks_per_desc + 1 +
		  group % groups_per_desc * blocks_per_group + 1 + in_group / per_block;
	*off = (uint32_t)(in_group % per_block * n->inode_size);
}

/* "directory", "symlink" or "data" by the inode's mode in the ifile as of checkpoint
 * cno, the one that wrote the blocks (an inode number freed and reused
 * later may be a directory now and a file then); NULL when a read fails. */
static const char *inode_kind(struct nilfs *n, uint64_t ino, uint64_t cno)
{
	uint64_t blkoff;
	uint32_t off;
	ifile_place(n, ino, &blkoff, &off);
	uint8_t mode[2];
	int rc = md_read(n, NILFS_IFILE_INO, blkoff, cno, off + INODE_MODE_OFF, mode, 2);
	if (rc < 0)
		return NULL;
	/* No copy of its ifile block: no mode to go by, so plain data. */
	return rc ? "data" : lb_kind_of_mode(lb_le16(mode));
}

/* The sufile's flags of segment s: 0 (into *flags), 1 when unknown, -1. */
static int segment_flags(struct nilfs *n, uint64_t s, uint32_t *flags)
{
	uint64_t per_block = n->bs / n->su_size;
	uint64_t t = s + (SUFILE_HDR_BYTES + n->su_size - 1) / n->su_size;
	uint8_t f[4];
	int rc = md_read(n, NILFS_SUFILE_INO, t / per_block, UINT64_MAX,
			 (uint32_t)(t % per_block * n->su_size + 12), f, 4);
	if (!rc)
		*flags = lb_le32(f);
	return rc;
}

static int md_add(struct nilfs *n, const struct mdblock *m)
{
	if (n->nmd == n->capmd) {
		size_t cap = n->capmd ? 2 * n->capmd : 64;
		struct mdblock *p = realloc(n->md, cap * sizeof(*p));
		if (!p)
			return lb_fail(n->b, "out of memory for %zu metadata blocks", cap);
		n->md = p;
		n->capmd = cap;
	}
	n->md[n->nmd++] = *m;
	return 0;
}

/* One block the summary describes: remembered (COLLECT) or claimed. */
static int visit_block(struct nilfs *n, enum pass p, const struct log *lg, uint64_t ino,
		       uint64_t cno, bool data, const uint8_t *binfo, uint64_t blocknr,
		       const char *kind)
{
	if (p == COLLECT) {
		if (!data || (ino != NILFS_SUFILE_INO && ino != NILFS_IFILE_INO))
			return 0;
		/* The root metadata files have no past versions (the kernel writes
		 * cno 0 for them, mkfs 1): only the order of the logs tells. */
		struct mdblock m = {ino, lb_le64(binfo + 8), ino == NILFS_SUFILE_INO ? 0 : cno,
				    lg->seq, blocknr};
		return md_add(n, &m);
	}
	if (p == CLAIM)
		return claim(n, blocknr, data ? kind : "btree", ino);
	return 0;
}

/* One file's entries (its finfo already read): 0, 1 (inconsistent), -1. */
static int walk_file(struct nilfs *n, enum pass p, const struct log *lg, struct cursor *c,
		     const uint8_t *finfo, uint64_t *blocknr)
{
	uint64_t ino = lb_le64(finfo), cno = lb_le64(finfo + 8);
	uint32_t nblocks = lb_le32(finfo + 16), ndata = lb_le32(finfo + 20);
	if (!nblocks || ndata > nblocks || nblocks > lg->payload_end - *blocknr)
		return 1;
	/* binfo sizes (segment.c's nilfs_sc_file_ops and nilfs_sc_dat_ops):
	 * the DAT's data blocks carry a blkoff, its nodes a binfo_dat; any
	 * other file's data blocks a binfo_v, its nodes a vblocknr. */
	uint32_t dsize = ino == NILFS_DAT_INO ? 8 : 16, nsize = ino == NILFS_DAT_INO ? 16 : 8;
	const char *kind = data_name(ino);
	if (!kind && p == CLAIM && ndata && !(kind = inode_kind(n, ino, cno)))
		return -1;
	for (uint32_t j = 0; j < nblocks; j++, (*blocknr)++) {
		int rc = 0;
		const uint8_t *binfo = cursor_next(n, lg, c, j < ndata ? dsize : nsize, &rc);
		if (!binfo)
			return rc;
		if (visit_block(n, p, lg, ino, cno, j < ndata, binfo, *blocknr, kind))
			return -1;
	}
	return 0;
}

/* One log, header checked: 0, 1 (inconsistent: nothing claimed when the
 * DRY pass says so first), -1 (a read or an allocation failed). */
static int walk_log(struct nilfs *n, enum pass p, const struct log *lg)
{
	struct cursor c = {.off = lg->ss_bytes, .loaded = UINT64_MAX};
	uint64_t blocknr = lg->pseg + lg->sumblks;
	for (uint32_t i = 0; i < lg->nfinfo; i++) {
		int rc = 0;
		const uint8_t *finfo = cursor_next(n, lg, &c, FINFO_BYTES, &rc);
		uint8_t copy[FINFO_BYTES]; /* the cursor may reload n->sum */
		if (!finfo)
			return rc;
		memcpy(copy, finfo, sizeof(copy));
		if ((rc = walk_file(n, p, lg, &c, copy, &blocknr)))
			return rc;
	}
	if (blocknr != lg->payload_end)
		return 1;
	if (p != CLAIM)
		return 0;
	for (uint64_t k = 0; k < lg->sumblks; k++)
		if (claim(n, lg->pseg + k, "segment-summary", lg->seg))
			return -1;
	return lg->sr && claim(n, lg->payload_end, "super-root", 0) ? -1 : 0;
}

/* The header of the log at block pseg of segment seg (ending at block
 * end): 0, 1 when it is no log of this segment's current use, -1. */
static int read_log(struct nilfs *n, uint64_t seg, uint64_t pseg, uint64_t end, bool first,
		    struct log *lg)
{
	uint8_t ss[SS_MIN_BYTES];
	if (lb_read(n->b, pseg * n->bs, ss, sizeof(ss)))
		return -1;
	uint64_t seq = lb_le64(ss + 16);
	if (lb_le32(ss + 8) != NILFS_SEGSUM_MAGIC || (!first && seq != lg->seq))
		return 1;
	*lg = (struct log){.seg = seg,
			   .pseg = pseg,
			   .seq = seq,
			   .nblocks = lb_le32(ss + 40),
			   .nfinfo = lb_le32(ss + 44),
			   .sumbytes = lb_le32(ss + 48),
			   .ss_bytes = lb_le16(ss + 12),
			   .sr = lb_le16(ss + 14) & NILFS_SS_SR};
	if (!lg->nblocks || lg->nblocks > end - pseg || lg->ss_bytes < SS_MIN_BYTES ||
	    lg->ss_bytes > n->bs || lg->sumbytes < lg->ss_bytes)
		return 1;
	lg->sumblks = (lg->sumbytes + n->bs - 1) / n->bs;
	if (lg->sumblks + lg->sr > lg->nblocks || lg->nfinfo > lg->nblocks - lg->sumblks)
		return 1;
	lg->payload_end = pseg + lg->nblocks - lg->sr;
	return 0;
}

/* Segment s's logs, from its start while they are valid and of one use. */
static int walk_segment(struct nilfs *n, enum pass p, uint64_t s)
{
	uint64_t end = (s + 1) * n->per_seg;
	struct log lg = {0};
	for (uint64_t pseg = seg_start(n, s); pseg < end; pseg += lg.nblocks) {
		int rc = read_log(n, s, pseg, end, pseg == seg_start(n, s), &lg);
		if (!rc)
			rc = walk_log(n, DRY, &lg);
		if (rc)
			return rc < 0 ? -1 : 0; /* an invalid log ends the trail */
		if (p != DRY && (rc = walk_log(n, p, &lg)))
			return rc < 0 ? -1 : 0;
	}
	return 0;
}

/* All segments: the logs of those in use, then "free" and "segment". */
static int claim_segments(struct nilfs *n)
{
	int rc = 0;
	for (uint64_t s = 0; s < n->nseg && !rc; s++) {
		uint32_t flags = 1;
		rc = segment_flags(n, s, &flags) < 0 ? -1 : 0;
		if (!rc && flags)
			rc = walk_segment(n, CLAIM, s);
		if (!rc)
			rc = claim_flush(n);
		uint64_t start = seg_start(n, s), end = (s + 1) * n->per_seg;
		if (!rc)
			rc = lb_add(n->b, start * n->bs, (end - start) * n->bs,
				    flags ? "segment" : "free", 0, flags ? s : 0);
	}
	return rc;
}

/* Every log's copies of the sufile's and the ifile's blocks, sorted. */
static int nilfs_collect(struct nilfs *n)
{
	for (uint64_t s = 0; s < n->nseg; s++)
		if (walk_segment(n, COLLECT, s))
			return -1;
	if (n->nmd)
		qsort(n->md, n->nmd, sizeof(*n->md), mdblock_cmp);
	return 0;
}

/* Read and check the superblock, claim it and its mirror, and set up n:
 * 0, or -1 with b->err. nilfs_close frees what n holds either way. */
static int nilfs_open(struct lb *b, struct nilfs *n)
{
	*n = (struct nilfs){.b = b, .blk_addr = UINT64_MAX};
	uint8_t sb[160];
	if (lb_read(b, 1024, sb, sizeof(sb)))
		return -1;
	uint32_t log_bs = lb_le32(sb + 20), per_seg = lb_le32(sb + 48);
	uint64_t nseg = lb_le64(sb + 24), devsize = lb_le64(sb + 32), first = lb_le64(sb + 40);
	uint16_t inode_size = lb_le16(sb + 0x90), su_size = lb_le16(sb + 0x96);
	if (log_bs > 6 || per_seg < 16)
		return lb_fail(b, "block size 2^%u KiB, %u blocks per segment in the superblock",
			       log_bs, per_seg);
	uint64_t bs = 1024ull << log_bs;
	if (devsize > b->size)
		return lb_fail(b,
			       "device of %" PRIu64 " bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       devsize, b->size);
	if (!nseg || nseg > devsize / bs / per_seg || first >= per_seg)
		return lb_fail(b,
			       "%" PRIu64 " segments of %u blocks from block %" PRIu64
			       " in %" PRIu64 " bytes",
			       nseg, per_seg, first, devsize);
	if (inode_size < 128 || inode_size > bs || su_size < 16 || su_size > bs)
		return lb_fail(b, "inode size %u, segment usage size %u in the superblock",
			       inode_size, su_size);
	b->l->block_size = (uint32_t)bs;
	b->l->inode_size = inode_size;
	int rc = lb_add(b, 1024, 1024, "superblock", 0, 0);
	/* The second superblock: NILFS_SB2_OFFSET_BYTES, the last 4 KiB of the device. */
	if (!rc && devsize >= 8192)
		rc = lb_add(b, ((devsize >> 12) - 1) << 12, 1024, "superblock-backup", 0, 0);
	n->bs = bs;
	n->per_seg = per_seg;
	n->nseg = nseg;
	n->first = first;
	n->inode_size = inode_size;
	n->su_size = su_size;
	n->sum = malloc(bs);
	n->blk = malloc(bs);
	if (!rc && (!n->sum || !n->blk))
		rc = lb_fail(b, "out of memory");
	return rc;
}

static void nilfs_close(struct nilfs *n)
{
	free(n->sum);
	free(n->blk);
	free(n->md);
}

int layout_nilfs2_inode(struct lb *b, uint64_t ino, uint8_t *out, uint32_t len)
{
	struct nilfs n;
	int rc = nilfs_open(b, &n);
	if (!rc && len > n.inode_size)
		rc = lb_fail(b, "inodes of %u bytes, not %u", n.inode_size, len);
	if (!rc)
		rc = nilfs_collect(&n);
	if (!rc) {
		uint64_t blkoff;
		uint32_t off;
		ifile_place(&n, ino, &blkoff, &off);
		rc = md_read(&n, NILFS_IFILE_INO, blkoff, UINT64_MAX, off, out, len);
		if (rc > 0)
			rc = lb_fail(b, "inode %" PRIu64 ": no log holds its ifile block %" PRIu64,
				     ino, blkoff);
	}
	nilfs_close(&n);
	return rc;
}

int layout_nilfs2(struct lb *b)
{
	struct nilfs n;
	int rc = nilfs_open(b, &n);
	if (!rc)
		rc = nilfs_collect(&n);
	if (!rc)
		rc = claim_segments(&n);
	nilfs_close(&n);
	return rc;
}
