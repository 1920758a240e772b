/* cmd_report.c - `themis report DIR [--out FILE]`: the run an explore
 * left in DIR (report.json, traces, reproducers, pictures) as one
 * self-contained HTML page (src/report/report.h). Exit status: 0 the page
 * was written; 2 bad usage, or a DIR without a well-formed report.json, or
 * a page that cannot be written (one line naming the file). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../report/report.h"
#include "cli.h"

static const char report_help[] =
    "usage: themis report DIR [--out FILE]\n"
    "\n"
    "Write the run that 'themis explore --out DIR' left in DIR as one\n"
    "self-contained HTML page (no network: style, charts and pictures inline):\n"
    "the summary, the state space's growth by depth, every group of findings\n"
    "(each result a group of one when report.json has no groups) with its\n"
    "simplest trace, the difference it shows (stat per filesystem, first\n"
    "differing offset and hexdump, fsck verdicts) and its reproducer\n"
    "(DIR/group-NNNN/repro.sh, repro.c), the coverage heat map (operations x\n"
    "arguments) with the outcomes seen, the other lenses' data, and the SVG\n"
    "files in DIR.\n"
    "\n"
    "  --out FILE   the page (default DIR/report.html)\n"
    "\n"
    "exit status: 0 the page was written; 2 bad usage, DIR missing, its\n"
    "report.json missing or malformed, or the page cannot be written.\n";

int cmd_report(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(report_help, stdout);
		return 0;
	}
	const char *dir = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--out")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return usage_error("%s", "--out needs a file name");
			out = argv[++i];
		} else if (arg[0] == '-' && arg[1]) {
			return unknown_option(arg);
		} else if (dir) {
			return usage_error("'report' takes one folder; extra argument '%s'", arg);
		} else {
			dir = arg;
		}
	}
	if (!dir)
		return usage_error("%s", "'report' needs the folder of an explore run (--out DIR)");
	char err[PATH_MAX + 512];
	if (report_write(dir, out, err, sizeof(err))) {
		fprintf(stderr, "themis: report: %s\n", err);
		return EXIT_USAGE;
	}
	return 0;
}
