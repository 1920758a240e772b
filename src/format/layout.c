/* layout.c - see layout.h. The format-neutral half of the layout map: it
 * tells the format from the image's magic numbers, hands the image to that
 * format's parser (its descriptor's, src/fs: layout_ext.c, layout_xfs.c, ...), and turns the
 * parser's claims (byte ranges, possibly overlapping, in the order the parser trusts them) into the
 * sorted, disjoint sector ranges layout.h promises; then lookups and output. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fs/fs.h"
#include "layout_int.h"

int lb_fail(struct lb *b, const char *fmt, ...)
{
	if (!b->errlen)
		return -1;
	int k = snprintf(b->err, b->errlen, "%s: ", b->l->fs[0] ? b->l->fs : "layout");
	if (k < 0 || (size_t)k >= b->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->err + k, b->errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

int lb_read(struct lb *b, uint64_t off, void *buf, size_t n)
{
	if (off > b->size || n > b->size - off)
		return lb_fail(b,
			       "structure at byte %" PRIu64 " (%zu bytes) past the end of the "
			       "image (%" PRIu64 " bytes): truncated or damaged",
			       off, n, b->size);
	if (b->read(b->ctx, off, buf, n))
		return lb_fail(b, "cannot read %zu bytes at byte %" PRIu64, n, off);
	return 0;
}

int lb_add(struct lb *b, uint64_t off, uint64_t len, const char *structure, uint32_t unit,
	   uint64_t owner)
{
	struct layout *l = b->l;
	if (!len || off >= b->size)
		return 0;
	if (len > b->size - off)
		len = b->size - off;
	uint64_t first = off / LAYOUT_SECTOR;
	uint64_t end = (off + len + LAYOUT_SECTOR - 1) / LAYOUT_SECTOR;
	if (end > l->sectors)
		end = l->sectors;
	if (end <= first)
		return 0;
	if (l->n == l->cap) {
		if (l->cap >= LAYOUT_MAX_CLAIMS)
			return lb_fail(b, "more than %u structures: damaged image",
				       LAYOUT_MAX_CLAIMS);
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct layout_range *r = realloc(l->r, cap * sizeof(*r));
		if (!r)
			return lb_fail(b, "out of memory for %zu ranges", cap);
		l->r = r;
		l->cap = cap;
	}
	l->r[l->n++] = (struct layout_range){.lba = first,
					     .count = end - first,
					     .structure = structure,
					     .unit = unit,
					     .owner = owner};
	return 0;
}

/* A claim while the map is resolved: its sectors and its rank (the order
 * it was made in: lower wins). */
struct claim {
	uint64_t lba, end;
	uint32_t seq;
};

