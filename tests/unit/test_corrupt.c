/* tier: fast */
/* test_corrupt.c - the parts of `themis corrupt` that need no machine:
 * the classifier of a flipped tree against the counterfactual's
 * (corrupt.c), the kernel-failure marks, and the targets (corrupt_target.c:
 * splitting, checking, resolving on a synthetic map, bit numbering), and
 * the checker table (corrupt_fsck.c). Each test names the property it
 * guards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "tools/corrupt.h"

static const char base[] =
    "e 0 . kind=dir mode=0755 uid=0 gid=0 nlink=- size=- content=- target=- xattrs=-\n"
    "e 0 d0 kind=dir mode=0755 uid=0 gid=0 nlink=2 size=- content=- target=- xattrs=-\n"
    "e 0 d0/f1 kind=file mode=0644 uid=0 gid=0 nlink=1 size=65536 content=aa target=- "
    "xattrs=-\n"
    "e 0 f0 kind=file mode=0644 uid=0 gid=0 nlink=1 size=8192 content=bb target=- xattrs=cc\n";

/* The same tree, in another order, is no effect: entries are matched by
 * path, not by position. */
static void test_identical_tree_is_none(void)
{
	char detail[CORRUPT_DETAIL_MAX];
	const char *shuffled =
	    "e 0 f0 kind=file mode=0644 uid=0 gid=0 nlink=1 size=8192 content=bb target=- "
	    "xattrs=cc\n"
	    "e 0 . kind=dir mode=0755 uid=0 gid=0 nlink=- size=- content=- target=- xattrs=-\n"
	    "e 0 d0/f1 kind=file mode=0644 uid=0 gid=0 nlink=1 size=65536 content=aa target=- "
	    "xattrs=-\n"
	    "e 0 d0 kind=dir mode=0755 uid=0 gid=0 nlink=2 size=- content=- target=- xattrs=-\n";
	CHECK(corrupt_classify_tree(base, base, detail, sizeof(detail)) == CORRUPT_NONE);
	CHECK(corrupt_classify_tree(base, shuffled, detail, sizeof(detail)) == CORRUPT_NONE);
	CHECK(detail[0] == 0);
}

/* Other contents, read without an error, are silent wrong data, and the
 * detail names the entry and the field. */
static void test_other_contents_are_silent(void)
{
	char detail[CORRUPT_DETAIL_MAX], *t = strdup(base);
	CHECK(t != NULL);
	if (!t)
		return;
	char *p = strstr(t, "content=aa");
	CHECK(p != NULL);
	if (p)
		p[9] = 'b';
	CHECK(corrupt_classify_tree(base, t, detail, sizeof(detail)) == CORRUPT_SILENT);
	CHECK(strstr(detail, "d0/f1: content=aa -> content=ab") != NULL);
	free(t);
}

/* An error where the counterfactual read fine is error-returned, and it
 * outranks an entry lost in the same walk. */
static void test_error_outranks_lost(void)
{
	char detail[CORRUPT_DETAIL_MAX];
	const char *t =
	    "e 0 . kind=dir mode=0755 uid=0 gid=0 nlink=- size=- content=- target=- xattrs=-\n"
	    "e 0 d0 kind=dir mode=0755 uid=0 gid=0 nlink=2 size=- content=!EIO target=- "
	    "xattrs=-\n"
	    "e 0 f0 kind=file mode=0644 uid=0 gid=0 nlink=1 size=8192 content=bb target=- "
	    "xattrs=cc\n";
	CHECK(corrupt_classify_tree(base, t, detail, sizeof(detail)) == CORRUPT_ERROR);
	CHECK(strstr(detail, "!EIO") != NULL);
}

/* Entries missing without any error are lost; a new one is wrong data. */
static void test_missing_is_lost_new_is_silent(void)
{
	char detail[CORRUPT_DETAIL_MAX];
	const char *lost =
	    "e 0 . kind=dir mode=0755 uid=0 gid=0 nlink=- size=- content=- target=- xattrs=-\n";
	CHECK(corrupt_classify_tree(base, lost, detail, sizeof(detail)) == CORRUPT_LOST);
	CHECK(strstr(detail, "missing (3 of 4 entries lost)") != NULL);
	char more[1024];
	snprintf(more, sizeof(more),
		 "%se 0 zz kind=file mode=0644 uid=0 gid=0 nlink=1 size=0 "
		 "content=- target=- xattrs=-\n",
		 base);
	CHECK(corrupt_classify_tree(base, more, detail, sizeof(detail)) == CORRUPT_SILENT);
	CHECK(strstr(detail, "zz: appeared") != NULL);
}

/* Oopses, BUGs and panics are failures; an ordinary warning is not. */
static void test_kernel_lines(void)
{
	CHECK(corrupt_kernel_line("Unable to handle kernel paging request at virtual address 0"));
	CHECK(corrupt_kernel_line("kernel BUG at fs/ext2/inode.c:123!"));
	CHECK(corrupt_kernel_line("BUG: KASAN: slab-out-of-bounds"));
	CHECK(!corrupt_kernel_line("EXT4-fs error (device vda): htree_dirblock_to_tree"));
	CHECK(!corrupt_kernel_line("BTRFS warning (device vda): checksum verify failed"));
}

