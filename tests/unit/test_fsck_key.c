/* tier: fast */
/* test_fsck_key.c - the checkers' memo key (src/format/fsck_key.c) on real
 * images made by mkfs.ext4 and mkfs.xfs: two disks that differ only in
 * what a history stamps (times within their era, generations, checksums,
 * LSNs, mount counts, a clean journal's or log's blocks, free space) get
 * one key; two that differ in anything a checker judges (a link count, a
 * free count, a time's epoch bits, a dirty journal's blocks) get two; an
 * unclean unmount keys the bytes. A regular file's bytes (which no checker
 * reads) are masked; a symlink's target held in a block is not. Each
 * case writes through the disk's copy-on-write layer in a fork, as the
 * machine does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "disk/disk.h"
#include "format/fsck_key.h"
#include "format/layout.h"

/* A field to set: width bytes (1, 2, 4 or 8) at byte off, in the byte
 * order of the format. */
struct poke {
	uint64_t off;
	uint64_t value;
	int width;
};

static char dir[] = "/tmp/themis-fsck-key-XXXXXX";

static void put(struct disk *d, const struct poke *p, bool be)
{
	uint8_t sec[DISK_SECTOR_SIZE];
	uint64_t s = p->off / DISK_SECTOR_SIZE, at = p->off % DISK_SECTOR_SIZE;
	CHECK(at + (uint64_t)p->width <= DISK_SECTOR_SIZE);
	CHECK(disk_read(d, s, sec, 1) == 0);
	for (int i = 0; i < p->width; i++) {
		int shift = 8 * (be ? p->width - 1 - i : i);
		sec[at + (uint64_t)i] = (uint8_t)(p->value >> shift);
	}
	CHECK(disk_write(d, s, sec, 1) == 0);
}

/* The key of the disk with the pokes made, in a fork let go after. */
static bool key_of(struct disk *d, const char *fs, const struct poke *p, int n, bool clean,
		   uint8_t key[16])
{
	bool be = !strcmp(fs, "xfs");
	CHECK(disk_fork(d) == 0);
	for (int i = 0; i < n; i++)
		put(d, &p[i], be);
	bool masked = fsck_key(fs, d, 7, clean, key);
	CHECK(disk_release(d) == 0);
	return masked;
}

/* Whether the two sets of pokes give one key (both masked keys). */
static bool same(struct disk *d, const char *fs, const struct poke *a, int na, const struct poke *b,
		 int nb)
{
	uint8_t ka[16], kb[16];
	CHECK(key_of(d, fs, a, na, true, ka));
	CHECK(key_of(d, fs, b, nb, true, kb));
	return !memcmp(ka, kb, 16);
}
#define SAME(d, fs, a, b) same(d, fs, a, sizeof(a) / sizeof(a[0]), b, sizeof(b) / sizeof(b[0]))

static int make_image(const char *name, const char *size, const char *mkfs, char *path, size_t cap)
{
	char cmd[1024];
	snprintf(path, cap, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "truncate -s %s %s && %s %s >/dev/null 2>&1", size, path, mkfs,
		 path);
	return system(cmd) == 0 ? 0 : -1;
}

static uint64_t start_of(const struct layout *l, const char *structure)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->r[i].structure, structure))
			return l->r[i].lba * LAYOUT_SECTOR;
	return 0;
}

/* The tree both populated images hold: f, a regular file of 8 KiB, and s,
 * a symlink whose 400-byte target fits in no inode (ext4 keeps 60 bytes
 * there, a v5 xfs inode 336). Returns the target. */
static const char *tree_target(void)
{
	static char target[401];
	if (!target[0]) {
		for (int i = 0; i < 400; i++)
			target[i] = i % 50 == 49 ? '/' : 'a' + i % 26;
	}
	return target;
}

/* A file's bytes and a symlink's block, in an image holding tree_target's
 * tree: one key for the first (no checker reads a regular file's bytes),
 * two for the second (checkers read a symlink's target). */
static void check_contents(struct disk *d, const char *fs, const struct layout *l)
{
	uint64_t data = start_of(l, "data"), link = start_of(l, "symlink");
	if (!CHECK(data > 0 && link > 0))
		return;
	struct poke d1[] = {{data + 100, 0x11, 4}}, d2[] = {{data + 100, 0x22, 4}};
	struct poke l1[] = {{link + 100, 0x11, 4}}, l2[] = {{link + 100, 0x22, 4}};
	CHECK(SAME(d, fs, d1, d2));
	CHECK(!SAME(d, fs, l1, l2));
}

