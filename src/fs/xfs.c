/* xfs.c - xfs (fs.h): a v5 filesystem with bigtime (mkfs.xfs's default),
 * its field tables (fields.c) and inodes located from their numbers by the
 * superblock's geometry. */
#include "../tools/corrupt_target.h"
#include "../format/fields.h"
#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_xfs(const uint8_t *b, size_t n)
{
	return n >= 4 && b[0] == 'X' && b[1] == 'F' && b[2] == 'S' && b[3] == 'B';
}

/* The byte offset of inode `ino`, from the superblock's geometry; 0 when it
 * lies outside the image. */
static uint64_t xfs_inode_at(const struct corrupt_image *im, uint64_t ino, uint32_t *isz)
{
	uint8_t sb[128];
	if (im->size < sizeof(sb) || im->read(im->ctx, 0, sb, sizeof(sb)))
		return 0;
	uint32_t bs = lb_be32(sb + 4), agblocks = lb_be32(sb + 84);
	uint32_t inopblog = sb[123], agblklog = sb[124];
	*isz = lb_be16(sb + 104);
	if (bs < 512 || *isz < 256 || inopblog > 8 || agblklog > 32 || !agblocks)
		return 0;
	uint64_t agno = ino >> (agblklog + inopblog);
	uint64_t agbno = (ino >> inopblog) & ((1ULL << agblklog) - 1);
	uint64_t idx = ino & ((1ULL << inopblog) - 1);
	uint64_t off = (agno * agblocks + agbno) * bs + idx * *isz;
	return off + *isz <= im->size ? off : 0;
}

/* sb_rootino; 0 when the superblock cannot be read. */
static uint64_t xfs_root_ino(const struct corrupt_image *im)
{
	uint8_t sb[64];
	return im->size >= sizeof(sb) && !im->read(im->ctx, 0, sb, sizeof(sb)) ? lb_be64(sb + 56)
									       : 0;
}

static const struct fs_field_owner xfs_fields[] = {
    {"superblock", "superblock", &field_xfs_sb, "sb_magicnum"},
    {"superblock-backup", "superblock-backup", &field_xfs_sb, "sb_magicnum"},
    {"agf", "ag-header", &field_xfs_agf, "agf_magicnum"},
    {"agi", "ag-header", &field_xfs_agi, "agi_magicnum"},
    {"agfl", "ag-header", &field_xfs_agfl, "agfl_magicnum"},
    {"inode", NULL, &field_xfs_dinode, "di_mode"},
};

/* XFS_BIGTIME_TIME_MAX rounds down to a multiple of 4 on-disk seconds:
 * 2486-07-02T20:20:24Z. */
#define XFS_BIGTIME_MAX 16299260424LL

static const struct fs_clock_variant xfs_clock[] = {
    {"xfs", "xfs", "-m bigtime=0", 1, -2147483648LL, 2147483647LL},
    {"xfs-bigtime", "xfs", "-m bigtime=1", 1, -2147483648LL, XFS_BIGTIME_MAX},
};

const struct fs_desc fs_xfs = {
    .name = "xfs",
    .about = "SGI's journaling filesystem, v5 with metadata CRCs and bigtime (to 2486)",
    .image_mib = 300,
    .mkfs = "mkfs.xfs -q -f -m uuid=$MKFS_UUID IMG",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = -2147483648LL,
    .tmax = XFS_BIGTIME_MAX,
    .clock = xfs_clock,
    .nclock = sizeof(xfs_clock) / sizeof(xfs_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "metadata log: each namespace operation one transaction, committed in "
		 "order; fsync forces the log (fs/xfs/xfs_file.c)",
    /* xfs_repair sizes its buffer cache's hash by the host's memory (a
     * table of millions of buckets on 24 GiB, zeroed at every run): on a
     * 300 MiB image 128 buckets give the same findings in 36 ms instead of
     * 86. Its prefetch threads (-P off) only read ahead what the checks
     * read anyway: a fifth of its run on an image this small. Its phase 2
     * scans the AGs with 32 threads by default, whose creation cost more
     * than the scan: one does it in 20 ms a run instead of 50. */
    .fsck = {"xfs_repair", "-n", "-f", "-P", "-o", "bhash=128,phase2_threads=1"},
    .csum = FS_CSUM_IF_FIELDS,
    .layout = layout_xfs,
    .rawtime = rawtime_xfs,
    .structures = "superblock superblock-backup agf agi agfl free-list free-space-btree "
		  "inode-btree refcount-btree inode inode-chunk directory log data free",
    .fields = xfs_fields,
    .nfields = sizeof(xfs_fields) / sizeof(xfs_fields[0]),
    .inode_at = xfs_inode_at,
    .root_ino = xfs_root_ino,
    .probe = probe_xfs,
};
