/* tier: fast */
/* test_identity.c - the machine's identity (src/machine/identity.c), the
 * one record that traces, snapshots and shared runs compare: text written
 * and read back is the same identity, paths with spaces included; a changed
 * file, a missing part or another disk count is a difference, named; text
 * that is not an identity is refused, never half read.
 *   build/asan/test_identity [test-name]
 * Files are temporary ones under $TMPDIR (default /tmp), removed at the
 * end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "machine/identity.h"

/* A temporary file holding `text`, its path in out (with a space in it, as
 * paths may have). */
static bool make_file(char *out, size_t len, const char *text)
{
	const char *dir = getenv("TMPDIR");
	snprintf(out, len, "%s/themis id-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(out);
	if (fd < 0)
		return false;
	bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

struct files {
	char kernel[256], initrd[256], img[2][256];
};

static bool files_open(struct files *f)
{
	return make_file(f->kernel, sizeof(f->kernel), "kernel") &&
	       make_file(f->initrd, sizeof(f->initrd), "initrd") &&
	       make_file(f->img[0], sizeof(f->img[0]), "image 0") &&
	       make_file(f->img[1], sizeof(f->img[1]), "image 1");
}

static void files_close(struct files *f)
{
	unlink(f->kernel);
	unlink(f->initrd);
	unlink(f->img[0]);
	unlink(f->img[1]);
}

static bool take(struct identity *id, const struct files *f)
{
	const char *images[2] = {f->img[0], f->img[1]}, *names[2] = {"ext4", "xfs"};
	char err[1200];
	bool ok = identity_take(id, f->kernel, f->initrd, images, names, 2, err, sizeof(err)) == 0;
	if (!ok)
		fprintf(stderr, "identity_take: %s\n", err);
	return ok;
}

/* Read text, one line at a time, into id; false if a line is refused. */
static bool parse(struct identity *id, const char *text)
{
	char buf[16384], *save;
	snprintf(buf, sizeof(buf), "%s", text);
	memset(id, 0, sizeof(*id));
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (identity_parse_line(id, l) != 1)
			return false;
	return true;
}

static void test_text_round_trip(void)
{
	static struct files f;
	static struct identity id, back;
	char text[16384] = "", why[1200];
	if (!CHECK(files_open(&f)) || !CHECK(take(&id, &f)))
		return;
	CHECK(id.build.known && id.kernel.known && id.initrd.known && id.nimages == 2);
	CHECK(identity_to_text(&id, true, text, sizeof(text)) > 0);
	CHECK(!strncmp(text, "build ", 6) && strstr(text, "\nimage xfs "));
	CHECK(parse(&back, text));
	CHECK(identity_diff(&id, &back, IDENTITY_ALL, why, sizeof(why)) == 0);
	CHECK(!strcmp(back.kernel.path, f.kernel) && !strcmp(back.images[1].path, f.img[1]));
	CHECK(!strcmp(back.image_names[0], "ext4"));
	/* Without paths: the same identity, no path read back. */
	text[0] = 0;
	CHECK(identity_to_text(&id, false, text, sizeof(text)) > 0 && !strstr(text, "themis id"));
	CHECK(parse(&back, text) && !back.kernel.path[0]);
	CHECK(identity_diff(&id, &back, IDENTITY_ALL, why, sizeof(why)) == 0);
	/* Too small a buffer is refused, not cut. */
	char small[40] = "";
	CHECK(identity_to_text(&id, true, small, sizeof(small)) == -1);
	files_close(&f);
}

static void test_differences_are_named(void)
{
	static struct files f;
	static struct identity id, now;
	char why[1200];
	if (!CHECK(files_open(&f)) || !CHECK(take(&id, &f)))
		return;
	FILE *w = fopen(f.img[1], "a");
	CHECK(w && fputs("changed", w) >= 0 && fclose(w) == 0);
	CHECK(take(&now, &f));
	CHECK(identity_diff(&id, &now, IDENTITY_ALL, why, sizeof(why)) == IDENTITY_IMAGES);
	CHECK(strstr(why, "image xfs") && strstr(why, f.img[1]));
	CHECK(identity_diff(&id, &now, IDENTITY_BUILD | IDENTITY_KERNEL, why, sizeof(why)) == 0);
	now = id;
	now.kernel.hash[3] ^= 1;
	now.build.known = false;
	CHECK(identity_diff(&id, &now, IDENTITY_ALL, why, sizeof(why)) ==
	      (IDENTITY_BUILD | IDENTITY_KERNEL));
	CHECK(!strcmp(why, "the build"));
	now = id;
	now.nimages = 1;
	CHECK(identity_diff(&id, &now, IDENTITY_ALL, why, sizeof(why)) == IDENTITY_IMAGES);
	CHECK(strstr(why, "disk count") != NULL);
	files_close(&f);
	char err[1200];
	CHECK(identity_take(&now, "/nonexistent/kernel", NULL, NULL, NULL, 0, err, sizeof(err)));
	CHECK(strstr(err, "/nonexistent/kernel") != NULL);
}

static void test_bad_lines_are_refused(void)
{
	static struct identity id;
	static const char *const bad[] = {
	    "build 0123",				 /* short hash */
	    "build x0123456789abcdef0123456789abcdef",	 /* not hex */
	    "build /p 0123456789abcdef0123456789abcdef", /* a build has no path */
	    "kernel 0123456789abcdef0123456789abcdeF",	 /* upper case */
	    "kernel /p0123456789abcdef0123456789abcdef", /* no space */
	    "image 0123456789abcdef0123456789abcdef",	 /* no name */
	    "image averyveryverylongname 0123456789abcdef0123456789abcdef", /* name too long */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&id, 0, sizeof(id));
		if (!CHECK(identity_parse_line(&id, bad[i]) == -1))
			fprintf(stderr, "  accepted: %s\n", bad[i]);
	}
	memset(&id, 0, sizeof(id));
	CHECK(identity_parse_line(&id, "mem 123") == 0); /* not ours: left to the caller */
	CHECK(identity_parse_line(&id, "kernel 0123456789abcdef0123456789abcdef") == 1);
	CHECK(identity_parse_line(&id, "kernel 0123456789abcdef0123456789abcdef") ==
	      -1); /* twice */
	for (int i = 0; i < IDENTITY_MAX_IMAGES; i++)
		CHECK(identity_parse_line(&id, "image d 0123456789abcdef0123456789abcdef") == 1);
	CHECK(identity_parse_line(&id, "image d 0123456789abcdef0123456789abcdef") == -1);
}

static const struct unit_test tests[] = {
    {"text_round_trip", test_text_round_trip},
    {"differences_are_named", test_differences_are_named},
    {"bad_lines_are_refused", test_bad_lines_are_refused},
};

UNIT_MAIN("test_identity", tests)
