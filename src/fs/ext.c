/* ext.c - ext2, ext3 and ext4 (fs.h): three drivers' descriptors over one
 * on-disk family, which shares its magic, its parsers (layout_ext.c,
 * rawtime_ext.c, fields.c) and its field tables. The three are told apart
 * by feature flags, as the kernel would mount them by default. */
#include <string.h>

#include "../tools/corrupt_target.h"
#include "../format/fields.h"
#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

/* mke2fs with a fixed UUID and directory hash seed, root owned by root. */
#define EXT_MKFS(tool) #tool " -q -F -U $MKFS_UUID -E hash_seed=$MKFS_UUID,root_owner=0:0 IMG"

#define EXT_SB 1024

/* "ext2", "ext3" or "ext4": the driver that mounts the superblock at sb. */
static const char *ext_kind(const uint8_t *sb)
{
	uint32_t compat = lb_le32(sb + 0x5c), incompat = lb_le32(sb + 0x60);
	uint32_t ext4_only = 0x0040 | 0x0080 | 0x0200 | 0x0400 | 0x1000 |
			     0x10000; /* extents, 64bit, flex_bg, mmp, ea_inode... */
	if (incompat & ext4_only)
		return fs_ext4.name;
	return (compat & 0x0004) ? fs_ext3.name : fs_ext2.name; /* has_journal */
}

static bool ext_is(const uint8_t *b, size_t n, const struct fs_desc *d)
{
	return n >= EXT_SB + 0x68 && lb_le16(b + EXT_SB + 0x38) == 0xef53 &&
	       ext_kind(b + EXT_SB) == d->name;
}

static bool probe_ext2(const uint8_t *b, size_t n)
{
	return ext_is(b, n, &fs_ext2);
}

static bool probe_ext3(const uint8_t *b, size_t n)
{
	return ext_is(b, n, &fs_ext3);
}

static bool probe_ext4(const uint8_t *b, size_t n)
{
	return ext_is(b, n, &fs_ext4);
}

/* The byte offset of inode `ino` from the inode tables' records; 0 when no
 * table holds it. */
static uint64_t ext_inode_at(const struct corrupt_image *im, uint64_t ino, uint32_t *isz)
{
	for (size_t i = 0; i < im->fields->n; i++) {
		const struct field_rec *r = &im->fields->r[i];
		if (r->t != &field_ext_inode || !r->unit || ino < r->first_id ||
		    ino - r->first_id >= r->len / r->unit)
			continue;
		*isz = r->unit;
		return r->off + (ino - r->first_id) * r->unit;
	}
	return 0;
}

static uint64_t ext_root_ino(const struct corrupt_image *im)
{
	(void)im;
	return 2; /* EXT2_ROOT_INO */
}

static const struct fs_field_owner ext_fields[] = {
    {"superblock", "superblock", &field_ext_super, "s_magic"},
    {"superblock-backup", "superblock-backup", &field_ext_super, "s_magic"},
    {"group-descriptors", "group-descriptors", &field_ext_gd, "bg_inode_table"},
    {"journal", "journal", &field_jbd2_super, "s_blocksize"},
    {"inode", NULL, &field_ext_inode, "i_mode"},
};

#define EXT_S32	   -2147483648LL, 2147483647LL
#define EXT_EXTRA  -2147483648LL, 15032385535LL /* EXT4_EXTRA_TIMESTAMP_MAX: 2446-05-10 */
#define EXT_SECOND 1000000000

/* ext2's driver has no extra time fields; ext4's has them in inodes over
 * 128 bytes. Each mkfs is mounted by the drivers that take it. */
