/* tier: fast */
/* test_fs.c - the filesystem descriptors (src/fs): every filesystem has
 * every part, or says "none" and why; what is read through them (the
 * probe of a base image, the mkfs command, the names) is each one's own.
 * The images are the build's (build/images, made by `make`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "fs/fs.h"
#include "format/fields.h"

static bool filled(const char *s)
{
	return s && s[0];
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);
	return n >= k && !strcmp(s + n - k, end);
}

/* The image, the time it declares, help. */
static void test_every_part(void)
{
	CHECK(fs_count() > 0);
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		printf("  %s\n", d->name);
		CHECK(filled(d->name) && strlen(d->name) < 16 && filled(d->about));
		CHECK(d->image_mib >= 16 && filled(d->mkfs) && ends_with(d->mkfs, " IMG"));
		CHECK(!strchr(d->mkfs, '\'') && !strchr(d->mkfs, '"')); /* one shell line */
		CHECK(d->gran_ns >= 1 && d->gran_ns <= 2000000000 && d->atime_gran_ns >= 1);
		CHECK(d->tmin < 0 ? d->tmax > 0 : d->tmin < d->tmax);
		CHECK(filled(d->crash_why));
		/* ordered namespace operations and durable names need a recovery */
		CHECK(!d->ordered_names || d->fsync_names);
		CHECK(!d->fsync_names || d->recovers);
		CHECK(filled(d->fsck[0]) != filled(d->fsck_none)); /* a checker, or why none */
		CHECK(!d->fsck_same || d->fsck[0]);
		CHECK(!d->replay_failed || d->replay[0]);
		CHECK(d->layout && d->rawtime && d->probe && filled(d->structures));
		CHECK((d->inode_at == NULL) == (d->root_ino == NULL));
	}
}

/* Each clock variant is mounted by a driver Themis knows, declares a
 * range no wider than time64, and makes a command. */
static void test_clock_variants(void)
{
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		CHECK(d->clock && d->nclock >= 1);
		for (size_t k = 0; k < d->nclock; k++) {
			const struct fs_clock_variant *c = &d->clock[k];
			char cmd[300];
			CHECK(filled(c->name) && fs_known(c->driver) && c->options);
			CHECK(c->gran_ns >= 1 && c->tmin < c->tmax);
			CHECK(!fs_mkfs_command(d, c->options, "/x/y.img", cmd, sizeof(cmd)));
			CHECK(ends_with(cmd, " '/x/y.img'") && !strstr(cmd, "$MKFS_UUID") &&
			      !strstr(cmd, " IMG"));
		}
	}
	/* The variants' names are distinct across all filesystems. */
	for (size_t i = 0; i < fs_count(); i++)
		for (size_t k = 0; k < fs_at(i)->nclock; k++)
			for (size_t j = 0; j < fs_count(); j++)
				for (size_t l = 0; l < fs_at(j)->nclock; l++)
					CHECK((i == j && k == l) ||
					      strcmp(fs_at(i)->clock[k].name,
						     fs_at(j)->clock[l].name));
}

/* The structures a target may name: a list of words, or another's list
 * with more ("(ext2's) journal"); the records with fields name their
 * table and an example field of it. */
static void test_structures_and_fields(void)
{
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		char other[16];
		if (d->structures[0] == '(')
			CHECK(sscanf(d->structures, "(%15[a-z0-9]'s)", other) == 1 &&
			      fs_known(other) && strcmp(other, d->name));
		for (size_t k = 0; k < d->nfields; k++) {
			const struct fs_field_owner *o = &d->fields[k];
			bool has = false;
			for (size_t f = 0; o->t && f < o->t->n; f++)
				has |= !strcmp(o->t->f[f].name, o->example);
			CHECK(filled(o->structure) && o->t && has);
		}
	}
}

/* The names: distinct, found by name, unknown ones refused; the list for
 * help holds them all. */
static void test_names(void)
{
	CHECK(!fs_find("ext9") && !fs_find("") && !fs_find(NULL) && !fs_known("EXT4"));
	const char *list = fs_names(" ");
	for (size_t i = 0; i < fs_count(); i++) {
		CHECK(fs_find(fs_at(i)->name) == fs_at(i));
		CHECK(strstr(list, fs_at(i)->name) != NULL);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(fs_at(i)->name, fs_at(j)->name));
	}
	CHECK(fs_mounts(FS_DEFAULT_A, FS_DEFAULT_A) && !fs_mounts(FS_DEFAULT_A, FS_DEFAULT_B));
}

/* Every base image the build made probes as its own filesystem, and as no
 * other: the probes tell the eleven formats apart. A zeroed head and one
 * cut short probe as nothing. */
static void test_probe_base_images(void)
{
	static unsigned char head[FS_PROBE_BYTES];
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		char path[64];
		snprintf(path, sizeof(path), "build/images/%s.img", d->name);
		FILE *f = fopen(path, "rb");
		if (!CHECK(f != NULL)) {
			printf("  %s: cannot read (make builds the images)\n", path);
			continue;
		}
		size_t n = fread(head, 1, sizeof(head), f);
		fclose(f);
		CHECK(n == sizeof(head));
		const char *got = fs_probe(head, n);
		if (!CHECK(got && !strcmp(got, d->name)))
			printf("  %s probes as %s\n", path, got ? got : "nothing");
		for (size_t j = 0; j < fs_count(); j++)
			CHECK(j == i || !fs_at(j)->probe(head, n));
		CHECK(!fs_probe(head, 3));
		CHECK(fs_detect(path) && !strcmp(fs_detect(path), d->name));
	}
	memset(head, 0, sizeof(head));
	CHECK(!fs_probe(head, sizeof(head)) && !fs_detect("build/images/no-such.img"));
}

/* The mkfs command: the UUID put in, the options before the image, too
 * long refused. */
static void test_mkfs_command(void)
{
	char cmd[256], tiny[16];
	const struct fs_desc *d = fs_find(FS_DEFAULT_A);
	CHECK(d && !fs_mkfs_command(d, "-I 128", NULL, cmd, sizeof(cmd)));
	CHECK(strstr(cmd, FS_MKFS_UUID) && ends_with(cmd, " -I 128"));
	CHECK(fs_mkfs_command(d, "", "img", tiny, sizeof(tiny)) == -1);
}

static const struct unit_test tests[] = {
    {"every_part", test_every_part},
    {"clock_variants", test_clock_variants},
    {"structures_and_fields", test_structures_and_fields},
    {"names", test_names},
    {"probe_base_images", test_probe_base_images},
    {"mkfs_command", test_mkfs_command},
};

UNIT_MAIN("test_fs", tests)
