/* fields.c - the field tables of fields.h, each written once as an X-macro
 * list, and the record map: where an image's superblocks, descriptors,
 * inode tables, journal superblock and xfs AG headers lie, read off the
 * image's own geometry.
 *
 * Flags: N is FIELD_NUISANCE (masked by --normalize), C is FIELD_CSUM
 * (masked when the filesystem's checksums are seeded from the uuid or cover
 * a nuisance field), 0 is neither. Why each is masked:
 *   ext superblock: the mount, write, check and mkfs times (and their _hi
 *     bytes), the uuid and the htree hash seed (random at mkfs),
 *     s_checksum_seed (crc32c of the uuid), s_kbytes_written (host I/O
 *     accounting); s_checksum covers them all.
 *   ext inode: the four times and their _extra (nanosecond) words, the
 *     creation time, i_generation (random per inode); i_checksum_lo/_hi
 *     cover them and are seeded from the uuid.
 *   ext group descriptor: bg_checksum (crc16 or crc32c seeded from the
 *     uuid, gdt_csum or metadata_csum) and the bitmaps' checksums
 *     (crc32c seeded from the uuid): the bitmaps themselves are compared.
 *   jbd2 superblock: s_uuid (mke2fs copies the filesystem's), s_users
 *     (the uuids of an external journal's filesystems), s_checksum.
 *   directory tail, htree tail, extent tail, xattr block header: their
 *     checksum (crc32c seeded from the uuid and the inode number).
 *   xfs: sb_uuid and sb_meta_uuid, the uuid every v5 header repeats
 *     (agf_uuid, agi_uuid, agfl_uuid, di_uuid, the AG btree blocks'
 *     bb_uuid, the log record's h_fs_uuid), the inode's times and di_gen,
 *     and the crcs that cover them (sb_crc, agf_crc, agi_crc, agfl_crc,
 *     di_crc, bb_crc, h_crc).
 * Left unmasked on purpose: everything a workload decides (counts, free
 * maps, mount counts, sequence numbers, LSNs), so equal runs must agree
 * on them. The htree's order depends on s_hash_seed and cannot be masked:
 * two images with indexed directories and different seeds differ there. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2_ext_attr.h>

#include "../fs/fs.h"
#include "fields.h"

#define N FIELD_NUISANCE
#define C FIELD_CSUM

/* ---- ext2/3/4, from libext2fs's own struct definitions ---- */

#define EXT_SUPER_FIELDS(X)                                                                        \
	X(s_inodes_count, 0)                                                                       \
	X(s_blocks_count, 0)                                                                       \
	X(s_r_blocks_count, 0)                                                                     \
	X(s_free_blocks_count, 0)                                                                  \
	X(s_free_inodes_count, 0)                                                                  \
	X(s_first_data_block, 0)                                                                   \
	X(s_log_block_size, 0)                                                                     \
	X(s_log_cluster_size, 0)                                                                   \
	X(s_blocks_per_group, 0)                                                                   \
	X(s_clusters_per_group, 0)                                                                 \
	X(s_inodes_per_group, 0)                                                                   \
	X(s_mtime, N)                                                                              \
	X(s_wtime, N)                                                                              \
	X(s_mnt_count, 0)                                                                          \
	X(s_max_mnt_count, 0)                                                                      \
	X(s_magic, 0)                                                                              \
	X(s_state, 0)                                                                              \
	X(s_errors, 0)                                                                             \
	X(s_minor_rev_level, 0)                                                                    \
	X(s_lastcheck, N)                                                                          \
	X(s_checkinterval, 0)                                                                      \
	X(s_creator_os, 0)                                                                         \
	X(s_rev_level, 0)                                                                          \
	X(s_def_resuid, 0)                                                                         \
	X(s_def_resgid, 0)                                                                         \
	X(s_first_ino, 0)                                                                          \
	X(s_inode_size, 0)                                                                         \
	X(s_block_group_nr, 0)                                                                     \
	X(s_feature_compat, 0)                                                                     \
	X(s_feature_incompat, 0)                                                                   \
	X(s_feature_ro_compat, 0)                                                                  \
	X(s_uuid, N)                                                                               \
	X(s_volume_name, 0)                                                                        \
	X(s_last_mounted, 0)                                                                       \
	X(s_algorithm_usage_bitmap, 0)                                                             \
	X(s_prealloc_blocks, 0)                                                                    \
	X(s_prealloc_dir_blocks, 0)                                                                \
	X(s_reserved_gdt_blocks, 0)                                                                \
	X(s_journal_uuid, 0)                                                                       \
	X(s_journal_inum, 0)                                                                       \
	X(s_journal_dev, 0)                                                                        \
	X(s_last_orphan, 0)                                                                        \
	X(s_hash_seed, N)                                                                          \
	X(s_def_hash_version, 0)                                                                   \
	X(s_jnl_backup_type, 0)                                                                    \
	X(s_desc_size, 0)                                                                          \
	X(s_default_mount_opts, 0)                                                                 \
	X(s_first_meta_bg, 0)                                                                      \
	X(s_mkfs_time, N)                                                                          \
	X(s_jnl_blocks, 0)                                                                         \
	X(s_blocks_count_hi, 0)                                                                    \
	X(s_r_blocks_count_hi, 0)                                                                  \
	X(s_free_blocks_hi, 0)                                                                     \
	X(s_min_extra_isize, 0)                                                                    \
	X(s_want_extra_isize, 0)                                                                   \
	X(s_flags, 0)                                                                              \
	X(s_raid_stride, 0)                                                                        \
	X(s_mmp_update_interval, 0)                                                                \
	X(s_mmp_block, 0)                                                                          \
	X(s_raid_stripe_width, 0)                                                                  \
	X(s_log_groups_per_flex, 0)                                                                \
	X(s_checksum_type, 0)                                                                      \
	X(s_encryption_level, 0)                                                                   \
	X(s_reserved_pad, 0)                                                                       \
	X(s_kbytes_written, N)                                                                     \
	X(s_snapshot_inum, 0)                                                                      \
	X(s_snapshot_id, 0)                                                                        \
	X(s_snapshot_r_blocks_count, 0)                                                            \
	X(s_snapshot_list, 0)                                                                      \
	X(s_error_count, 0)                                                                        \
	X(s_first_error_time, 0)                                                                   \
	X(s_first_error_ino, 0)                                                                    \
	X(s_first_error_block, 0)                                                                  \
	X(s_first_error_func, 0)                                                                   \
	X(s_first_error_line, 0)                                                                   \
	X(s_last_error_time, 0)                                                                    \
	X(s_last_error_ino, 0)                                                                     \
	X(s_last_error_line, 0)                                                                    \
	X(s_last_error_block, 0)                                                                   \
	X(s_last_error_func, 0)                                                                    \
	X(s_mount_opts, 0)                                                                         \
	X(s_usr_quota_inum, 0)                                                                     \
	X(s_grp_quota_inum, 0)                                                                     \
	X(s_overhead_clusters, 0)                                                                  \
	X(s_backup_bgs, 0)                                                                         \
	X(s_encrypt_algos, 0)                                                                      \
	X(s_encrypt_pw_salt, 0)                                                                    \
	X(s_lpf_ino, 0)                                                                            \
	X(s_prj_quota_inum, 0)                                                                     \
	X(s_checksum_seed, N)                                                                      \
	X(s_wtime_hi, N)                                                                           \
	X(s_mtime_hi, N)                                                                           \
	X(s_mkfs_time_hi, N)                                                                       \
	X(s_lastcheck_hi, N)                                                                       \
	X(s_first_error_time_hi, 0)                                                                \
	X(s_last_error_time_hi, 0)                                                                 \
	X(s_first_error_errcode, 0)                                                                \
	X(s_last_error_errcode, 0)                                                                 \
	X(s_encoding, 0)                                                                           \
	X(s_encoding_flags, 0)                                                                     \
	X(s_orphan_file_inum, 0)                                                                   \
	X(s_reserved, 0)                                                                           \
	X(s_checksum, C)

