/* diff.c - see diff.h. The engine reads both images a chunk at a time,
 * compares them sector by sector, and names only the bytes that differ: a
 * name (a "hit") holds for a stretch of bytes (a field, or one block of an
 * unnamed structure), so a run of differences costs one lookup, not one per
 * byte. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext2_fs.h>

#include "diff.h"
#include "fields.h"

#define CHUNK	  (256u << 10) /* bytes compared per read */
#define BLOCK_MAX 65536u       /* the largest filesystem block looked into */

/* What one image knows about itself. */
struct view {
	const struct diff_side *s;
	struct layout l;
	bool have_l;
	struct field_map fm;
	int fm_rc; /* field_map_build's: 0 known */
	char fm_err[128];
};

/* The name of the bytes [start, end). */
struct hit {
	uint64_t start, end;
	const char *structure, *field, *id_name;
	uint64_t id;
	bool masked;
};

struct engine {
	struct view a, b;
	const struct diff_opts *o;
	struct diff_result *res;
	uint8_t *blk_a, *blk_b; /* BLOCK_MAX each, for looking into a block */
};

static bool unmasked(const struct diff_opts *o, const struct field_table *t, const char *name)
{
	for (size_t i = 0; i < o->n_no_mask; i++) {
		const char *s = o->no_mask[i], *colon = strchr(s, ':');
		if (colon ? (strlen(t->name) == (size_t)(colon - s) &&
			     !strncmp(s, t->name, colon - s) && !strcmp(colon + 1, name))
			  : !strcmp(s, name))
			return true;
	}
	return false;
}

static bool mask_of(const struct engine *e, const struct field_table *t, const struct field *f,
		    bool csum)
{
	if (!e->o->normalize || !f)
		return false;
	if (!(f->flags & FIELD_NUISANCE) && !((f->flags & FIELD_CSUM) && csum))
		return false;
	return !unmasked(e->o, t, f->name);
}

static int side_read(const struct view *v, uint64_t off, void *buf, size_t n)
{
	if (off > v->s->size || n > v->s->size - off)
		return -1;
	return v->s->read(v->s->ctx, off, buf, n);
}

/* Name byte `off` by a record of the field map: 1 named, 0 not in a record. */
static int hit_record(struct engine *e, uint64_t off, struct hit *h)
{
	const struct field_rec *r = e->a.fm_rc == 0 ? field_map_find(&e->a.fm, off) : NULL;
	if (!r && e->b.fm_rc == 0)
		r = field_map_find(&e->b.fm, off);
	if (!r)
		return 0;
	uint64_t i = (off - r->off) / r->unit, rs = r->off + i * r->unit;
	uint32_t pos = (uint32_t)(off - rs);
	h->structure = r->structure;
	h->id_name = r->id_name;
	h->id = r->first_id + i;
	h->start = off;
	h->end = rs + r->unit;
	h->field = "";
	h->masked = false;
	if (r->t == &field_ext_inode && pos >= EXT2_GOOD_OLD_INODE_SIZE) {
		/* Past the first 128 bytes, a field exists only as far as the
		 * inode's i_extra_isize says; the rest holds extended
		 * attributes. The smaller of the two images' sizes decides. */
		uint8_t xa[2], xb[2];
		uint64_t at = rs + EXT2_GOOD_OLD_INODE_SIZE;
		if (side_read(&e->a, at, xa, 2) || side_read(&e->b, at, xb, 2))
			return -1;
		uint32_t ea = (uint32_t)(xa[0] | xa[1] << 8), eb = (uint32_t)(xb[0] | xb[1] << 8);
		uint32_t limit = EXT2_GOOD_OLD_INODE_SIZE + (ea < eb ? ea : eb);
		if (pos >= limit) {
			h->field = "i_xattr";
			return 1;
		}
		h->end = rs + limit;
	}
	const struct field *f = field_at(r->t, pos);
	if (!f) {
		if (pos < r->t->size)
			h->end = off + 1;
		return 1;
	}
	h->field = f->name;
	h->start = rs + f->off;
	if (rs + f->off + f->size < h->end)
		h->end = rs + f->off + f->size;
	h->masked = mask_of(e, r->t, f, r->csum);
	return 1;
}

