/* rawtime.c - see rawtime.h: the dispatch to each format's parser. */
#include <stdio.h>
#include <string.h>

#include "rawtime_int.h"

static const struct {
	const char *fs;
	rawtime_fn *parse;
} formats[] = {
#define RAWTIME_ROW(fs, parser) {#fs, parser},
    RAWTIME_FORMATS(RAWTIME_ROW)
#undef RAWTIME_ROW
};

int rawtime_mtime(const char *fs, layout_read_fn read, void *ctx, uint64_t size, const char *name,
		  uint64_t ino, struct rawtime *out, char *err, size_t errlen)
{
	struct layout l = {0};
	struct lb b = {
	    .l = &l, .read = read, .ctx = ctx, .size = size, .err = err, .errlen = errlen};
	snprintf(l.fs, sizeof(l.fs), "%s", fs);
	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = 0;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].fs, fs))
			return formats[i].parse(&b, name, ino, out) ? -1 : 0;
	return 1;
}
