/* cmd_repro.c - `themis repro TRACE [--out DIR]`: write the reproducer of a
 * discrepancy's trace (src/check/repro.h), a standalone repro.c and the
 * repro.sh that makes the images, runs it and compares, for anyone to run
 * as root on a Linux machine without Themis. Exit status: 0 written; 2 bad
 * usage, a trace that cannot be read or reproduced so, or a folder that
 * cannot be written (one line naming it). */
#include <stdio.h>
#include <string.h>

#include "../check/repro.h"
#include "cli.h"

static const char repro_help[] =
    "usage: themis repro TRACE [--out DIR]\n"
    "\n"
    "Write a reproducer of the discrepancy in TRACE that runs without Themis:\n"
    "  repro.c   a standalone C program (libc and syscalls only) doing the\n"
    "            trace's operations on every mounted filesystem, as the agent\n"
    "            does, and printing each result and then what each\n"
    "            filesystem shows (stat fields, content, xattrs; bytes too for\n"
    "            a content discrepancy)\n"
    "  repro.sh  run as root: makes each image with Themis's mkfs command,\n"
    "            loop-mounts it, compiles and runs repro.c (or REPRO_BIN),\n"
    "            looks at the on-disk view as the trace did (drop caches or\n"
    "            unmount and mount), prints the lines that differ and a\n"
    "            verdict: 'REPRODUCED: ...' (exit 1) or 'NOT REPRODUCED: ...'\n"
    "            (exit 0)\n"
    "\n"
    "  --out DIR   write them into DIR (made if missing); default: NAME.repro/\n"
    "              beside the trace, NAME its file name without .trace\n"
    "\n"
    "Refused (exit 2): a finding (panic or hang), a time discrepancy, and a\n"
    "trace with settime: those need the machine's clock, which a reproducer\n"
    "must not set.\n"
    "\n"
    "exit status: 0 written; 2 bad usage, a trace that cannot be read or\n"
    "reproduced so, or a folder that cannot be written.\n";

int cmd_repro(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(repro_help, stdout);
		return 0;
	}
	const char *trace = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--out")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return usage_error("%s", "--out needs a folder");
			out = argv[++i];
		} else if (arg[0] == '-' && arg[1]) {
			return unknown_option(arg);
		} else if (trace) {
			return usage_error("'repro' takes one trace; extra argument '%s'", arg);
		} else {
			trace = arg;
		}
	}
	if (!trace)
		return usage_error("%s", "'repro' needs a trace file");
	char err[1024], dir[4096];
	if (!out) {
		repro_default_dir(trace, dir, sizeof(dir));
		out = dir;
	}
	if (repro_write(trace, out, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		return EXIT_USAGE;
	}
	printf("reproducer written: %s/repro.c and %s/repro.sh (run: sh %s/repro.sh, as root)\n",
	       out, out, out);
	return 0;
}
