/* corrupt_target.c - see corrupt_target.h. The classes and which records
 * carry fields are each written once, in the tables below; the places
 * come from the image's own maps (layout.h, fields.h) and, for a format
 * whose descriptor locates inodes (src/fs), from their numbers. */
#include <stdlib.h>
#include <string.h>

#include "../fs/fs.h"
#include "corrupt_target.h"
#include "../format/layout_int.h"

/* The classes that gather layout names: X(class, names...). */
static const struct {
	const char *name;
	const char *gathers[7];
} classes[] = {
    {"inode", {"inode-table", "inode-chunk", "inode"}},
    {"dir", {"directory"}},
    {"bitmap",
     {"block-bitmap", "inode-bitmap", "zone-bitmap", "allocation-bitmap", "block-map",
      "inode-map"}},
    {"journal", {"journal", "log"}},
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

/* What a populated tree adds to a freshly made image's map. */
static const char *const populated[] = {"data",	    "symlink",	   "directory",
					"indirect", "extent-tree", "xattr"};

static int class_of(const char *name)
{
	for (size_t i = 0; i < NCLASSES; i++)
		if (!strcmp(classes[i].name, name))
			return (int)i;
	return -1;
}

/* Whether class c gathers the layout name s. */
static bool gathers(int c, const char *s)
{
	for (int k = 0; k < 7 && classes[c].gathers[k]; k++)
		if (!strcmp(classes[c].gathers[k], s))
			return true;
	return false;
}

/* Whether fs's inodes are located one by one (from inode numbers). */
static bool located_inodes(const char *fs)
{
	return fs_find_or_none(fs)->inode_at != NULL;
}

/* The root directory's inode number on the image: its descriptor's, or 2
 * (the first inode most formats give a directory). */
static uint64_t root_ino(const struct corrupt_image *im)
{
	const struct fs_desc *d = fs_find_or_none(im->fs);
	return d->root_ino ? d->root_ino(im) : 2;
}

/* The record with fields fs's target `structure` names, or NULL. */
static const struct fs_field_owner *owner_of(const char *fs, const char *structure)
{
	const struct fs_desc *d = fs_find_or_none(fs);
	for (size_t i = 0; i < d->nfields; i++)
		if (!strcmp(d->fields[i].structure, structure))
			return &d->fields[i];
	return NULL;
}

static const struct field_table *owner_table(const char *fs, const char *structure)
{
	const struct fs_field_owner *o = owner_of(fs, structure);
	return o ? o->t : NULL;
}

static const struct field *field_named(const struct field_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].name, name))
			return &t->f[i];
	return NULL;
}

int corrupt_target_split(const char *fs, const char *spec, char *structure, char *field, char *err,
			 size_t errlen)
{
	(void)fs;
	const char *from = !strncmp(spec, "tree:", 5) ? spec + 5 : spec;
	const char *colon = strchr(from, ':');
	size_t slen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (!slen || slen >= CORRUPT_NAME_MAX ||
	    (colon && (!colon[1] || strlen(colon + 1) >= CORRUPT_NAME_MAX))) {
		snprintf(err, errlen, "--target needs STRUCT[:FIELD], got '%s'", spec);
		return -1;
	}
	memcpy(structure, spec, slen);
	structure[slen] = 0;
	snprintf(field, CORRUPT_NAME_MAX, "%s", colon ? colon + 1 : "");
	return 0;
}

/* The names of fs's layout known without an image: its descriptor's
 * structures, and another's its list begins with ("(ext2's) journal"). */