/* X(name, member, flags): member as it is reached in struct ext2_inode_large. */
#define EXT_INODE_FIELDS(X)                                                                        \
	X(i_mode, i_mode, 0)                                                                       \
	X(i_uid, i_uid, 0)                                                                         \
	X(i_size, i_size, 0)                                                                       \
	X(i_atime, i_atime, N)                                                                     \
	X(i_ctime, i_ctime, N)                                                                     \
	X(i_mtime, i_mtime, N)                                                                     \
	X(i_dtime, i_dtime, N)                                                                     \
	X(i_gid, i_gid, 0)                                                                         \
	X(i_links_count, i_links_count, 0)                                                         \
	X(i_blocks, i_blocks, 0)                                                                   \
	X(i_flags, i_flags, 0)                                                                     \
	X(i_version, osd1.linux1.l_i_version, 0)                                                   \
	X(i_block, i_block, 0)                                                                     \
	X(i_generation, i_generation, N)                                                           \
	X(i_file_acl, i_file_acl, 0)                                                               \
	X(i_size_high, i_size_high, 0)                                                             \
	X(i_faddr, i_faddr, 0)                                                                     \
	X(i_blocks_hi, osd2.linux2.l_i_blocks_hi, 0)                                               \
	X(i_file_acl_high, osd2.linux2.l_i_file_acl_high, 0)                                       \
	X(i_uid_high, osd2.linux2.l_i_uid_high, 0)                                                 \
	X(i_gid_high, osd2.linux2.l_i_gid_high, 0)                                                 \
	X(i_checksum_lo, osd2.linux2.l_i_checksum_lo, C)                                           \
	X(i_reserved, osd2.linux2.l_i_reserved, 0)                                                 \
	X(i_extra_isize, i_extra_isize, 0)                                                         \
	X(i_checksum_hi, i_checksum_hi, C)                                                         \
	X(i_ctime_extra, i_ctime_extra, N)                                                         \
	X(i_mtime_extra, i_mtime_extra, N)                                                         \
	X(i_atime_extra, i_atime_extra, N)                                                         \
	X(i_crtime, i_crtime, N)                                                                   \
	X(i_crtime_extra, i_crtime_extra, N)                                                       \
	X(i_version_hi, i_version_hi, 0)                                                           \
	X(i_projid, i_projid, 0)

#define EXT_GD_FIELDS(X)                                                                           \
	X(bg_block_bitmap, 0)                                                                      \
	X(bg_inode_bitmap, 0)                                                                      \
	X(bg_inode_table, 0)                                                                       \
	X(bg_free_blocks_count, 0)                                                                 \
	X(bg_free_inodes_count, 0)                                                                 \
	X(bg_used_dirs_count, 0)                                                                   \
	X(bg_flags, 0)                                                                             \
	X(bg_exclude_bitmap_lo, 0)                                                                 \
	X(bg_block_bitmap_csum_lo, C)                                                              \
	X(bg_inode_bitmap_csum_lo, C)                                                              \
	X(bg_itable_unused, 0)                                                                     \
	X(bg_checksum, C)                                                                          \
	X(bg_block_bitmap_hi, 0)                                                                   \
	X(bg_inode_bitmap_hi, 0)                                                                   \
	X(bg_inode_table_hi, 0)                                                                    \
	X(bg_free_blocks_count_hi, 0)                                                              \
	X(bg_free_inodes_count_hi, 0)                                                              \
	X(bg_used_dirs_count_hi, 0)                                                                \
	X(bg_itable_unused_hi, 0)                                                                  \
	X(bg_exclude_bitmap_hi, 0)                                                                 \
	X(bg_block_bitmap_csum_hi, C)                                                              \
	X(bg_inode_bitmap_csum_hi, C)                                                              \
	X(bg_reserved, 0)

#define EXT_DIR_TAIL_FIELDS(X)                                                                     \
	X(det_reserved_zero1, 0)                                                                   \
	X(det_rec_len, 0)                                                                          \
	X(det_reserved_name_len, 0)                                                                \
	X(det_checksum, C)