static int claim_cmp(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;
	if (x->lba != y->lba)
		return x->lba < y->lba ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void heap_push(uint32_t *h, size_t *n, uint32_t v)
{
	size_t i = (*n)++;
	while (i && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n)
{
	uint32_t v = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

/* Turn the claims into disjoint sorted ranges: a sweep over every claim
 * boundary, each elementary segment going to the earliest claim covering
 * it (a min-heap of the covering claims' ranks), adjacent segments of the
 * same structure, unit and owner merged. O(n log n). */
static int resolve(struct lb *b)
{
	struct layout *l = b->l;
	size_t n = l->n;
	if (!n)
		return 0;
	struct claim *c = malloc(n * sizeof(*c));
	uint64_t *edge = malloc(2 * n * sizeof(*edge));
	uint32_t *heap = malloc(n * sizeof(*heap));
	struct layout_range *out = malloc(n * 2 * sizeof(*out));
	if (!c || !edge || !heap || !out) {
		free(c);
		free(edge);
		free(heap);
		free(out);
		return lb_fail(b, "out of memory resolving %zu ranges", n);
	}
	for (size_t i = 0; i < n; i++) {
		c[i] = (struct claim){l->r[i].lba, l->r[i].lba + l->r[i].count, (uint32_t)i};
		edge[2 * i] = c[i].lba;
		edge[2 * i + 1] = c[i].end;
	}
	qsort(c, n, sizeof(*c), claim_cmp);
	qsort(edge, 2 * n, sizeof(*edge), u64_cmp);
	size_t ne = 0;
	for (size_t i = 0; i < 2 * n; i++)
		if (!ne || edge[ne - 1] != edge[i])
			edge[ne++] = edge[i];
	size_t hn = 0, next = 0, no = 0;
	for (size_t e = 0; e + 1 < ne; e++) {
		uint64_t at = edge[e], to = edge[e + 1];
		while (next < n && c[next].lba <= at)
			heap_push(heap, &hn, c[next++].seq);
		while (hn && l->r[heap[0]].lba + l->r[heap[0]].count <= at)
			heap_pop(heap, &hn);
		if (!hn)
			continue;
		const struct layout_range *w = &l->r[heap[0]];
		struct layout_range *last = no ? &out[no - 1] : NULL;
		if (last && last->lba + last->count == at && last->structure == w->structure &&
		    last->unit == w->unit && last->owner == w->owner) {
			last->count += to - at;
			continue;
		}
		/* At most 2n - 1 segments: the edges bound them. */
		out[no++] = (struct layout_range){at, to - at, w->structure, w->unit, w->owner};
	}
	free(c);
	free(edge);
	free(heap);
	free(l->r);
	l->r = out;
	l->n = no;
	l->cap = n * 2;
	return 0;
}

int layout_parse(struct layout *l, layout_read_fn read, void *ctx, uint64_t size, char *err,
		 size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (errlen)
		err[0] = '\0';
	struct lb b = {
	    .l = l, .read = read, .ctx = ctx, .size = size, .err = err, .errlen = errlen};
	if (!size)
		return lb_fail(&b, "empty image");
	if (size < 4 * LAYOUT_SECTOR)
		return lb_fail(&b, "image of %" PRIu64 " bytes is too small for any filesystem",
			       size);
	l->sectors = size / LAYOUT_SECTOR;
	size_t n = size < FS_PROBE_BYTES ? (size_t)size : FS_PROBE_BYTES;
	uint8_t *head = malloc(n);
	if (!head)
		return lb_fail(&b, "out of memory");
	if (lb_read(&b, 0, head, n)) {
		free(head);
		return -1;
	}
	const struct fs_desc *d = fs_find(fs_probe(head, n));
	free(head);
	if (!d)
		return lb_fail(&b, "not a filesystem Themis knows");
	snprintf(l->fs, sizeof(l->fs), "%s", d->name);
	int rc = d->layout(&b);
	if (!rc)
		rc = resolve(&b);
	if (rc) {
		if (errlen && !err[0])
			lb_fail(&b, "damaged image");
		layout_free(l);
		return -1;
	}
	return 0;
}

int layout_read_fd(void *ctx, uint64_t off, void *buf, size_t n)
{
	const int *fd = ctx;
	uint8_t *p = buf;
	while (n) {
		ssize_t k = pread(*fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		off += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

int layout_parse_file(struct layout *l, const char *path, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	uint64_t size;
	int fd = layout_open_file(path, &size, err, errlen);
	if (fd < 0)
		return -1;
	int rc = layout_parse(l, layout_read_fd, &fd, size, err, errlen);
	close(fd);
	return rc;
}

int layout_open_file(const char *path, uint64_t *size, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	off_t n = -1;
	if (fstat(fd, &st) == 0)
		n = S_ISBLK(st.st_mode) ? lseek(fd, 0, SEEK_END) : st.st_size;
	if (n < 0 || S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot read: %s",
			 S_ISDIR(st.st_mode) ? "a directory" : strerror(errno));
		close(fd);
		return -1;
	}
	*size = (uint64_t)n;
	return fd;
}

void layout_free(struct layout *l)
{
	free(l->r);
	l->r = NULL;
	l->n = l->cap = 0;
}

const struct layout_range *layout_find(const struct layout *l, uint64_t lba)
{
	size_t lo = 0, hi = l->n; /* the answer, if any, is the last range starting <= lba */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->r[mid].lba <= lba)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct layout_range *r = &l->r[lo - 1];
	return lba - r->lba < r->count ? r : NULL;
}

const char *layout_name(const struct layout *l, uint64_t lba)
{
	const struct layout_range *r = layout_find(l, lba);
	return r ? r->structure : "free";
}

void layout_print(const struct layout *l, FILE *f)
{
	fprintf(f, "# %s: %" PRIu64 " sectors of %u bytes, block %u, inode %u\n", l->fs, l->sectors,
		LAYOUT_SECTOR, l->block_size, l->inode_size);
	fprintf(f, "# first last count structure [unit=BYTES] [owner=ID]\n");
	for (size_t i = 0; i < l->n; i++) {
		const struct layout_range *r = &l->r[i];
		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %s", r->lba, r->lba + r->count - 1,
			r->count, r->structure);
		if (r->unit)
			fprintf(f, " unit=%u", r->unit);
		if (r->owner)
			fprintf(f, " owner=%" PRIu64, r->owner);
		fputc('\n', f);
	}
}

void layout_json(const struct layout *l, FILE *f)
{
	fputs("[\n", f);
	for (size_t i = 0; i < l->n; i++) {
		const struct layout_range *r = &l->r[i];
		/* Structure names are fixed identifiers: nothing to escape. */
		fprintf(f, "  {\"lba\": %" PRIu64 ", \"count\": %" PRIu64 ", \"structure\": \"%s\"",
			r->lba, r->count, r->structure);
		if (r->unit)
			fprintf(f, ", \"unit\": %u", r->unit);
		if (r->owner)
			fprintf(f, ", \"owner\": %" PRIu64, r->owner);
		fputs(i + 1 < l->n ? "},\n" : "}\n", f);
	}
	fputs("]\n", f);
}
