/* rawtime.c - see rawtime.h: the dispatch to each format's parser
 * (its descriptor's, src/fs). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../fs/fs.h"
#include "rawtime_int.h"

void rawtime_set(struct rawtime *out, bool ctime, int64_t sec, uint32_t nsec, const char *fmt, ...)
{
	char *fields = ctime ? out->cfields : out->fields;
	size_t cap = ctime ? sizeof(out->cfields) : sizeof(out->fields);
	*(ctime ? &out->csec : &out->sec) = sec;
	*(ctime ? &out->cnsec : &out->nsec) = nsec;
	out->have_ctime |= ctime;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fields, cap, fmt, ap);
	va_end(ap);
}

void rawtime_le64_pair(struct rawtime *out, bool ctime, const uint8_t *in, size_t at, size_t nsat)
{
	uint64_t s = lb_le64(in + at);
	uint32_t ns = lb_le32(in + nsat);
	const char *name = ctime ? "ctime" : "mtime";
	rawtime_set(out, ctime, (int64_t)s, ns, "i_%s=0x%016" PRIx64 " i_%s_nsec=%u", name, s, name,
		    ns);
}

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
	const struct fs_desc *d = fs_find(fs);
	if (!d || !d->rawtime)
		return 1;
	return d->rawtime(&b, name, ino, out) ? -1 : 0;
}