/* An image of `size` made by mkfs with the tree of tree_target, opened
 * and mapped; -1 if any step failed. */
static int populated(const char *fs, struct disk *d, struct layout *l)
{
	char cmd[2048], path[256], err[256];
	snprintf(path, sizeof(path), "%s/%s-tree.img", dir, fs);
	if (!strcmp(fs, "ext4"))
		snprintf(cmd, sizeof(cmd),
			 "mkdir -p %s/tree && yes themis | head -c 8192 > %s/tree/f && "
			 "ln -sfn %s %s/tree/s && truncate -s 64M %s && "
			 "mkfs.ext4 -q -F -d %s/tree %s >/dev/null 2>&1",
			 dir, dir, tree_target(), dir, path, dir, path);
	else
		snprintf(cmd, sizeof(cmd),
			 "yes themis | head -c 8192 > %s/f && "
			 "printf '/dev/null\n0 0\nd--755 0 0\nf ---644 0 0 %s/f\n"
			 "s l--777 0 0 %s\n$\n$\n' > %s/proto && truncate -s 300M %s && "
			 "mkfs.xfs -q -f -p %s/proto %s >/dev/null 2>&1",
			 dir, dir, tree_target(), dir, path, dir, path);
	if (system(cmd) || disk_open(d, path, false, err, sizeof(err)) ||
	    layout_parse_file(l, path, err, sizeof(err)))
		return -1;
	return 0;
}

static void test_contents(void)
{
	static const char *const fss[] = {"ext4", "xfs"};
	for (size_t i = 0; i < sizeof(fss) / sizeof(fss[0]); i++) {
		struct disk d = {0};
		struct layout l = {0};
		if (!CHECK(populated(fss[i], &d, &l) == 0))
			continue;
		check_contents(&d, fss[i], &l);
		layout_free(&l);
		disk_close(&d);
	}
}

/* ext4 (1 KiB blocks, 256-byte inodes, a journal): the root inode is the
 * second of the table. Offsets: e2fsprogs' ext2_fs.h. */
static void test_ext4(void)
{
	char path[256], err[256];
	struct disk d = {0};
	struct layout l = {0};
	if (!CHECK(make_image("ext4.img", "64M", "mkfs.ext4 -q -F -b 1024 -I 256", path,
			      sizeof(path)) == 0) ||
	    !CHECK(disk_open(&d, path, false, err, sizeof(err)) == 0) ||
	    !CHECK(layout_parse_file(&l, path, err, sizeof(err)) == 0))
		return;
	uint64_t root = start_of(&l, "inode-table") + 256, jsb = start_of(&l, "journal");
	CHECK(root > 256 && jsb > 0);
	/* Times within their era, generation, version, checksums: one key. */
	struct poke t1[] = {{root + 0x08, 0x60000001, 4},
			    {root + 0x64, 1, 4},
			    {root + 0x7c, 0x1111, 2},
			    {root + 0x84, 5 << 2, 4},
			    {root + 0x90, 0x60000003, 4}};
	struct poke t2[] = {{root + 0x08, 0x6000f00f, 4},
			    {root + 0x64, 99, 4},
			    {root + 0x7c, 0x2222, 2},
			    {root + 0x84, 700 << 2, 4},
			    {root + 0x90, 0x60012345, 4}};
	CHECK(SAME(&d, "ext4", t1, t2));
	/* The same bytes unclean: the bytes are the key. */
	uint8_t k1[16], k2[16];
	CHECK(!key_of(&d, "ext4", t1, 5, false, k1) && !key_of(&d, "ext4", t2, 5, false, k2));
	CHECK(memcmp(k1, k2, 16) != 0);
	/* A time in another era, epoch bits, a link count: two keys. */
	struct poke era1[] = {{root + 0x08, 0x60000001, 4}};
	struct poke era2[] = {{root + 0x08, 0x70000001, 4}};
	struct poke epoch1[] = {{root + 0x84, 5 << 2, 4}};
	struct poke epoch2[] = {{root + 0x84, (5 << 2) | 1, 4}};
	struct poke links1[] = {{root + 0x1a, 8, 2}};
	struct poke links2[] = {{root + 0x1a, 9, 2}};
	CHECK(!SAME(&d, "ext4", era1, era2));
	CHECK(!SAME(&d, "ext4", epoch1, epoch2));
	CHECK(!SAME(&d, "ext4", links1, links2));
	/* The superblock: times, mount count, bytes written, where it was
	 * mounted: one key; a free inode count: two. */
	struct poke s1[] = {{1024 + 0x30, 0x60000001, 4},
			    {1024 + 0x34, 3, 2},
			    {1024 + 0x178, 1000, 8},
			    {1024 + 0x88, 'a', 1}};
	struct poke s2[] = {{1024 + 0x30, 0x60000777, 4},
			    {1024 + 0x34, 9, 2},
			    {1024 + 0x178, 77, 8},
			    {1024 + 0x88, 'b', 1}};
	struct poke free1[] = {{1024 + 0x10, 5, 4}};
	struct poke free2[] = {{1024 + 0x10, 6, 4}};
	CHECK(SAME(&d, "ext4", s1, s2));
	CHECK(!SAME(&d, "ext4", free1, free2));
	/* Behind a clean journal superblock (s_start 0): its sequence and any
	 * logged block are one key; with s_start set, two. */
	struct poke j1[] = {{jsb + 0x18, 5, 4}, {jsb + 4096, 0x11, 4}};
	struct poke j2[] = {{jsb + 0x18, 9, 4}, {jsb + 4096, 0x22, 4}};
	CHECK(SAME(&d, "ext4", j1, j2));
	struct poke jd1[] = {{jsb + 0x1c, 1, 4}, {jsb + 4096, 0x11, 4}};
	struct poke jd2[] = {{jsb + 0x1c, 1, 4}, {jsb + 4096, 0x22, 4}};
	CHECK(!SAME(&d, "ext4", jd1, jd2));
	layout_free(&l);
	disk_close(&d);
}

