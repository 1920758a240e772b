/* fs.h - one descriptor per filesystem, the one place that says what
 * Themis knows of each: how its base image is made, the time it declares,
 * what it promises a crash, its checker and log replay, whether it
 * checksums its metadata, the parsers that read its disk below the
 * filesystem (layout, raw times, fields), where a bit may be flipped, how
 * an image of it is recognised, and a line of help. Linux's
 * `file_system_type` is the model: a struct each filesystem fills in,
 * registered once (FS_LIST below), read through fs_find.
 *
 * Every table the tools used to keep is generated from the descriptors
 * (the images' mkfs lines: `themis fs --mkfs`, which scripts/mkimages.sh
 * reads; the checkers; the crash promises; the clock's variants; the
 * layout and raw-time parsers; the probe of an image's type; help strings). Nothing
 * outside src/fs names a filesystem in a string literal
 * (tests/cli/test_fs.sh); tests/unit/test_fs.c checks that every
 * descriptor has every part, or says "none" and why.
 *
 * A new filesystem is its file here (src/fs/NAME.c, `const struct fs_desc
 * fs_NAME`), a line in FS_LIST, its rules (rules/NAME.rules) and its
 * kernel config line (guest/kernel/); docs/architecture.md walks
 * through one. */
#ifndef THEMIS_FS_H
#define THEMIS_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../util/epoch.h"

/* Every filesystem, in the order help and tables list them. The probe
 * tries them in FS_PROBE_ORDER (fs.c): a format whose magic could sit in
 * another's unused bytes (FAT's boot signature) is tried last. */
#define FS_LIST(X)                                                                                 \
	X(ext2)                                                                                    \
	X(ext3)                                                                                    \
	X(ext4)                                                                                    \
	X(xfs)                                                                                     \
	X(btrfs)                                                                                   \
	X(f2fs)                                                                                    \
	X(vfat)                                                                                    \
	X(exfat)                                                                                   \
	X(jfs)                                                                                     \
	X(nilfs2)                                                                                  \
	X(minix)                                                                                   \
	X(ntfs3)                                                                                   \
	X(udf)                                                                                     \
	X(reiserfs)                                                                                \
	X(gfs2)                                                                                    \
	X(ocfs2)

/* What explore compares when the user names no filesystem (the two
 * journaling filesystems most deployed), and what profile measures (ext2
 * besides: no journal, so the I/O a journal adds shows by difference): as
 * an array's initializer and as words for help texts. */
#define FS_DEFAULT_A	   "ext4"
#define FS_DEFAULT_B	   "xfs"
#define FS_PROFILE_EXTRA   "ext2"
#define FS_EXPLORE_DEFAULT FS_DEFAULT_A, FS_DEFAULT_B
#define FS_EXPLORE_WORDS   FS_DEFAULT_A " " FS_DEFAULT_B
#define FS_PROFILE_DEFAULT FS_PROFILE_EXTRA, FS_DEFAULT_A, FS_DEFAULT_B
#define FS_PROFILE_WORDS   FS_PROFILE_EXTRA " " FS_DEFAULT_A " " FS_DEFAULT_B

/* How every base image is made (fs_desc.mkfs), by scripts/mkimages.sh
 * and by a reproducer's repro.sh alike: a fixed UUID where the tool takes
 * one, on the constant host (src/mkfs/fixed_host.c, preloaded, in a pid
 * namespace of its own, under the words FS_MKFS_HOST) whose clock is
 * frozen at the machine's clock base (the images made on any day carry
 * the same times: 2026-01-01, what boot and explore start at), with this
 * environment: the shim's frozen time, mke2fs's own fake time, UTC for
 * FAT's local times, QA_CHECK_FS so mkfs.xfs makes a small test
 * filesystem. FS_MKFS_FAKETIME is the same instant for faketime, where
 * the shim cannot be built. */
#define FS_MKFS_UUID	 "5468656d-6973-4000-8000-000000000001"
#define FS_MKFS_FAKETIME "2026-01-01 00:00:00"
#define FS_MKFS_ENV                                                                                \
	"FIXED_TIME=" THEMIS_EPOCH_STR " E2FSPROGS_FAKE_TIME=" THEMIS_EPOCH_STR                    \
	" TZ=UTC QA_CHECK_FS=1"
#define FS_MKFS_HOST "setarch -R env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin"

#define FS_ARGV_MAX 8
#define FS_T64_MIN  (-9223372036854775807LL - 1)
#define FS_T64_MAX  9223372036854775807LL

struct lb;
struct rawtime;
struct field_table;
struct corrupt_image;

/* One on-disk variant `themis clock` measures (src/tools/clock.c): the
 * descriptor's mkfs line with `options` added, mounted by `driver`, and
 * what Linux 6.1 declares for it (fs/FS/super.c: s_time_gran, s_time_min,
 * s_time_max; the kernel's defaults, 1 s and all of time64, where none is
 * set). */
struct fs_clock_variant {
	const char *name, *driver, *options;
	uint64_t gran_ns;
	int64_t tmin, tmax;
};

/* A record with named fields (src/format/fields.h) a corruption target may
 * name: the structure a target names, the layout's name of its records
 * (NULL: located from inode numbers), the table, a field for --help. */
struct fs_field_owner {
	const char *structure, *record;
	const struct field_table *t;
	const char *example;
};

