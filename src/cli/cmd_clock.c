/* cmd_clock.c - `themis clock`: what every filesystem can store of time
 * (src/lens/clock.c, the sweep), and `themis clock --raw IMG NAME INO`:
 * one file's mtime as stored on an image (src/lens/rawtime.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../disk/fstype.h"
#include "../lens/rawtime.h"
#include "cli.h"

static const char clock_help[] =
    "usage: themis clock --raw IMG NAME INO\n"
    "\n"
    "--raw: the modification time of the file NAME in the root directory of the\n"
    "image IMG, whose inode number is INO (stat's), as the filesystem stored it:\n"
    "the raw fields and the time they decode to, read below the filesystem.\n"
    "IMG is only read.\n"
    "\n"
    "exit status: 0 printed; 2 bad usage, an image that cannot be read or is\n"
    "damaged, a file not found, or a format with no raw-time parser.\n";

/* --raw IMG NAME INO */
static int clock_raw(int argc, char **argv)
{
	uint64_t ino;
	if (argc != 3)
		return usage_error("%s", "--raw needs IMG NAME INO");
	if (!parse_u64(argv[2], &ino))
		return usage_error("--raw: INO must be an inode number, got '%s'", argv[2]);
	char err[256];
	uint64_t size;
	int fd = layout_open_file(argv[0], &size, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "themis: %s: %s\n", argv[0], err);
		return EXIT_USAGE;
	}
	const char *fs = fstype_detect(argv[0]);
	struct rawtime t;
	int rc =
	    fs ? rawtime_mtime(fs, layout_read_fd, &fd, size, argv[1], ino, &t, err, sizeof(err))
	       : -1;
	close(fd);
	if (!fs)
		snprintf(err, sizeof(err), "not a filesystem Themis knows");
	else if (rc > 0)
		snprintf(err, sizeof(err), "%s: no raw-time parser for this format", fs);
	if (rc) {
		fprintf(stderr, "themis: %s: %s\n", argv[0], err);
		return EXIT_USAGE;
	}
	printf("%s %s mtime=%lld.%09u %s\n", fs, argv[1], (long long)t.sec, t.nsec, t.fields);
	return 0;
}

int cmd_clock(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(clock_help, stdout);
			return 0;
		}
	if (argc >= 1 && !strcmp(argv[0], "--raw"))
		return clock_raw(argc - 1, argv + 1);
	return usage_error("%s", "usage: themis clock --raw IMG NAME INO (themis clock --help)");
}
