/* cmd_layout.c - `themis layout IMG [--json FILE]`: the layout map of a
 * filesystem image (src/format/layout.h), every sector named by the on-disk
 * structure holding it. The image is opened read-only. Exit status: 0 the
 * map was printed; 2 bad usage, or an image that cannot be read, holds no
 * filesystem Themis knows, or is damaged (one line naming the file). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../format/layout.h"
#include "cli.h"

static const char layout_help[] =
    "usage: themis layout IMG [--json FILE]\n"
    "\n"
    "Print the layout map of the filesystem image IMG (any filesystem `themis fs`\n"
    "lists): one line per run of\n"
    "512-byte sectors, 'first last count structure [unit=BYTES] [owner=ID]',\n"
    "sorted by sector. Sectors no line names are free. IMG is only read.\n"
    "\n"
    "  --json FILE   also write the map as JSON to FILE ('-': standard output\n"
    "                instead of the text): a list of {lba, count, structure}\n"
    "                objects, with unit and owner when set\n"
    "\n"
    "exit status: 0 the map was printed; 2 bad usage, or an image that cannot\n"
    "be read, holds no filesystem Themis knows, or is damaged.\n";

static void put_json(const void *l, FILE *f)
{
	layout_json(l, f);
}

int cmd_layout(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(layout_help, stdout);
		return 0;
	}
	const char *img = NULL, *json = NULL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(layout_help, stdout);
			return 0;
		} else if (!strcmp(arg, "--json")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return usage_error("%s", "--json needs a file name ('-': stdout)");
			json = argv[++i];
		} else if (arg[0] == '-' && arg[1]) {
			return unknown_option(arg);
		} else if (img) {
			return usage_error("'layout' takes one image; extra argument '%s'", arg);
		} else {
			img = arg;
		}
	}
	if (!img)
		return usage_error("%s", "'layout' needs an image file");
	struct layout l;
	char err[256];
	if (layout_parse_file(&l, img, err, sizeof(err))) {
		fprintf(stderr, "themis: %s: %s\n", img, err);
		layout_free(&l);
		return EXIT_USAGE;
	}
	int rc = 0;
	if (json && !strcmp(json, "-")) {
		layout_json(&l, stdout);
	} else {
		layout_print(&l, stdout);
		if (json && write_out(json, put_json, &l))
			rc = EXIT_USAGE;
	}
	layout_free(&l);
	if (fflush(stdout)) {
		fprintf(stderr, "themis: cannot write the map: %s\n", strerror(errno));
		rc = EXIT_USAGE;
	}
	return rc;
}