/* xfs (v5): the root inode is the first of the first chunk. Offsets: the
 * kernel's xfs_format.h. */
static void test_xfs(void)
{
	char path[256], err[256];
	struct disk d = {0};
	struct layout l = {0};
	if (!CHECK(make_image("xfs.img", "300M", "mkfs.xfs -q -f", path, sizeof(path)) == 0) ||
	    !CHECK(disk_open(&d, path, false, err, sizeof(err)) == 0) ||
	    !CHECK(layout_parse_file(&l, path, err, sizeof(err)) == 0))
		return;
	uint64_t root = start_of(&l, "inode-chunk"), log = start_of(&l, "log");
	uint64_t freeb = start_of(&l, "free") + 8192;
	CHECK(root > 0 && log > 0 && freeb > 8192);
	CHECK(!strcmp(layout_name(&l, freeb / LAYOUT_SECTOR), "free"));
	/* Inode times (bigtime or not, within the era), generation, CRC,
	 * change count, LSN; the AGF's LSN and CRC; the log; free space. */
	/* (8-byte fields get values in both halves: a mask of half a field
	 * does not pass.) */
	struct poke a[] = {{root + 0x2c, 0x11, 4},
			   {root + 0x5c, 1, 4},
			   {root + 0x64, 2, 4},
			   {root + 0x68, 0x0300000003ull, 8},
			   {root + 0x70, 0x0400000004ull, 8},
			   {512 + 208, 0x0500000005ull, 8},
			   {512 + 216, 6, 4},
			   {log + 4096, 7, 4},
			   {freeb, 8, 4}};
	struct poke b[] = {{root + 0x2c, 0x22, 4},
			   {root + 0x5c, 9, 4},
			   {root + 0x64, 9, 4},
			   {root + 0x68, 0x0900000009ull, 8},
			   {root + 0x70, 0x0900000009ull, 8},
			   {512 + 208, 0x0900000009ull, 8},
			   {512 + 216, 9, 4},
			   {log + 4096, 9, 4},
			   {freeb, 9, 4}};
	CHECK(SAME(&d, "xfs", a, b));
	/* A link count, an AGF's free block count: two keys. */
	struct poke nlink1[] = {{root + 0x10, 7, 4}};
	struct poke nlink2[] = {{root + 0x10, 8, 4}};
	struct poke freeblks1[] = {{512 + 52, 7, 4}};
	struct poke freeblks2[] = {{512 + 52, 8, 4}};
	CHECK(!SAME(&d, "xfs", nlink1, nlink2));
	CHECK(!SAME(&d, "xfs", freeblks1, freeblks2));
	layout_free(&l);
	disk_close(&d);
}

/* A format with no masks keys the bytes. */
static void test_no_masks(void)
{
	CHECK(fsck_key_masks("ext4") && fsck_key_masks("xfs") && !fsck_key_masks("vfat"));
}

int main(int argc, char **argv)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	static const struct unit_test tests[] = {{"ext4", test_ext4},
						 {"xfs", test_xfs},
						 {"contents", test_contents},
						 {"no_masks", test_no_masks}};
	int rc = unit_main("test_fsck_key", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