static const struct fs_clock_variant ext2_clock[] = {
    {"ext2-128", "ext2", "-I 128", EXT_SECOND, EXT_S32},
    {"ext2-256", "ext2", "-I 256", EXT_SECOND, EXT_S32},
    {"ext2-128@ext4", "ext4", "-I 128", EXT_SECOND, EXT_S32},
    {"ext2-256@ext4", "ext4", "-I 256", 1, EXT_EXTRA},
};
static const struct fs_clock_variant ext3_clock[] = {
    {"ext3-128@ext2", "ext2", "-I 128", EXT_SECOND, EXT_S32},
    {"ext3-256@ext2", "ext2", "-I 256", EXT_SECOND, EXT_S32},
    {"ext3-128", "ext4", "-I 128", EXT_SECOND, EXT_S32},
    {"ext3-256", "ext4", "-I 256", 1, EXT_EXTRA},
};
static const struct fs_clock_variant ext4_clock[] = {
    {"ext4-128", "ext4", "-I 128", EXT_SECOND, EXT_S32},
    {"ext4-256", "ext4", "-I 256", 1, EXT_EXTRA},
    {"ext4-256@ext2", "ext2", "-I 256", EXT_SECOND, EXT_S32},
};

#define EXT_COMMON                                                                                 \
	.image_mib = 64,                                                                           \
	.fsck = {"e2fsck",                                                                         \
		 "-fn"}, /* e2fsck.static (Debian's e2fsck-static, the same source and version)    \
			  * starts in half the time of the dynamic e2fsck (4.6 against 9 ms a run  \
			  * on a 64 MiB image) and says the same, word for word. */                \
	    .fsck_same = "e2fsck.static", .layout = layout_ext, .rawtime = rawtime_ext,            \
	.fields = ext_fields, .nfields = sizeof(ext_fields) / sizeof(ext_fields[0]),               \
	.inode_at = ext_inode_at, .root_ino = ext_root_ino

const struct fs_desc fs_ext2 = {
    .name = "ext2",
    .about = "the second extended filesystem: no journal, 1 s times to 2038",
    .mkfs = EXT_MKFS(mkfs.ext2),
    .gran_ns = EXT_SECOND,
    .atime_gran_ns = EXT_SECOND,
    .tmin = -2147483648LL,
    .tmax = 2147483647LL,
    .clock = ext2_clock,
    .nclock = sizeof(ext2_clock) / sizeof(ext2_clock[0]),
    .crash_why = "no journal: a crash leaves what e2fsck must repair, so nothing is promised",
    .csum = FS_CSUM_NONE,
    .structures = "superblock superblock-backup group-descriptors group-descriptors-backup "
		  "reserved-gdt block-bitmap inode-bitmap inode inode-table directory indirect "
		  "xattr data free boot",
    .probe = probe_ext2,
    EXT_COMMON,
};

const struct fs_desc fs_ext3 = {
    .name = "ext3",
    .about = "ext2 with a jbd2 journal and ns times in 256-byte inodes",
    .mkfs = EXT_MKFS(mkfs.ext3),
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = -2147483648LL,
    .tmax = 15032385535LL,
    .clock = ext3_clock,
    .nclock = sizeof(ext3_clock) / sizeof(ext3_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "jbd2 journal in ordered mode: each namespace operation one transaction, "
		 "committed in order; fsync commits the running one",
    .csum = FS_CSUM_NONE,
    .structures = "(ext2's) journal",
    .probe = probe_ext3,
    EXT_COMMON,
};

const struct fs_desc fs_ext4 = {
    .name = "ext4",
    .about = "ext3 with extents, 256-byte inodes (ns times to 2446) and metadata checksums",
    .also_mounts = "ext2 ext3",
    .mkfs = EXT_MKFS(mkfs.ext4),
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = -2147483648LL,
    .tmax = 15032385535LL,
    .clock = ext4_clock,
    .nclock = sizeof(ext4_clock) / sizeof(ext4_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "jbd2 journal in ordered mode: each namespace operation one transaction, "
		 "committed in order; fsync commits the running one (fs/ext4/fsync.c)",
    .csum = FS_CSUM_IF_FIELDS,
    .structures = "(ext3's) extent-tree",
    .probe = probe_ext4,
    EXT_COMMON,
};