static bool in_help_list(const char *fs, const char *structure)
{
	const char *list = fs_find_or_none(fs)->structures;
	if (!list)
		return false;
	size_t n = strlen(structure);
	for (const char *p = list; (p = strstr(p, structure)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	char other[16];
	return sscanf(list, "(%15[a-z0-9]'s)", other) == 1 && strcmp(other, fs) &&
	       in_help_list(other, structure);
}

int corrupt_target_check(const char *fs, const char *structure, const char *field,
			 const struct layout *base, char *err, size_t errlen)
{
	bool known = class_of(structure) >= 0 || in_help_list(fs, structure);
	for (size_t i = 0; !known && i < sizeof(populated) / sizeof(populated[0]); i++)
		known = !strcmp(populated[i], structure);
	for (size_t i = 0; !known && base && i < base->n; i++)
		known = !strcmp(base->r[i].structure, structure);
	if (!known) {
		snprintf(err, errlen,
			 "%s has no structure '%s' (themis corrupt --help lists each "
			 "filesystem's)",
			 fs, structure);
		return -1;
	}
	if (!field[0])
		return 0;
	const struct field_table *t = owner_table(fs, structure);
	if (!t) {
		snprintf(err, errlen,
			 "%s: '%s' has no fields Themis knows: give the structure alone", fs,
			 structure);
		return -1;
	}
	if (!field_named(t, field)) {
		snprintf(err, errlen, "%s: %s (struct %s) has no field '%s' (e.g. %s, %s)", fs,
			 structure, t->name, field, t->f[0].name, t->f[t->n > 1].name);
		return -1;
	}
	return 0;
}

static int add_span(struct corrupt_target *t, uint64_t off, uint64_t len, uint64_t size)
{
	if (!len || off >= size)
		return 0;
	len = len < size - off ? len : size - off;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		struct corrupt_span *s = realloc(t->s, cap * sizeof(*s));
		if (!s)
			return -1;
		t->s = s, t->cap = cap;
	}
	t->s[t->n++] = (struct corrupt_span){off, len};
	t->bytes += len;
	return 0;
}

/* The populated entries' inodes (and the root's), whole or one field. */
static int resolve_inodes(const struct corrupt_image *im, const struct field *f,
			  struct corrupt_target *t, char *err, size_t errlen)
{
	const struct fs_desc *d = fs_find_or_none(im->fs);
	uint64_t inos[72];
	int n = 0;
	if ((inos[n] = root_ino(im)))
		n++;
	for (int i = 0; i < im->ninos && n < 72; i++)
		inos[n++] = im->inos[i];
	for (int i = 0; i < n; i++) {
		uint32_t isz = 0;
		bool dup = false;
		for (int k = 0; k < i; k++)
			dup |= inos[k] == inos[i];
		uint64_t at = dup ? 0 : d->inode_at(im, inos[i], &isz);
		if (!at)
			continue;
		int rc = f ? add_span(t, at + f->off, f->size, im->size)
			   : add_span(t, at, isz, im->size);
		if (rc) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* Whether owner is the root or an entry of the populated tree. */
static bool populated_owner(const struct corrupt_image *im, uint64_t owner)
{
	if (!owner)
		return false;
	if (owner == root_ino(im))
		return true;
	for (int i = 0; i < im->ninos; i++)
		if (im->inos[i] == owner)
			return true;
	return false;
}

/* Whether a directory target keeps to the tree's own directories (not
 * what mkfs left, as ext's lost+found): when the map names the owners of
 * directory blocks and one is the tree's. */
static bool tree_dirs_only(const struct corrupt_image *im, const char *structure)
{
	if (strcmp(structure, "dir") && strcmp(structure, "directory"))
		return false;
	for (size_t i = 0; i < im->map->n; i++)
		if (!strcmp(im->map->r[i].structure, "directory") &&
		    populated_owner(im, im->map->r[i].owner))
			return true;
	return false;
}

static int span_cmp(const void *a, const void *b)
{
	const struct corrupt_span *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

int corrupt_target_resolve(const struct corrupt_image *im, const char *structure, const char *field,
			   struct corrupt_target *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->structure, sizeof(t->structure), "%s", structure);
	snprintf(t->field, sizeof(t->field), "%s", field);
	const struct fs_field_owner *own = owner_of(im->fs, structure);
	const struct field_table *tab = own ? own->t : NULL;
	const struct field *f = field[0] && tab ? field_named(tab, field) : NULL;
	if (field[0] && !f) {
		snprintf(err, errlen, "%s: %s has no field '%s'", im->fs, structure, field);
		return -1;
	}
	int c = class_of(structure);
	int rc = 0;
	if (!strcmp(structure, "inode") && located_inodes(im->fs)) {
		rc = resolve_inodes(im, f, t, err, errlen);
	} else if (f) { /* every record of the kind, that field of each */
		for (size_t i = 0; i < im->fields->n && !rc; i++) {
			const struct field_rec *r = &im->fields->r[i];
			if (r->t != tab || !own->record || strcmp(r->structure, own->record))
				continue;
			for (uint64_t at = r->off; at + r->unit <= r->off + r->len && !rc;
			     at += r->unit)
				rc = add_span(t, at + f->off, f->size, im->size);
		}
		if (rc)
			snprintf(err, errlen, "out of memory");
	} else {
		bool mine = tree_dirs_only(im, structure);
		for (size_t i = 0; i < im->map->n && !rc; i++) {
			const struct layout_range *r = &im->map->r[i];
			if ((c >= 0 ? gathers(c, r->structure)
				    : !strcmp(r->structure, structure)) &&
			    (!mine || populated_owner(im, r->owner)))
				rc = add_span(t, r->lba * LAYOUT_SECTOR, r->count * LAYOUT_SECTOR,
					      im->size);
		}
		/* "free" is also every sector no range claims. */
		uint64_t at = 0;
		for (size_t i = 0; !strcmp(structure, "free") && i <= im->map->n && !rc; i++) {
			uint64_t next =
			    i < im->map->n ? im->map->r[i].lba : im->size / LAYOUT_SECTOR;
			if (next > at)
				rc = add_span(t, at * LAYOUT_SECTOR, (next - at) * LAYOUT_SECTOR,
					      im->size);
			if (i < im->map->n)
				at = im->map->r[i].lba + im->map->r[i].count;
		}
		if (rc)
			snprintf(err, errlen, "out of memory");
	}
	if (!rc && !t->bytes) {
		snprintf(err, errlen, "%s: no %s%s%s on the populated image", im->fs, structure,
			 field[0] ? ":" : "", field);
		rc = -1;
	}
	if (rc) {
		corrupt_target_free(t);
		return -1;
	}
	qsort(t->s, t->n, sizeof(*t->s), span_cmp);
	return 0;
}

void corrupt_target_free(struct corrupt_target *t)
{
	free(t->s);
	t->s = NULL;
	t->n = t->cap = 0;
	t->bytes = 0;
}

uint64_t corrupt_target_byte(const struct corrupt_target *t, uint64_t k)
{
	uint64_t b = k / 8;
	for (size_t i = 0; i < t->n; i++) {
		if (b < t->s[i].len)
			return t->s[i].off + b;
		b -= t->s[i].len;
	}
	return t->n ? t->s[t->n - 1].off + t->s[t->n - 1].len - 1 : 0;
}

void corrupt_target_name(const struct corrupt_image *im, uint64_t off, char *structure, char *field,
			 size_t cap)
{
	const struct layout_range *r = layout_find(im->map, off / LAYOUT_SECTOR);
	snprintf(structure, cap, "%s", r ? r->structure : "free");
	field[0] = 0;
	const struct field_rec *fr = field_map_find(im->fields, off);
	const struct field *f = NULL;
	if (fr && fr->unit)
		f = field_at(fr->t, (uint32_t)((off - fr->off) % fr->unit));
	else if (r && !strcmp(r->structure, "inode-chunk") && im->fields->inode_size)
		f = field_at(&field_xfs_dinode,
			     (uint32_t)((off - r->lba * LAYOUT_SECTOR) % im->fields->inode_size));
	if (f)
		snprintf(field, cap, "%s", f->name);
}

int corrupt_target_classes(const struct corrupt_image *im, char (*names)[CORRUPT_NAME_MAX], int max)
{
	int n = 0;
	bool free_seen = false;
	for (size_t i = 0; i < im->map->n; i++) {
		const char *s = im->map->r[i].structure;
		if (located_inodes(im->fs) && gathers(0, s))
			s = "inode";
		free_seen |= !strcmp(s, "free");
		bool seen = false;
		for (int k = 0; k < n; k++)
			seen |= !strcmp(names[k], s);
		if (!seen && n < max)
			snprintf(names[n++], CORRUPT_NAME_MAX, "%s", s);
	}
	if (!free_seen && n < max)
		snprintf(names[n++], CORRUPT_NAME_MAX, "free");
	return n;
}

void corrupt_target_help(FILE *f)
{
	fprintf(f, "Targets (STRUCT as the layout map names it; themis layout IMG shows an\n"
		   "image's):\n");
	for (size_t i = 0; i < fs_count(); i++)
		fprintf(f, "  %-7s %s\n", fs_at(i)->name, fs_at(i)->structures);
	fprintf(f, "Classes: inode (the populated entries' inodes on");
	for (size_t i = 0, n = 0; i < fs_count(); i++)
		if (fs_at(i)->inode_at)
			fprintf(f, "%s%s", n++ ? ", " : " ", fs_at(i)->name);
	fprintf(f, "), dir,\nbitmap (every allocation bitmap), journal (journal or log).\n"
		   "Fields (STRUCT:FIELD, as the format's headers spell them):\n");
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		if (!d->nfields || (i && fs_at(i - 1)->fields == d->fields))
			continue;
		char names[64] = ""; /* the descriptors that share the list: ext2,ext3,ext4 */
		for (size_t k = i, n = 0; k < fs_count() && fs_at(k)->fields == d->fields; k++)
			n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0,
					      "%s%s", k > i ? "," : "", fs_at(k)->name);
		for (size_t k = 0; k < d->nfields; k++)
			fprintf(f, "  %-14s %-18s struct %-17s e.g. %s:%s\n", names,
				d->fields[k].structure, d->fields[k].t->name,
				d->fields[k].structure, d->fields[k].example);
	}
}