/* The layout range holding `off` on one side, and its name. */
static const struct layout_range *side_range(const struct view *v, uint64_t off, const char **name)
{
	*name = NULL;
	if (!v->have_l)
		return NULL;
	const struct layout_range *r = layout_find(&v->l, off / LAYOUT_SECTOR);
	*name = r ? r->structure : "free";
	return r;
}

/* Name byte `off` by the layout maps, looking into its block for records
 * whose place depends on the content (fields.h, field_in_block). */
static int hit_layout(struct engine *e, uint64_t off, struct hit *h)
{
	const char *na, *nb;
	const struct layout_range *ra = side_range(&e->a, off, &na);
	const struct layout_range *rb = side_range(&e->b, off, &nb);
	/* A's name, unless A's is free and B's is not (a block B allocated). */
	const struct layout_range *r = ra;
	const char *name = na;
	if ((!na || !strcmp(na, "free")) && nb && strcmp(nb, "free")) {
		r = rb;
		name = nb;
	}
	const struct field_map *fm = e->a.fm_rc == 0 ? &e->a.fm : e->b.fm_rc == 0 ? &e->b.fm : NULL;
	uint64_t bs = r && r->unit ? r->unit : fm && fm->block_size ? fm->block_size : 4096;
	if (bs > BLOCK_MAX)
		bs = BLOCK_MAX;
	uint64_t base = r ? r->lba * LAYOUT_SECTOR : 0;
	uint64_t start = base + (off - base) / bs * bs, end = start + bs;
	uint64_t lim = r ? (r->lba + r->count) * LAYOUT_SECTOR : e->a.s->size;
	if (end > lim)
		end = lim;
	if (end > e->a.s->size)
		end = e->a.s->size;
	*h = (struct hit){off, end, name ? name : "unknown", "", NULL, 0, false};
	if (r && r->owner) {
		h->id_name = "inode";
		h->id = r->owner;
	}
	if (!r || !fm)
		return 0;
	uint32_t len = (uint32_t)(end - start), pos = (uint32_t)(off - start);
	if (side_read(&e->a, start, e->blk_a, len) || side_read(&e->b, start, e->blk_b, len))
		return -1;
	const struct field_table *ta = NULL, *tb = NULL;
	uint32_t at_a = 0, at_b = 0;
	bool in_a = field_in_block(fm, r->structure, e->blk_a, len, pos, &ta, &at_a);
	bool in_b = field_in_block(fm, r->structure, e->blk_b, len, pos, &tb, &at_b);
	if (!in_a && !in_b) {
		/* A record later in the block ends this stretch before it. */
		if (ta && pos < at_a && start + at_a < h->end)
			h->end = start + at_a;
		if (tb && pos < at_b && start + at_b < h->end)
			h->end = start + at_b;
		return 0;
	}
	const struct field_table *t = in_a ? ta : tb;
	uint32_t at = in_a ? at_a : at_b;
	const struct field *f = field_at(t, pos - at);
	if (!f) {
		h->end = off + 1;
		return 0;
	}
	h->field = f->name;
	h->start = start + at + f->off;
	if (start + at + f->off + f->size < h->end)
		h->end = start + at + f->off + f->size;
	/* Masked only when both images hold the same record here. */
	h->masked = in_a && in_b && ta == tb && at_a == at_b && mask_of(e, t, f, fm->csum);
	return 0;
}

static int lookup(struct engine *e, uint64_t off, struct hit *h)
{
	int rc = hit_record(e, off, h);
	if (rc)
		return rc < 0 ? -1 : 0;
	return hit_layout(e, off, h);
}

static int add_range(struct diff_result *res, const struct hit *h, uint64_t off)
{
	if (res->n == res->cap) {
		size_t cap = res->cap ? 2 * res->cap : 64;
		struct diff_range *nr = realloc(res->r, cap * sizeof(*nr));
		if (!nr)
			return -1;
		res->r = nr;
		res->cap = cap;
	}
	res->r[res->n++] = (struct diff_range){
	    off / LAYOUT_SECTOR, 1, off, 1, h->structure, h->field, h->id_name, h->id, h->masked};
	if (h->masked)
		res->masked++;
	return 0;
}

/* Byte `off` differs, and `h` names it: extend the last range or open one.
 * Unnamed blocks of one structure and owner that follow each other within
 * a block's distance make one range. */