#define EXT_DX_TAIL_FIELDS(X)                                                                      \
	X(dt_reserved, 0)                                                                          \
	X(dt_checksum, C)

#define EXT_XATTR_HEADER_FIELDS(X)                                                                 \
	X(h_magic, 0)                                                                              \
	X(h_refcount, 0)                                                                           \
	X(h_blocks, 0)                                                                             \
	X(h_hash, 0)                                                                               \
	X(h_checksum, C)                                                                           \
	X(h_reserved, 0)

#define MEMBER_SIZE(T, m) sizeof(((T *)0)->m)
#define FIELD_SB(name, fl)                                                                         \
	{#name, offsetof(struct ext2_super_block, name),                                           \
	 MEMBER_SIZE(struct ext2_super_block, name), fl},
#define FIELD_INODE(name, m, fl)                                                                   \
	{#name, offsetof(struct ext2_inode_large, m), MEMBER_SIZE(struct ext2_inode_large, m), fl},
#define FIELD_GD(name, fl)                                                                         \
	{#name, offsetof(struct ext4_group_desc, name), MEMBER_SIZE(struct ext4_group_desc, name), \
	 fl},
#define FIELD_DT(name, fl)                                                                         \
	{#name, offsetof(struct ext2_dir_entry_tail, name),                                        \
	 MEMBER_SIZE(struct ext2_dir_entry_tail, name), fl},
#define FIELD_DX(name, fl)                                                                         \
	{#name, offsetof(struct ext2_dx_tail, name), MEMBER_SIZE(struct ext2_dx_tail, name), fl},
#define FIELD_XH(name, fl)                                                                         \
	{#name, offsetof(struct ext2_ext_attr_header, name),                                       \
	 MEMBER_SIZE(struct ext2_ext_attr_header, name), fl},

static const struct field ext_super[] = {EXT_SUPER_FIELDS(FIELD_SB)};
static const struct field ext_inode[] = {EXT_INODE_FIELDS(FIELD_INODE)};
static const struct field ext_gd[] = {EXT_GD_FIELDS(FIELD_GD)};
static const struct field ext_dir_tail[] = {EXT_DIR_TAIL_FIELDS(FIELD_DT)};
static const struct field ext_dx_tail[] = {EXT_DX_TAIL_FIELDS(FIELD_DX)};
static const struct field ext_xattr_header[] = {EXT_XATTR_HEADER_FIELDS(FIELD_XH)};
/* The extent block's tail follows its last possible entry (ext4_extents.h in
 * the kernel; libext2fs keeps the struct private): one 32-bit checksum. */
static const struct field ext_extent_tail[] = {{"et_checksum", 0, 4, C}};

/* ---- formats without an installed header: offsets from their documented
 * on-disk layouts, X(name, offset, size, flags), big-endian fields ---- */

/* The jbd2 journal superblock (Documentation/filesystems/ext4/journal.rst). */
#define JBD2_SUPER_FIELDS(X)                                                                       \
	X(h_magic, 0x0, 4, 0)                                                                      \
	X(h_blocktype, 0x4, 4, 0)                                                                  \
	X(h_sequence, 0x8, 4, 0)                                                                   \
	X(s_blocksize, 0xc, 4, 0)                                                                  \
	X(s_maxlen, 0x10, 4, 0)                                                                    \
	X(s_first, 0x14, 4, 0)                                                                     \
	X(s_sequence, 0x18, 4, 0)                                                                  \
	X(s_start, 0x1c, 4, 0)                                                                     \
	X(s_errno, 0x20, 4, 0)                                                                     \
	X(s_feature_compat, 0x24, 4, 0)                                                            \
	X(s_feature_incompat, 0x28, 4, 0)                                                          \
	X(s_feature_ro_compat, 0x2c, 4, 0)                                                         \
	X(s_uuid, 0x30, 16, N)                                                                     \
	X(s_nr_users, 0x40, 4, 0)                                                                  \
	X(s_dynsuper, 0x44, 4, 0)                                                                  \
	X(s_max_transaction, 0x48, 4, 0)                                                           \
	X(s_max_trans_data, 0x4c, 4, 0)                                                            \
	X(s_checksum_type, 0x50, 1, 0)                                                             \
	X(s_padding2, 0x51, 3, 0)                                                                  \
	X(s_num_fc_blks, 0x54, 4, 0)                                                               \
	X(s_head, 0x58, 4, 0)                                                                      \
	X(s_padding, 0x5c, 160, 0)                                                                 \
	X(s_checksum, 0xfc, 4, C)                                                                  \
	X(s_users, 0x100, 768, N)

/* struct xfs_dsb (fs/xfs/libxfs/xfs_format.h). */
#define XFS_SB_FIELDS(X)                                                                           \
	X(sb_magicnum, 0, 4, 0)                                                                    \
	X(sb_blocksize, 4, 4, 0)                                                                   \
	X(sb_dblocks, 8, 8, 0)                                                                     \
	X(sb_rblocks, 16, 8, 0)                                                                    \
	X(sb_rextents, 24, 8, 0)                                                                   \
	X(sb_uuid, 32, 16, N)                                                                      \
	X(sb_logstart, 48, 8, 0)                                                                   \
	X(sb_rootino, 56, 8, 0)                                                                    \
	X(sb_rbmino, 64, 8, 0)                                                                     \
	X(sb_rsumino, 72, 8, 0)                                                                    \
	X(sb_rextsize, 80, 4, 0)                                                                   \
	X(sb_agblocks, 84, 4, 0)                                                                   \
	X(sb_agcount, 88, 4, 0)                                                                    \
	X(sb_rbmblocks, 92, 4, 0)                                                                  \
	X(sb_logblocks, 96, 4, 0)                                                                  \
	X(sb_versionnum, 100, 2, 0)                                                                \
	X(sb_sectsize, 102, 2, 0)                                                                  \
	X(sb_inodesize, 104, 2, 0)                                                                 \
	X(sb_inopblock, 106, 2, 0)                                                                 \
	X(sb_fname, 108, 12, 0)                                                                    \
	X(sb_blocklog, 120, 1, 0)                                                                  \
	X(sb_sectlog, 121, 1, 0)                                                                   \
	X(sb_inodelog, 122, 1, 0)                                                                  \
	X(sb_inopblog, 123, 1, 0)                                                                  \
	X(sb_agblklog, 124, 1, 0)                                                                  \
	X(sb_rextslog, 125, 1, 0)                                                                  \
	X(sb_inprogress, 126, 1, 0)                                                                \
	X(sb_imax_pct, 127, 1, 0)                                                                  \
	X(sb_icount, 128, 8, 0)                                                                    \
	X(sb_ifree, 136, 8, 0)                                                                     \
	X(sb_fdblocks, 144, 8, 0)                                                                  \
	X(sb_frextents, 152, 8, 0)                                                                 \
	X(sb_uquotino, 160, 8, 0)                                                                  \
	X(sb_gquotino, 168, 8, 0)                                                                  \
	X(sb_qflags, 176, 2, 0)                                                                    \
	X(sb_flags, 178, 1, 0)                                                                     \
	X(sb_shared_vn, 179, 1, 0)                                                                 \
	X(sb_inoalignmt, 180, 4, 0)                                                                \
	X(sb_unit, 184, 4, 0)                                                                      \
	X(sb_width, 188, 4, 0)                                                                     \
	X(sb_dirblklog, 192, 1, 0)                                                                 \
	X(sb_logsectlog, 193, 1, 0)                                                                \
	X(sb_logsectsize, 194, 2, 0)                                                               \
	X(sb_logsunit, 196, 4, 0)                                                                  \
	X(sb_features2, 200, 4, 0)                                                                 \
	X(sb_bad_features2, 204, 4, 0)                                                             \
	X(sb_features_compat, 208, 4, 0)                                                           \
	X(sb_features_ro_compat, 212, 4, 0)                                                        \
	X(sb_features_incompat, 216, 4, 0)                                                         \
	X(sb_features_log_incompat, 220, 4, 0)                                                     \
	X(sb_crc, 224, 4, C)                                                                       \
	X(sb_spino_align, 228, 4, 0)                                                               \
	X(sb_pquotino, 232, 8, 0)                                                                  \
	X(sb_lsn, 240, 8, 0)                                                                       \
	X(sb_meta_uuid, 248, 16, N)

/* struct xfs_agf. */
#define XFS_AGF_FIELDS(X)                                                                          \
	X(agf_magicnum, 0, 4, 0)                                                                   \
	X(agf_versionnum, 4, 4, 0)                                                                 \
	X(agf_seqno, 8, 4, 0)                                                                      \
	X(agf_length, 12, 4, 0)                                                                    \
	X(agf_roots, 16, 12, 0)                                                                    \
	X(agf_levels, 28, 12, 0)                                                                   \
	X(agf_flfirst, 40, 4, 0)                                                                   \
	X(agf_fllast, 44, 4, 0)                                                                    \
	X(agf_flcount, 48, 4, 0)                                                                   \
	X(agf_freeblks, 52, 4, 0)                                                                  \
	X(agf_longest, 56, 4, 0)                                                                   \
	X(agf_btreeblks, 60, 4, 0)                                                                 \
	X(agf_uuid, 64, 16, N)                                                                     \
	X(agf_rmap_blocks, 80, 4, 0)                                                               \
	X(agf_refcount_blocks, 84, 4, 0)                                                           \
	X(agf_refcount_root, 88, 4, 0)                                                             \
	X(agf_refcount_level, 92, 4, 0)                                                            \
	X(agf_spare64, 96, 112, 0)                                                                 \
	X(agf_lsn, 208, 8, 0)                                                                      \
	X(agf_crc, 216, 4, C)                                                                      \
	X(agf_spare2, 220, 4, 0)

/* struct xfs_agi. */
#define XFS_AGI_FIELDS(X)                                                                          \
	X(agi_magicnum, 0, 4, 0)                                                                   \
	X(agi_versionnum, 4, 4, 0)                                                                 \
	X(agi_seqno, 8, 4, 0)                                                                      \
	X(agi_length, 12, 4, 0)                                                                    \
	X(agi_count, 16, 4, 0)                                                                     \
	X(agi_root, 20, 4, 0)                                                                      \
	X(agi_level, 24, 4, 0)                                                                     \
	X(agi_freecount, 28, 4, 0)                                                                 \
	X(agi_newino, 32, 4, 0)                                                                    \
	X(agi_dirino, 36, 4, 0)                                                                    \
	X(agi_unlinked, 40, 256, 0)                                                                \
	X(agi_uuid, 296, 16, N)                                                                    \
	X(agi_crc, 312, 4, C)                                                                      \
	X(agi_pad32, 316, 4, 0)                                                                    \
	X(agi_lsn, 320, 8, 0)                                                                      \
	X(agi_free_root, 328, 4, 0)                                                                \
	X(agi_free_level, 332, 4, 0)                                                               \
	X(agi_iblocks, 336, 4, 0)                                                                  \
	X(agi_fblocks, 340, 4, 0)

/* struct xfs_agfl (v5 header). */
#define XFS_AGFL_FIELDS(X)                                                                         \
	X(agfl_magicnum, 0, 4, 0)                                                                  \
	X(agfl_seqno, 4, 4, 0)                                                                     \
	X(agfl_uuid, 8, 16, N)                                                                     \
	X(agfl_lsn, 24, 8, 0)                                                                      \
	X(agfl_crc, 32, 4, C)

/* struct xfs_btree_block, short form, v5: the header of every AG btree
 * block (free space by block and by size, inodes, free inodes, refcount,
 * reverse map). Its uuid is the filesystem's; its crc covers the block. */
#define XFS_SBLOCK_FIELDS(X)                                                                       \
	X(bb_magic, 0, 4, 0)                                                                       \
	X(bb_level, 4, 2, 0)                                                                       \
	X(bb_numrecs, 6, 2, 0)                                                                     \
	X(bb_leftsib, 8, 4, 0)                                                                     \
	X(bb_rightsib, 12, 4, 0)                                                                   \
	X(bb_blkno, 16, 8, 0)                                                                      \
	X(bb_lsn, 24, 8, 0)                                                                        \
	X(bb_uuid, 32, 16, N)                                                                      \
	X(bb_owner, 48, 4, 0)                                                                      \
	X(bb_crc, 52, 4, C)

/* struct xlog_rec_header: the first sector of every log record. mkfs
 * writes one, stamped with the filesystem's uuid. */
#define XFS_LOGREC_FIELDS(X)                                                                       \
	X(h_magicno, 0, 4, 0)                                                                      \
	X(h_cycle, 4, 4, 0)                                                                        \
	X(h_version, 8, 4, 0)                                                                      \
	X(h_len, 12, 4, 0)                                                                         \
	X(h_lsn, 16, 8, 0)                                                                         \
	X(h_tail_lsn, 24, 8, 0)                                                                    \
	X(h_crc, 32, 4, C)                                                                         \
	X(h_prev_block, 36, 4, 0)                                                                  \
	X(h_num_logops, 40, 4, 0)                                                                  \
	X(h_cycle_data, 44, 256, 0)                                                                \
	X(h_fmt, 300, 4, 0)                                                                        \
	X(h_fs_uuid, 304, 16, N)                                                                   \
	X(h_size, 320, 4, 0)

/* struct xfs_dinode (v3: 176 bytes, then the data and attribute forks). */
#define XFS_DINODE_FIELDS(X)                                                                       \
	X(di_magic, 0, 2, 0)                                                                       \
	X(di_mode, 2, 2, 0)                                                                        \
	X(di_version, 4, 1, 0)                                                                     \
	X(di_format, 5, 1, 0)                                                                      \
	X(di_onlink, 6, 2, 0)                                                                      \
	X(di_uid, 8, 4, 0)                                                                         \
	X(di_gid, 12, 4, 0)                                                                        \
	X(di_nlink, 16, 4, 0)                                                                      \
	X(di_projid_lo, 20, 2, 0)                                                                  \
	X(di_projid_hi, 22, 2, 0)                                                                  \
	X(di_pad, 24, 6, 0)                                                                        \
	X(di_flushiter, 30, 2, 0)                                                                  \
	X(di_atime, 32, 8, N)                                                                      \
	X(di_mtime, 40, 8, N)                                                                      \
	X(di_ctime, 48, 8, N)                                                                      \
	X(di_size, 56, 8, 0)                                                                       \
	X(di_nblocks, 64, 8, 0)                                                                    \
	X(di_extsize, 72, 4, 0)                                                                    \
	X(di_nextents, 76, 4, 0)                                                                   \
	X(di_anextents, 80, 2, 0)                                                                  \
	X(di_forkoff, 82, 1, 0)                                                                    \
	X(di_aformat, 83, 1, 0)                                                                    \
	X(di_dmevmask, 84, 4, 0)                                                                   \
	X(di_dmstate, 88, 2, 0)                                                                    \
	X(di_flags, 90, 2, 0)                                                                      \
	X(di_gen, 92, 4, N)                                                                        \
	X(di_next_unlinked, 96, 4, 0)                                                              \
	X(di_crc, 100, 4, C)                                                                       \
	X(di_changecount, 104, 8, 0)                                                               \
	X(di_lsn, 112, 8, 0)                                                                       \
	X(di_flags2, 120, 8, 0)                                                                    \
	X(di_cowextsize, 128, 4, 0)                                                                \
	X(di_pad2, 132, 12, 0)                                                                     \
	X(di_crtime, 144, 8, N)                                                                    \
	X(di_ino, 152, 8, 0)                                                                       \
	X(di_uuid, 160, 16, N)

#define FIELD_AT(name, off, size, fl) {#name, off, size, fl},
static const struct field jbd2_super[] = {JBD2_SUPER_FIELDS(FIELD_AT)};
static const struct field xfs_sb[] = {XFS_SB_FIELDS(FIELD_AT)};
static const struct field xfs_agf[] = {XFS_AGF_FIELDS(FIELD_AT)};
static const struct field xfs_agi[] = {XFS_AGI_FIELDS(FIELD_AT)};
static const struct field xfs_agfl[] = {XFS_AGFL_FIELDS(FIELD_AT)};
static const struct field xfs_dinode[] = {XFS_DINODE_FIELDS(FIELD_AT)};
static const struct field xfs_sblock[] = {XFS_SBLOCK_FIELDS(FIELD_AT)};
static const struct field xfs_logrec[] = {XFS_LOGREC_FIELDS(FIELD_AT)};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
#define TABLE(var, cname, arr)                                                                     \
	const struct field_table var = {cname, arr, NFIELDS(arr),                                  \
					arr[NFIELDS(arr) - 1].off + arr[NFIELDS(arr) - 1].size};
TABLE(field_ext_super, "ext2_super_block", ext_super)
TABLE(field_ext_inode, "ext2_inode", ext_inode)
TABLE(field_ext_gd, "ext4_group_desc", ext_gd)
TABLE(field_ext_dir_tail, "ext2_dir_entry_tail", ext_dir_tail)
TABLE(field_ext_dx_tail, "ext2_dx_tail", ext_dx_tail)
TABLE(field_ext_extent_tail, "ext4_extent_tail", ext_extent_tail)
TABLE(field_ext_xattr_header, "ext2_ext_attr_header", ext_xattr_header)
TABLE(field_jbd2_super, "journal_superblock", jbd2_super)
TABLE(field_xfs_sb, "xfs_dsb", xfs_sb)
TABLE(field_xfs_agf, "xfs_agf", xfs_agf)
TABLE(field_xfs_agi, "xfs_agi", xfs_agi)
TABLE(field_xfs_agfl, "xfs_agfl", xfs_agfl)
TABLE(field_xfs_dinode, "xfs_dinode", xfs_dinode)
TABLE(field_xfs_sblock, "xfs_btree_block", xfs_sblock)
TABLE(field_xfs_logrec, "xlog_rec_header", xfs_logrec)

static const struct field_table *const all_tables[] = {
    &field_ext_super,	&field_ext_inode,	&field_ext_gd,		 &field_ext_dir_tail,
    &field_ext_dx_tail, &field_ext_extent_tail, &field_ext_xattr_header, &field_jbd2_super,
    &field_xfs_sb,	&field_xfs_agf,		&field_xfs_agi,		 &field_xfs_agfl,
    &field_xfs_dinode,	&field_xfs_sblock,	&field_xfs_logrec};

const struct field *field_at(const struct field_table *t, uint32_t off)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* the first field ending after off */
		size_t mid = (lo + hi) / 2;
		if (t->f[mid].off + t->f[mid].size <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->f[lo].off <= off)
		return &t->f[lo];
	return NULL;
}

bool field_name_known(const char *name)
{
	for (size_t i = 0; i < NFIELDS(all_tables); i++)
		for (size_t k = 0; k < all_tables[i]->n; k++)
			if (!strcmp(all_tables[i]->f[k].name, name))
				return true;
	return false;
}

/* ---- the record map ---- */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The image and how to read it, bounds-checked. */
struct img {
	layout_read_fn read;
	void *ctx;
	uint64_t size;
};

static int img_read(const struct img *im, uint64_t off, void *buf, size_t n)
{
	if (off > im->size || n > im->size - off)
		return -1;
	return im->read(im->ctx, off, buf, n);
}

static int map_add(struct field_map *m, const struct field_rec *r)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct field_rec *nr = realloc(m->r, cap * sizeof(*nr));
		if (!nr)
			return -1;
		m->r = nr;
		m->cap = cap;
	}
	m->r[m->n++] = *r;
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct field_rec *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort, and drop a record that overlaps the one before it: only a damaged
 * image places two structures on the same bytes, and a byte gets one name. */
