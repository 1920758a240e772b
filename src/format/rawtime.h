/* rawtime.h - a file's modification time as its filesystem stored it on
 * the image, read below the filesystem from the on-disk format (the clock
 * lens, src/tools/clock.c, sets it to adversarial instants and compares
 * what stat says with what the disk holds: seconds, the nanosecond or
 * "extra" fields, epoch bits).
 *
 * A parser per format (rawtime_FS.c), each named by its filesystem's descriptor (src/fs). The
 * image is untrusted: every read is bounds-checked, every walk bounded. */
#ifndef THEMIS_RAWTIME_H
#define THEMIS_RAWTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

struct rawtime {
	int64_t sec;	  /* the mtime the stored fields decode to, */
	uint32_t nsec;	  /* by the format's own rules */
	char fields[160]; /* the fields as stored ("i_mtime=0x7fffffff i_mtime_extra=0x00000000") */
	/* The change time likewise, for the formats that store one (a parser
	 * that does not read it leaves have_ctime false). */
	bool have_ctime;
	int64_t csec;
	uint32_t cnsec;
	char cfields[160];
};

/* The mtime of the file named `name` in the root directory, whose inode
 * number (as stat gives it) is `ino`, on an image of type `fs` (src/fs's
 * names) of `size` bytes read through `read`. Each format's parser uses
 * whichever of the two locates the file in its format. 0; 1 when Themis
 * has no raw-time parser for the format; -1 with a one-line reason in err
 * (a damaged image, a file not found). */
int rawtime_mtime(const char *fs, layout_read_fn read, void *ctx, uint64_t size, const char *name,
		  uint64_t ino, struct rawtime *out, char *err, size_t errlen);

#endif