enum fs_csum {
	FS_CSUM_NONE,	   /* no checksums over metadata */
	FS_CSUM_ALWAYS,	   /* every metadata block carries one */
	FS_CSUM_IF_FIELDS, /* when the superblock's fields say so (fields.h) */
};

struct fs_desc {
	const char *name;  /* the kernel's type name, what mount(2) takes */
	const char *about; /* one line for `themis fs` and the help texts */
	/* Other formats this driver mounts when asked to (ext4 mounts an ext2
	 * or ext3 image), space-separated; NULL: none. */
	const char *also_mounts;

	/* The base image: its size and the mkfs line, its last word the
	 * image file (IMG), $MKFS_UUID the fixed UUID (scripts/mkimages.sh;
	 * repro.sh writes the same line). One line, no quotes. */
	unsigned image_mib;
	const char *mkfs;
	/* What the tool draws at random or keeps from its own run (NULL:
	 * nothing): the same every time on scripts/mkimages.sh's constant
	 * host (src/mkfs/fixed_host.c), but not in a reproducer's mkfs on
	 * another machine; where even the constant host cannot fix it, the
	 * text says "not repeatable". */
	const char *mkfs_random;

	/* The time it declares (mtime and ctime; atime) in ns, and the range
	 * in seconds (explore --time holds it to these). */
	uint64_t gran_ns, atime_gran_ns;
	int64_t tmin, tmax;
	/* Its variants for `themis clock`; none: NULL, with clock_none. */
	const struct fs_clock_variant *clock;
	size_t nclock;

	/* What it promises a crash (src/lens/lens_crash.c). recovers: a
	 * journal, log or copy-on-write tree brings it back consistent, so
	 * its checker must find the recovered disk clean; fsync_names: fsync
	 * makes a file durable under its name; ordered_names: every namespace
	 * operation is one transaction committed in order, so a crash
	 * recovers the namespace of some prefix of the operations. why: the
	 * reason, from the kernel's source. */
	bool recovers, fsync_names, ordered_names;
	const char *crash_why;

	/* Its checker, asked to change nothing (the image is appended), and
	 * the same checker built another way, run instead when installed;
	 * none: fsck[0] NULL and fsck_none the reason. */
	const char *fsck[FS_ARGV_MAX], *fsck_same, *fsck_none;
	/* The user-space step of its crash recovery, run on the host before
	 * the mount (src/lens/crash_replay.h), and the words its output
	 * holds when it failed though it exited 0; none: replay[0] NULL (the
	 * kernel replays its own log). */
	const char *replay[FS_ARGV_MAX], *replay_failed;

	enum fs_csum csum;

	/* Below the filesystem: its layout map's parser (src/format/layout.h),
	 * its raw times' parser (rawtime.h), the structures a populated image
	 * holds (as the map names them, for `corrupt --help`; "(ext2's) ..."
	 * adds to another's), the records with fields, and, where inodes are
	 * located one by one from their numbers, how (corrupt_target.c). */
	int (*layout)(struct lb *b);
	int (*rawtime)(struct lb *b, const char *name, uint64_t ino, struct rawtime *out);
	const char *structures;
	const struct fs_field_owner *fields;
	size_t nfields;
	uint64_t (*inode_at)(const struct corrupt_image *im, uint64_t ino, uint32_t *isz);
	uint64_t (*root_ino)(const struct corrupt_image *im);

	/* Whether the first n bytes of an image (n <= FS_PROBE_BYTES, fewer
	 * when the image is smaller) hold this filesystem: magic numbers from
	 * the format's documentation, the ones blkid uses. */
	bool (*probe)(const uint8_t *b, size_t n);
};

/* Bytes from the start of an image that decide its type (btrfs's magic
 * lies at 64 KiB). */
#define FS_PROBE_BYTES (68u << 10)

#define FS_DECLARE(name) extern const struct fs_desc fs_##name;
FS_LIST(FS_DECLARE)
#undef FS_DECLARE

/* The descriptors, in FS_LIST's order. */
size_t fs_count(void);
const struct fs_desc *fs_at(size_t i);
/* The descriptor of the type name fs; NULL for one Themis does not know. */
const struct fs_desc *fs_find(const char *fs);
/* fs_find(fs), or a descriptor that has and promises nothing (for a
 * name Themis does not know: every part zero, NULL or false). */
const struct fs_desc *fs_find_or_none(const char *fs);
/* fs_find(fs) != NULL. */
bool fs_known(const char *fs);
/* Whether mounting as `driver` takes an image of `format`. */
bool fs_mounts(const char *driver, const char *format);
/* The names joined by sep ("ext2, ext3, ..."), in a static buffer. */
const char *fs_names(const char *sep);

/* The type of the first n bytes of an image, or NULL. */
const char *fs_probe(const uint8_t *b, size_t n);
/* The type of the image at path, or NULL (none known, or unreadable). */
const char *fs_detect(const char *path);

/* Join argv (up to max words, NULL-terminated) into line. */
const char *fs_join(const char *const *argv, int max, char *line, size_t cap);
/* d's mkfs line with `options` (may be NULL or "") put before the image,
 * IMG replaced by image (quoted; NULL: left out), $MKFS_UUID by the UUID:
 * a shell command. 0, or -1 when it does not fit. */
int fs_mkfs_command(const struct fs_desc *d, const char *options, const char *image, char *out,
		    size_t cap);

#endif
