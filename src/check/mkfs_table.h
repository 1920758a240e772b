/* mkfs_table.h - the one list of how each filesystem's base image is made:
 * scripts/mkimages.sh reads the lines below to build build/images/FS.img,
 * and the reproducer generator (repro.c) writes the same commands into
 * repro.sh, so an image a reproducer makes is made as Themis made it.
 * Nothing else lists the mkfs commands.
 *
 * MKFS_TABLE(X) calls X(name, mib, command) per filesystem: the image's
 * size in MiB and the mkfs command line, its last word the image file
 * (IMG) and $MKFS_UUID the fixed UUID below. The shell reads these lines
 * with sed, so keep each entry on one line, in this exact form. Every
 * command runs with its standard output discarded, with the environment
 * MKFS_ENV and under faketime at MKFS_FAKETIME: the images made on any day
 * carry the same times (2026-01-01, the clock base of boot and explore). */
#ifndef THEMIS_MKFS_TABLE_H
#define THEMIS_MKFS_TABLE_H

#define MKFS_UUID     "5468656d-6973-4000-8000-000000000001"
#define MKFS_FAKETIME "2026-01-01 00:00:00"
/* mke2fs's own fake time; UTC for FAT's local times; QA_CHECK_FS lets
 * mkfs.xfs make a small test filesystem. */
#define MKFS_ENV "E2FSPROGS_FAKE_TIME=1767225600 TZ=UTC QA_CHECK_FS=1"

/* nilfs2's segments are 1 MiB (-B 256; 8 MiB by default): a mount reads
 * ahead the whole segment it searches for the super root in, so every
 * crash state's recovery read 8 MiB (72% of its guest instructions); with
 * 1 MiB segments `explore ext4 nilfs2 --depth 2 --crash` does 2.2 M guest
 * instructions a state instead of 13.1 M, finding the same. */
/* clang-format off */
#define MKFS_TABLE(X) \
	X(ext2, 64, "mkfs.ext2 -q -F -U $MKFS_UUID -E hash_seed=$MKFS_UUID,root_owner=0:0 IMG") \
	X(ext3, 64, "mkfs.ext3 -q -F -U $MKFS_UUID -E hash_seed=$MKFS_UUID,root_owner=0:0 IMG") \
	X(ext4, 64, "mkfs.ext4 -q -F -U $MKFS_UUID -E hash_seed=$MKFS_UUID,root_owner=0:0 IMG") \
	X(xfs, 300, "mkfs.xfs -q -f -m uuid=$MKFS_UUID IMG") \
	X(btrfs, 128, "mkfs.btrfs -q -f -U $MKFS_UUID IMG") \
	X(f2fs, 64, "mkfs.f2fs -q -f -U $MKFS_UUID IMG") \
	X(vfat, 64, "mkfs.vfat --invariant -i 54484d53 IMG") \
	X(exfat, 64, "mkfs.exfat IMG") \
	X(jfs, 64, "mkfs.jfs -q IMG") \
	X(nilfs2, 160, "mkfs.nilfs2 -q -f -B 256 IMG") \
	X(minix, 64, "mkfs.minix -3 IMG")
/* clang-format on */

#endif