static void map_finish(struct field_map *m)
{
	if (m->n)
		qsort(m->r, m->n, sizeof(*m->r), rec_cmp);
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++)
		if (!k || m->r[i].off >= m->r[k - 1].off + m->r[k - 1].len)
			m->r[k++] = m->r[i];
	m->n = k;
}

/* Whether group g holds a backup of the superblock and descriptors. */
static bool ext_has_super(const struct ext2_super_block *sb, uint64_t g)
{
	if (g <= 1 && !(sb->s_feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2))
		return true;
	if (g == 0)
		return true;
	if (sb->s_feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
		return g == sb->s_backup_bgs[0] || g == sb->s_backup_bgs[1];
	if (!(sb->s_feature_ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return true;
	if (!(g & 1))
		return false;
	for (uint64_t p = 3; p <= 7; p += 2) {
		uint64_t v = p;
		while (v < g)
			v *= p;
		if (v == g)
			return true;
	}
	return false;
}

struct ext_geom {
	struct ext2_super_block sb;
	uint32_t bs, isz, dsz, ipg;
	uint64_t bpg, first, ngroups;
	uint64_t *itable; /* per group: the inode table's first block */
};

/* The physical block of the journal's first block (its superblock). */
static int ext_journal_block(const struct img *im, const struct ext_geom *g, uint64_t *blk)
{
	uint32_t ino = g->sb.s_journal_inum;
	if (!ino || (ino - 1) / g->ipg >= g->ngroups)
		return -1;
	uint8_t raw[sizeof(struct ext2_inode)];
	uint64_t at =
	    g->itable[(ino - 1) / g->ipg] * g->bs + (uint64_t)((ino - 1) % g->ipg) * g->isz;
	if (img_read(im, at, raw, sizeof(raw)))
		return -1;
	const uint8_t *ib = raw + offsetof(struct ext2_inode, i_block);
	if (!(le32(raw + offsetof(struct ext2_inode, i_flags)) & EXT4_EXTENTS_FL)) {
		*blk = le32(ib);
		return *blk ? 0 : -1;
	}
	uint8_t node[4096];
	const uint8_t *h = ib;
	size_t hlen = 60;
	for (int level = 0; level < 6; level++) { /* an extent tree is at most 5 deep */
		if (le16(h) != 0xF30A || le16(h + 2) == 0 || 12 + 12 > hlen)
			return -1;
		const uint8_t *e = h + 12; /* the first entry covers logical block 0 */
		if (le16(h + 6) == 0) {
			if (le32(e) != 0)
				return -1;
			*blk = (uint64_t)le16(e + 6) << 32 | le32(e + 8);
			return 0;
		}
		uint64_t leaf = (uint64_t)le16(e + 8) << 32 | le32(e + 4);
		hlen = g->bs < sizeof(node) ? g->bs : sizeof(node);
		if (img_read(im, leaf * g->bs, node, hlen))
			return -1;
		h = node;
	}
	return -1;
}

static int ext_map(struct field_map *m, const struct img *im, char *err, size_t errlen)
{
	struct ext_geom g = {0};
	struct ext2_super_block *sb = &g.sb;
	if (img_read(im, 1024, sb, sizeof(*sb)) || sb->s_magic != EXT2_SUPER_MAGIC)
		return 1;
	int rc = -1;
	bool is64 = sb->s_feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT;
	uint64_t blocks = sb->s_blocks_count | (is64 ? (uint64_t)sb->s_blocks_count_hi << 32 : 0);
	g.bs = sb->s_log_block_size <= 6 ? 1024u << sb->s_log_block_size : 0;
	g.bpg = sb->s_blocks_per_group;
	g.ipg = sb->s_inodes_per_group;
	g.first = sb->s_first_data_block;
	g.isz = sb->s_rev_level == EXT2_GOOD_OLD_REV ? 128 : sb->s_inode_size;
	g.dsz = is64 ? sb->s_desc_size : 32;
	if (!g.bs || !g.bpg || !g.ipg || blocks <= g.first || blocks > im->size / g.bs ||
	    g.isz < 128 || g.isz > g.bs || (g.isz & (g.isz - 1)) || g.dsz < 32 || g.dsz > 1024 ||
	    (g.dsz & (g.dsz - 1))) {
		snprintf(err, errlen, "ext: the superblock's geometry is damaged");
		return -1;
	}
	g.ngroups = (blocks - g.first + g.bpg - 1) / g.bpg;
	bool csum = sb->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	bool gdcsum = csum || (sb->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
	const char *fs = fs_ext2.name;
	if (sb->s_feature_incompat & (EXT3_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT |
				      EXT4_FEATURE_INCOMPAT_FLEX_BG))
		fs = fs_ext4.name;
	else if (sb->s_feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL)
		fs = fs_ext3.name;
	snprintf(m->fs, sizeof(m->fs), "%s", fs);
	m->block_size = g.bs;
	m->inode_size = g.isz;
	m->csum = csum;

	/* Every copy of the superblock, and of the descriptors. */
	uint64_t dpb = g.bs / g.dsz, gdt_blocks = (g.ngroups + dpb - 1) / dpb;
	bool meta = sb->s_feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG;
	uint64_t flat = meta ? (sb->s_first_meta_bg < gdt_blocks ? sb->s_first_meta_bg : gdt_blocks)
			     : gdt_blocks;
	uint64_t gdt0 = 0; /* byte offset of the primary descriptors, flat part */
	for (uint64_t grp = 0; grp < g.ngroups; grp++) {
		if (!ext_has_super(sb, grp))
			continue;
		uint64_t start = (g.first + grp * g.bpg) * g.bs;
		struct field_rec r = {grp ? start : 1024,
				      1024,
				      1024,
				      &field_ext_super,
				      grp ? "superblock-backup" : "superblock",
				      grp ? "group" : NULL,
				      grp,
				      csum};
		if (map_add(m, &r))
			goto nomem;
		/* With 1 KiB blocks, block 0 is the boot block and the group's
		 * superblock fills block first+grp*bpg; with bigger ones it sits
		 * inside that block. The descriptors follow in the next block. */
		uint64_t gdt = start + g.bs;
		if (grp == 0)
			gdt0 = gdt;
		uint64_t n = flat * dpb < g.ngroups ? flat * dpb : g.ngroups;
		struct field_rec d = {gdt,     n * g.dsz, g.dsz, &field_ext_gd, "group-descriptors",
				      "group", 0,	  gdcsum};
		if (n && map_add(m, &d))
			goto nomem;
	}
	for (uint64_t i = flat; i < gdt_blocks; i++) { /* meta_bg: one block per meta group */
		uint64_t first = i * dpb, n = g.ngroups - first < dpb ? g.ngroups - first : dpb;
		uint64_t at[3] = {first, first + 1, first + dpb - 1};
		for (int k = 0; k < 3; k++) {
			if (at[k] >= g.ngroups || (k == 2 && dpb == 1))
				continue;
			uint64_t blk = g.first + at[k] * g.bpg + (ext_has_super(sb, at[k]) ? 1 : 0);
			struct field_rec d = {blk * g.bs,	   n * g.dsz, g.dsz, &field_ext_gd,
					      "group-descriptors", "group",   first, gdcsum};
			if (map_add(m, &d))
				goto nomem;
		}
	}

	/* The inode tables, from the primary descriptors. */
	g.itable = calloc(g.ngroups, sizeof(*g.itable));
	if (!g.itable)
		goto nomem;
	for (uint64_t grp = 0; grp < g.ngroups; grp++) {
		uint8_t d[1024];
		uint64_t i = grp / dpb, at;
		if (i < flat)
			at = gdt0 + grp * g.dsz;
		else
			at = (g.first + i * dpb * g.bpg + (ext_has_super(sb, i * dpb) ? 1 : 0)) *
				 g.bs +
			     (grp % dpb) * g.dsz;
		if (img_read(im, at, d, g.dsz)) {
			snprintf(err, errlen, "ext: group %llu's descriptor lies past the end",
				 (unsigned long long)grp);
			goto out;
		}
		uint64_t it = le32(d + offsetof(struct ext4_group_desc, bg_inode_table));
		if (is64 && g.dsz >= 64)
			it |=
			    (uint64_t)le32(d + offsetof(struct ext4_group_desc, bg_inode_table_hi))
			    << 32;
		uint64_t len = (uint64_t)g.ipg * g.isz;
		if (!it || it > im->size / g.bs || len > im->size - it * g.bs) {
			snprintf(err, errlen,
				 "ext: group %llu's inode table lies outside the image",
				 (unsigned long long)grp);
			goto out;
		}
		g.itable[grp] = it;
		struct field_rec r = {it * g.bs,     len,     g.isz,	       &field_ext_inode,
				      "inode-table", "inode", grp * g.ipg + 1, csum};
		if (map_add(m, &r))
			goto nomem;
	}

	/* The journal's superblock, through the journal inode. */
	uint64_t jblk;
	if ((sb->s_feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL) &&
	    !ext_journal_block(im, &g, &jblk) && jblk < im->size / g.bs) {
		uint8_t j[0x30];
		if (!img_read(im, jblk * g.bs, j, sizeof(j)) && be32(j) == 0xC03B3998u &&
		    (be32(j + 4) == 3 || be32(j + 4) == 4)) {
			bool jcsum = be32(j + 0x28) & (0x8 | 0x10); /* CSUM_V2, CSUM_V3 */
			struct field_rec r = {jblk * g.bs, 1024, 1024, &field_jbd2_super,
					      "journal",   NULL, 0,    jcsum};
			if (map_add(m, &r))
				goto nomem;
		}
	}
	map_finish(m);
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	free(g.itable);
	return rc;
}

static int xfs_map(struct field_map *m, const struct img *im, char *err, size_t errlen)
{
	uint8_t sb[264];
	if (img_read(im, 0, sb, sizeof(sb)) || be32(sb) != 0x58465342u) /* XFSB */
		return 1;
	uint32_t bs = be32(sb + 4), agblocks = be32(sb + 84), agcount = be32(sb + 88);
	uint32_t sect = be16(sb + 102), isz = be16(sb + 104);
	bool v5 = (be16(sb + 100) & 0xf) == 5;
	if (bs < 512 || bs > 65536 || (bs & (bs - 1)) || sect < 512 || sect > bs ||
	    (sect & (sect - 1)) || !agblocks || !agcount || isz < 256 || isz > bs ||
	    (uint64_t)agblocks * bs > im->size) {
		snprintf(err, errlen, "%s: the superblock's geometry is damaged", fs_xfs.name);
		return -1;
	}
	snprintf(m->fs, sizeof(m->fs), "%s", fs_xfs.name);
	m->block_size = bs;
	m->inode_size = isz;
	m->csum = v5;
	static const struct field_table *const hdr[4] = {&field_xfs_sb, &field_xfs_agf,
							 &field_xfs_agi, &field_xfs_agfl};
	for (uint64_t ag = 0; ag < agcount; ag++) {
		uint64_t base = ag * agblocks * (uint64_t)bs;
		if (base + 4 * sect > im->size)
			break; /* the last AG may be cut short only by a damaged image */
		for (int k = 0; k < 4; k++) {
			const char *s = k ? "ag-header" : ag ? "superblock-backup" : "superblock";
			struct field_rec r = {base + k * sect, sect, sect, hdr[k], s, "ag", ag, v5};
			if (map_add(m, &r)) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		}
	}
	map_finish(m);
	return 0;
}

int field_map_build(struct field_map *m, layout_read_fn read, void *ctx, uint64_t size, char *err,
		    size_t errlen)
{
	*m = (struct field_map){0};
	struct img im = {read, ctx, size};
	int rc = ext_map(m, &im, err, errlen);
	if (rc == 1) {
		m->n = 0;
		rc = xfs_map(m, &im, err, errlen);
	}
	if (rc) {
		m->n = 0;
		if (rc == 1) {
			m->fs[0] = 0;
			snprintf(
			    err, errlen,
			    "not a filesystem whose fields Themis knows (themis fs NAME says)");
		}
	}
	return rc;
}

void field_map_free(struct field_map *m)
{
	free(m->r);
	*m = (struct field_map){0};
}

const struct field_rec *field_map_find(const struct field_map *m, uint64_t off)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->r[mid].off + m->r[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->r[lo].off <= off)
		return &m->r[lo];
	return NULL;
}

/* An htree node's dx_tail: after `limit` 8-byte entries from the count/limit
 * pair at `cl`. */
static bool dx_tail_at(const uint8_t *blk, uint32_t len, uint32_t cl, uint32_t *at)
{
	uint64_t t = cl + (uint64_t)le16(blk + cl) * 8;
	if (t + sizeof(struct ext2_dx_tail) > len)
		return false;
	*at = (uint32_t)t;
	return true;
}

static bool ext_in_block(const char *structure, const uint8_t *blk, uint32_t len, uint32_t pos,
			 const struct field_table **t, uint32_t *at)
{
	if (!strcmp(structure, "directory") && len >= 40) {
		const uint8_t *tail = blk + len - 12;
		if (le32(tail) == 0 && le16(tail + 4) == 12 &&
		    le16(tail + 6) == EXT2_DIR_NAME_LEN_CSUM) {
			*t = &field_ext_dir_tail;
			*at = len - 12;
			return pos >= *at;
		}
		uint32_t cl = 0;
		if (le32(blk) == 0 && le16(blk + 4) == len) /* an interior htree node */
			cl = 8;
		else if (le16(blk + 4) == 12 && blk[8] == '.' && le16(blk + 16) == len - 12 &&
			 blk[20] == '.' && blk[21] == '.' && blk[29] == 8) /* the htree root */
			cl = 32;
		if (cl && dx_tail_at(blk, len, cl, at)) {
			*t = &field_ext_dx_tail;
			return pos >= *at && pos < *at + sizeof(struct ext2_dx_tail);
		}
		return false;
	}
	if (!strcmp(structure, "extent-tree") && len >= 12 && le16(blk) == 0xF30A) {
		uint64_t tl = 12 + 12 * (uint64_t)le16(blk + 4);
		if (tl + 4 > len)
			return false;
		*t = &field_ext_extent_tail;
		*at = (uint32_t)tl;
		return pos >= *at && pos < *at + 4;
	}
	if (!strcmp(structure, "xattr") && len >= 32 && le32(blk) == EXT2_EXT_ATTR_MAGIC) {
		*t = &field_ext_xattr_header;
		*at = 0;
		return pos < sizeof(struct ext2_ext_attr_header);
	}
	return false;
}

bool field_in_block(const struct field_map *m, const char *structure, const uint8_t *blk,
		    uint32_t len, uint32_t pos, const struct field_table **t, uint32_t *at)
{
	if (pos >= len)
		return false;
	if (!strncmp(m->fs, "ext", 3))
		return ext_in_block(structure, blk, len, pos, t, at);
	/* xfs: the layout map's inode chunks, one record per inode; a v3
	 * inode says so in its own header. */
	if (!strcmp(m->fs, fs_xfs.name) && len == m->inode_size && be16(blk) == 0x494e &&
	    blk[4] == 3) {
		*t = &field_xfs_dinode;
		*at = 0;
		return pos < field_xfs_dinode.size;
	}
	/* xfs: a log record header, in the 512-byte sector holding pos. */
	uint32_t sector = pos / 512 * 512;
	if (!strcmp(m->fs, fs_xfs.name) && !strcmp(structure, "log") && sector + 512 <= len &&
	    be32(blk + sector) == 0xFEEDBABEu) {
		*t = &field_xfs_logrec;
		*at = sector;
		return pos - sector < field_xfs_logrec.size;
	}
	/* xfs: an AG btree block, told by its v5 magic number. */
	static const char *const sblock_magic[] = {"AB3B", "AB3C", "IAB3", "FIB3", "R3FC", "RMB3"};
	for (size_t i = 0; !strcmp(m->fs, fs_xfs.name) && len >= field_xfs_sblock.size &&
			   i < sizeof(sblock_magic) / sizeof(sblock_magic[0]);
	     i++)
		if (!memcmp(blk, sblock_magic[i], 4)) {
			*t = &field_xfs_sblock;
			*at = 0;
			return pos < field_xfs_sblock.size;
		}
	return false;
}