/* STRUCT[:FIELD] splits at the first colon, btrfs's tree:NAME kept whole. */
static void test_split(void)
{
	char s[CORRUPT_NAME_MAX], f[CORRUPT_NAME_MAX], err[256];
	CHECK(!corrupt_target_split("ext2", "superblock:s_magic", s, f, err, sizeof(err)));
	CHECK(!strcmp(s, "superblock") && !strcmp(f, "s_magic"));
	CHECK(!corrupt_target_split("btrfs", "tree:csum", s, f, err, sizeof(err)));
	CHECK(!strcmp(s, "tree:csum") && !f[0]);
	CHECK(!corrupt_target_split("btrfs", "tree:fs:x", s, f, err, sizeof(err)));
	CHECK(!strcmp(s, "tree:fs") && !strcmp(f, "x"));
	CHECK(corrupt_target_split("ext2", ":s_magic", s, f, err, sizeof(err)) == -1);
	CHECK(corrupt_target_split("ext2", "superblock:", s, f, err, sizeof(err)) == -1);
}

/* Unknown structures and fields are refused with a reason; known ones,
 * classes and what populating adds pass. */
static void test_check(void)
{
	char err[256];
	CHECK(!corrupt_target_check("ext2", "superblock", "s_magic", NULL, err, sizeof(err)));
	CHECK(!corrupt_target_check("xfs", "inode", "di_mode", NULL, err, sizeof(err)));
	CHECK(!corrupt_target_check("xfs", "agf", "agf_magicnum", NULL, err, sizeof(err)));
	CHECK(!corrupt_target_check("btrfs", "tree:csum", "", NULL, err, sizeof(err)));
	CHECK(!corrupt_target_check("ext4", "journal", "", NULL, err, sizeof(err)));
	CHECK(!corrupt_target_check("minix", "bitmap", "", NULL, err, sizeof(err)));
	CHECK(corrupt_target_check("ext2", "frob", "", NULL, err, sizeof(err)) == -1);
	CHECK(strstr(err, "ext2 has no structure 'frob'") != NULL);
	CHECK(corrupt_target_check("ext2", "superblock", "s_frob", NULL, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no field 's_frob'") != NULL);
	CHECK(corrupt_target_check("ext2", "superblock", "sb_magicnum", NULL, err, sizeof(err)) ==
	      -1);
	CHECK(corrupt_target_check("vfat", "fat", "x", NULL, err, sizeof(err)) == -1);
}

static int zero_read(void *ctx, uint64_t off, void *buf, size_t n)
{
	(void)ctx, (void)off;
	memset(buf, 0, n);
	return 0;
}

/* On a synthetic map: a named structure is its ranges, a class gathers
 * its names, "free" is also every unclaimed sector, and bit k of a target
 * lies in byte k / 8 of its spans taken in order. */
static void test_resolve(void)
{
	struct layout_range ranges[] = {
	    {2, 2, "superblock", 0, 0},
	    {8, 4, "block-bitmap", 0, 0},
	    {12, 4, "inode-bitmap", 0, 0},
	    {20, 4, "free", 0, 0},
	};
	struct layout map = {"minix", 32, 1024, 0, ranges, 4, 4};
	struct field_map fields = {0};
	struct corrupt_image im = {"minix", &map, &fields, NULL, 0, zero_read, NULL, 32 * 512};
	struct corrupt_target t;
	char err[256];
	CHECK(!corrupt_target_resolve(&im, "bitmap", "", &t, err, sizeof(err)));
	CHECK(t.n == 2 && t.bytes == 8 * 512);
	CHECK(corrupt_target_byte(&t, 0) == 8 * 512);
	CHECK(corrupt_target_byte(&t, 4 * 512 * 8) == 12 * 512); /* the second span's first */
	corrupt_target_free(&t);
	CHECK(!corrupt_target_resolve(&im, "free", "", &t, err, sizeof(err)));
	/* Sectors 0-1, 4-7, 16-19, 20-23 (claimed), 24-31. */
	CHECK(t.bytes == (2 + 4 + 4 + 4 + 8) * 512ULL);
	corrupt_target_free(&t);
	CHECK(corrupt_target_resolve(&im, "directory", "", &t, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no directory") != NULL);
	char s[CORRUPT_NAME_MAX], f[CORRUPT_NAME_MAX];
	corrupt_target_name(&im, 9 * 512 + 3, s, f, sizeof(s));
	CHECK(!strcmp(s, "block-bitmap") && !f[0]);
	corrupt_target_name(&im, 17 * 512, s, f, sizeof(s));
	CHECK(!strcmp(s, "free"));
}

/* nilfs2 has no checker (verdict none, nothing started); each other
 * filesystem names one. */
static void test_fsck_table(void)
{
	CHECK(corrupt_fsck_command("nilfs2") == NULL);
	CHECK(!strcmp(corrupt_fsck_command("ext4"), "e2fsck -fn"));
	CHECK(strstr(corrupt_fsck_command("btrfs"), "--readonly") != NULL);
	struct corrupt_fsck c;
	int status;
	char said[64];
	CHECK(!corrupt_fsck_start(&c, "nilfs2", "/nonexistent", "/dev/null"));
	CHECK(corrupt_fsck_wait(&c, 1, &status, said, sizeof(said)) == CORRUPT_FSCK_NONE);
	CHECK(status == -1);
}

static const struct unit_test tests[] = {
    {"identical_tree_is_none", test_identical_tree_is_none},
    {"other_contents_are_silent", test_other_contents_are_silent},
    {"error_outranks_lost", test_error_outranks_lost},
    {"missing_is_lost_new_is_silent", test_missing_is_lost_new_is_silent},
    {"kernel_lines", test_kernel_lines},
    {"split", test_split},
    {"check", test_check},
    {"resolve", test_resolve},
    {"fsck_table", test_fsck_table},
};

UNIT_MAIN("test_corrupt", tests)
