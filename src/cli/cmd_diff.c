/* cmd_diff.c - `themis diff A B [--normalize] [--json FILE]`: the sectors
 * and bytes that differ between two images, each named by structure and
 * field (src/format/diff.h). Exit status as diff(1)'s: 0 the same, 1
 * different, 2 trouble (a one-line message naming the file). */
#include <stdio.h>
#include <string.h>

#include "../format/diff.h"
#include "../format/fields.h"
#include "cli.h"

#define DIFF_MAX_NO_MASK 32

static const char diff_help[] =
    "usage: themis diff A B [--normalize] [--json FILE]\n"
    "\n"
    "Compare two disk images of the same size sector by sector and name every\n"
    "differing byte range by the structure that holds it (from the layout map:\n"
    "superblock, inode-table, directory, data...) and its field (s_mtime,\n"
    "inode 12 i_ctime_extra, group 0 bg_checksum, agf_uuid...).\n"
    "\n"
    "  --normalize   mask the fields that differ between logically equal runs:\n"
    "                times, uuids, hash seeds, generations, and the checksums\n"
    "                over them (placed by the images' own geometry); both the\n"
    "                raw and the normalized counts are reported. Needs a\n"
    "                filesystem whose fields Themis knows (themis fs NAME)\n"
    "  --json FILE   write {\"sectors_differing\", \"sectors_differing_raw\",\n"
    "                \"ranges\": [{\"lba\", \"count\", \"structure\", \"field\", \"byte\",\n"
    "                \"len\"}...]} to FILE ('-': standard output)\n"
    "\n"
    "Output: a summary line, then a line per differing range:\n"
    "  lba N (+count) structure [inode I | group G] field: bytes a..b\n"
    "(a..b: byte offsets in the image, b included). An image of an unknown\n"
    "filesystem is still compared byte for byte, with structure \"unknown\".\n"
    "Images of different sizes are not compared (exit 2).\n"
    "\n"
    "Exit status: 0 the same (after the masks), 1 different, 2 trouble.\n";

static void put_json(const void *res, FILE *f)
{
	diff_json(res, f);
}

int cmd_diff(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(diff_help, stdout);
		return 0;
	}
	const char *files[2] = {NULL, NULL}, *json = NULL;
	const char *no_mask[DIFF_MAX_NO_MASK];
	struct diff_opts o = {.no_mask = no_mask};
	int nfiles = 0;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(diff_help, stdout);
			return 0;
		}
		if (!strcmp(arg, "--normalize")) {
			o.normalize = true;
		} else if (!strcmp(arg, "--json") || !strcmp(arg, "--no-mask")) {
			if (i + 1 == argc)
				return usage_error("option '%s' needs a value", arg);
			const char *val = argv[++i];
			if (arg[2] == 'j') {
				json = val;
				continue;
			}
			/* Hidden: leave one mask off, for the tests' controls. */
			const char *colon = strchr(val, ':');
			if (!field_name_known(colon ? colon + 1 : val))
				return usage_error("--no-mask: no field is named '%s'", val);
			if (o.n_no_mask == DIFF_MAX_NO_MASK)
				return usage_error("too many --no-mask options (at most %s)", "32");
			no_mask[o.n_no_mask++] = val;
		} else if (arg[0] == '-' && arg[1]) {
			return unknown_option(arg);
		} else if (nfiles == 2) {
			return usage_error("diff compares two images; '%s' is a third", arg);
		} else {
			files[nfiles++] = arg;
		}
	}
	if (nfiles < 2)
		return usage_error("%s", "diff needs two images: themis diff A B");

	struct diff_result res;
	char err[512];
	int rc = diff_files(&res, files[0], files[1], &o, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "themis: diff: %s\n", err);
		diff_free(&res);
		return EXIT_USAGE;
	}
	printf("%s %s: %s, %llu sectors differ", files[0], files[1], res.fs[0] ? res.fs : "unknown",
	       (unsigned long long)res.sectors);
	if (o.normalize)
		printf(" after normalizing (raw %llu; %llu ranges masked)",
		       (unsigned long long)res.sectors_raw, (unsigned long long)res.masked);
	printf("\n");
	diff_print(&res, stdout);
	if (json && write_out(json, put_json, &res))
		rc = EXIT_USAGE;
	diff_free(&res);
	return rc;
}