static int note(struct engine *e, const struct hit *h, bool fresh, uint64_t off, uint64_t gap)
{
	struct diff_result *res = e->res;
	struct diff_range *last = res->n ? &res->r[res->n - 1] : NULL;
	bool same = last && !fresh;
	if (last && fresh && !h->field[0] && !last->field[0] &&
	    !strcmp(last->structure, h->structure) && last->id_name == h->id_name &&
	    last->id == h->id && last->masked == h->masked && off - (last->byte + last->len) < gap)
		same = true;
	if (!same)
		return add_range(res, h, off);
	last->len = off - last->byte + 1;
	last->count = off / LAYOUT_SECTOR - last->lba + 1;
	return 0;
}

static void view_free(struct view *v)
{
	layout_free(&v->l);
	field_map_free(&v->fm);
}

static void view_open(struct view *v, const struct diff_side *s)
{
	char err[128];
	v->s = s;
	v->have_l = layout_parse(&v->l, s->read, s->ctx, s->size, err, sizeof(err)) == 0;
	v->fm_rc = field_map_build(&v->fm, s->read, s->ctx, s->size, v->fm_err, sizeof(v->fm_err));
}

int diff_compare(struct diff_result *res, const struct diff_side *a, const struct diff_side *b,
		 const struct diff_opts *o, char *err, size_t errlen)
{
	*res = (struct diff_result){0};
	if (a->size != b->size) {
		snprintf(err, errlen,
			 "%s is %" PRIu64 " bytes and %s %" PRIu64
			 ": images of different sizes are not compared",
			 a->name, a->size, b->name, b->size);
		return -1;
	}
	struct engine e = {.o = o, .res = res};
	view_open(&e.a, a);
	view_open(&e.b, b);
	int rc = -1;
	uint8_t *ca = NULL, *cb = NULL;
	const struct view *known = e.a.fm_rc == 0 ? &e.a : e.b.fm_rc == 0 ? &e.b : NULL;
	if (known)
		snprintf(res->fs, sizeof(res->fs), "%s", known->fm.fs);
	if (o->normalize && (e.a.fm_rc || e.b.fm_rc)) {
		const struct view *bad = e.a.fm_rc ? &e.a : &e.b;
		snprintf(err, errlen, "%s: cannot normalize: %s", bad->s->name, bad->fm_err);
		goto out;
	}
	if (o->normalize && strcmp(e.a.fm.fs, e.b.fm.fs)) {
		snprintf(err, errlen, "cannot normalize: %s holds %s and %s %s", a->name, e.a.fm.fs,
			 b->name, e.b.fm.fs);
		goto out;
	}
	ca = malloc(CHUNK);
	cb = malloc(CHUNK);
	e.blk_a = malloc(BLOCK_MAX);
	e.blk_b = malloc(BLOCK_MAX);
	if (!ca || !cb || !e.blk_a || !e.blk_b) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	uint64_t gap = known && known->fm.block_size ? known->fm.block_size : 4096;
	struct hit h = {0};
	bool have_hit = false;
	for (uint64_t at = 0; at < a->size; at += CHUNK) {
		size_t n = a->size - at < CHUNK ? (size_t)(a->size - at) : CHUNK;
		bool bad_a = a->read(a->ctx, at, ca, n) != 0;
		if (bad_a || b->read(b->ctx, at, cb, n)) {
			snprintf(err, errlen, "%s: read error at byte %" PRIu64,
				 bad_a ? a->name : b->name, at);
			goto out;
		}
		for (size_t s = 0; s < n; s += LAYOUT_SECTOR) {
			size_t sn = n - s < LAYOUT_SECTOR ? n - s : LAYOUT_SECTOR;
			if (!memcmp(ca + s, cb + s, sn))
				continue;
			res->sectors_raw++;
			bool real = false;
			for (size_t i = s; i < s + sn; i++) {
				if (ca[i] == cb[i])
					continue;
				uint64_t off = at + i;
				bool fresh = false;
				if (!have_hit || off >= h.end || off < h.start) {
					if (lookup(&e, off, &h)) {
						snprintf(err, errlen,
							 "%s: read error near byte %" PRIu64,
							 a->name, off);
						goto out;
					}
					have_hit = fresh = true;
				}
				real |= !h.masked;
				if (note(&e, &h, fresh, off, gap)) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
			}
			res->sectors += real;
		}
	}
	rc = o->normalize ? res->sectors > 0 : res->sectors_raw > 0;
out:
	free(ca);
	free(cb);
	free(e.blk_a);
	free(e.blk_b);
	view_free(&e.a);
	view_free(&e.b);
	return rc;
}

