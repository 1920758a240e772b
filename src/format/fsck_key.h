/* fsck_key.h - the key of the checkers' memo (src/lens/crash_fsck.c):
 * a disk as its checker judges it, not as a history wrote it.
 *
 * Two disks that hold the same files after different histories differ in
 * bytes no checker judges by value: the times each inode and the
 * superblock were stamped with, the inode generations drawn at random,
 * the checksums that cover them, the log sequence numbers of xfs's
 * blocks, the journal and log contents behind a clean mark, stale bytes
 * in free space. Keyed by raw bytes, every such disk costs a checker run
 * (1,691 runs for 24 different trees on `explore ext4 xfs --depth 2
 * --fsck`). This key hashes the disk's private chunks with those fields
 * masked, by the structure the layout map (layout.h) names for each
 * sector, parsed from the disk itself; what the fields mask is listed
 * once per format, in FSCK_KEY_FORMATS and the mask functions.
 *
 * What masking keeps: a time keeps its era (the 2^20 seconds it falls in,
 * its epoch bits, a nanosecond field that is out of range), so a checker
 * that judges 2038 or a bad nanosecond still sees it; every field that
 * names, counts or points at something is kept, so is every byte of a
 * structure the map does not name. What it assumes: a log or journal the
 * kernel marked clean (ext's s_start 0; xfs after an unmount or a
 * read-only remount that succeeded, which the caller vouches for) is read
 * by no checker beyond that mark; a regular file's bytes are read by none
 * (e2fsck and xfs_repair judge its block map, not its contents), except
 * the files that hold metadata (quota, orphan, realtime files: listed per
 * format in the init functions), so two disks whose files differ only in
 * their contents share a verdict. `--fsck-memo check` tests the assumption: it runs the
 * checker wherever this key answers and the bytes would not have, and
 * counts any verdict that differs. */
#ifndef THEMIS_LENS_FSCK_KEY_H
#define THEMIS_LENS_FSCK_KEY_H

#include <stdbool.h>
#include <stdint.h>

#include "../disk/disk.h"

/* The key of disk d of filesystem fs (src/fs's names), salted: masked
 * when fs has masks and its layout parses and the caller says the kernel
 * unmounted it cleanly (clean); the private bytes as they are
 * (disk_private_key) otherwise. Returns true when the key is masked. */
bool fsck_key(const char *fs, const struct disk *d, uint64_t salt, bool clean, uint8_t key[16]);

/* Whether fs has masks (the memo can answer for its disks by the masked key). */
bool fsck_key_masks(const char *fs);

#endif