void diff_free(struct diff_result *res)
{
	free(res->r);
	*res = (struct diff_result){0};
}

/* ---- sides: files, disks, a disk's base ---- */

struct file_side {
	int fd;
};

static int file_read(void *ctx, uint64_t off, void *buf, size_t n)
{
	struct file_side *f = ctx;
	while (n) {
		ssize_t got = pread(f->fd, buf, n, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		buf = (uint8_t *)buf + got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

static int file_open(struct file_side *f, struct diff_side *s, const char *path, char *err,
		     size_t errlen)
{
	struct stat st;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	*s = (struct diff_side){file_read, f, (uint64_t)st.st_size, path};
	return 0;
}

int diff_files(struct diff_result *res, const char *a, const char *b, const struct diff_opts *o,
	       char *err, size_t errlen)
{
	*res = (struct diff_result){0};
	struct file_side fa = {-1}, fb = {-1};
	struct diff_side sa, sb;
	int rc = -1;
	if (!file_open(&fa, &sa, a, err, errlen) && !file_open(&fb, &sb, b, err, errlen))
		rc = diff_compare(res, &sa, &sb, o, err, errlen);
	if (fa.fd >= 0)
		close(fa.fd);
	if (fb.fd >= 0)
		close(fb.fd);
	return rc;
}

int diff_memory_read(void *ctx, uint64_t off, void *buf, size_t n)
{
	const struct diff_memory *m = ctx;
	if (off > m->size || n > m->size - off)
		return -1;
	memcpy(buf, m->p + off, n);
	return 0;
}

int diff_disks(struct diff_result *res, struct disk *a, struct disk *b, const struct diff_opts *o,
	       char *err, size_t errlen)
{
	struct diff_side sa = {disk_read_bytes, a, a->size, "disk A"};
	struct diff_side sb = {disk_read_bytes, b, b->size, "disk B"};
	return diff_compare(res, &sa, &sb, o, err, errlen);
}

int diff_disk_base(struct diff_result *res, struct disk *d, const struct diff_opts *o, char *err,
		   size_t errlen)
{
	struct diff_memory base = {d->base, d->size};
	struct diff_side sa = {diff_memory_read, &base, d->size, "the base image"};
	struct diff_side sb = {disk_read_bytes, d, d->size, "the disk"};
	return diff_compare(res, &sa, &sb, o, err, errlen);
}

/* ---- output ---- */

void diff_print(const struct diff_result *res, FILE *f)
{
	for (size_t i = 0; i < res->n; i++) {
		const struct diff_range *r = &res->r[i];
		if (r->masked)
			continue;
		fprintf(f, "lba %" PRIu64 " (+%" PRIu64 ") %s", r->lba, r->count, r->structure);
		if (r->id_name)
			fprintf(f, " %s %" PRIu64, r->id_name, r->id);
		if (r->field[0])
			fprintf(f, " %s", r->field);
		fprintf(f, ": bytes %" PRIu64 "..%" PRIu64 "\n", r->byte, r->byte + r->len - 1);
	}
}

/* Names come from the tables and the layout vocabulary: no character in
 * them needs escaping in JSON. */
void diff_json(const struct diff_result *res, FILE *f)
{
	fprintf(f,
		"{\"fs\": \"%s\", \"sectors_differing\": %" PRIu64
		", \"sectors_differing_raw\": %" PRIu64 ", \"masked_ranges\": %" PRIu64
		", \"ranges\": [",
		res->fs, res->sectors, res->sectors_raw, res->masked);
	bool first = true;
	for (size_t i = 0; i < res->n; i++) {
		const struct diff_range *r = &res->r[i];
		if (r->masked)
			continue;
		fprintf(f,
			"%s\n  {\"lba\": %" PRIu64 ", \"count\": %" PRIu64
			", \"structure\": \"%s\", \"field\": \"%s\", \"byte\": %" PRIu64
			", \"len\": %" PRIu64,
			first ? "" : ",", r->lba, r->count, r->structure, r->field, r->byte,
			r->len);
		if (r->id_name)
			fprintf(f, ", \"%s\": %" PRIu64, r->id_name, r->id);
		fputs("}", f);
		first = false;
	}
	fputs(first ? "]}\n" : "\n]}\n", f);
}
