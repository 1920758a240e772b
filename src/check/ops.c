/* ops.c - see ops.h. The pools follow Metis (FAST'24): up to 3 files and 2
 * directories per level, 2 levels; sizes and offsets from power-of-two bins
 * and their +-1 neighbours. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/rng.h"
#include "ops.h"

static const struct {
	const char *name, *letters, *args;
	unsigned flags;
	const char *example;
} table[OP_NKINDS] = {
#define OP_ROW(e, name, letters, args, flags, example)                                             \
	[OP_##e] = {#name, letters, args, flags, example},
    OP_TABLE(OP_ROW)
#undef OP_ROW
};

static const char *const default_files[] = {"f0", "f1", "f2", "d0/f0", "d0/f1", "d0/f2", "d1/f0"};
static const char *const default_dirs[] = {"d0", "d1", "d0/d0", "d0/d1"};
static const char *const modes[] = {"0644", "0600",  "0755",  "0444",
				    "0777", "04755", "02755", "01777"};
/* What chmod's enumeration tries: the table's example, then the set-id
 * and sticky bits (a write or chown must clear set-id: file_remove_privs). */
static const char *const chmod_modes[] = {"0600", "04755", "02755", "01777"};
static const char *const create_flags[] = {"-", "-", "excl", "trunc"};
static const char *const write_flags[] = {"-",	  "-",		 "-",	  "append",
					  "sync", "append,sync", "dsync", "direct"};
static const char *const owners[] = {"0", "1000", "65534"};
static const char *const xattr_names[] = {"user.a", "user.b"};
/* Values every filesystem here stores inline or in one block: 64 fits in
 * ext4's 256-byte inode, 100 does not (it goes to the xattr block), and
 * two of 400 still share one 1 KiB block (the ext4 test images' block
 * size). The limits beyond differ by design (ext4 a block, xfs 64 KiB). */
static const unsigned xattr_sizes[] = {0, 1, 16, 64, 100, 255, 400};
/* What setxattr's enumeration tries. */
static const unsigned xattr_enum_sizes[] = {16, 100, 400};
/* fallocate(2)'s modes (punch_hole must come with keep_size). */
static const char *const fallocate_modes[] = {"0",
					      "keep_size",
					      "punch_hole,keep_size",
					      "zero_range",
					      "zero_range,keep_size",
					      "collapse_range",
					      "insert_range"};
static const char *const renameat2_flags[] = {"noreplace", "exchange", "whiteout"};

/* The instants of INSTANT_TABLE (op_table.h) and their flags. */
static const struct {
	const char *arg;
	unsigned flags;
} instants[] = {
#define OP_INSTANT(name, arg, flags) {arg, flags},
    INSTANT_TABLE(OP_INSTANT)
#undef OP_INSTANT
};
#define NINSTANTS (sizeof(instants) / sizeof(instants[0]))

/* A random instant with `flag` (the table has one of each). */
static const char *instant_of(uint64_t *rng, unsigned flag)
{
	for (uint64_t r = op_rng_next(rng);; r++)
		if (instants[r % NINSTANTS].flags & flag)
			return instants[r % NINSTANTS].arg;
}

const char *op_name(enum op_kind k)
{
	return (unsigned)k < OP_NKINDS ? table[k].name : "?";
}

const char *op_letters(enum op_kind k)
{
	return (unsigned)k < OP_NKINDS ? table[k].letters : "";
}

const char *op_args(enum op_kind k)
{
	return (unsigned)k < OP_NKINDS ? table[k].args : "";
}

const char *op_example(enum op_kind k)
{
	return (unsigned)k < OP_NKINDS ? table[k].example : "";
}

unsigned op_flags(enum op_kind k)
{
	return (unsigned)k < OP_NKINDS ? table[k].flags : 0;
}

uint32_t op_flag_mask(unsigned flag)
{
	uint32_t m = 0;
	for (int k = 0; k < OP_NKINDS; k++)
		m |= (table[k].flags & flag) ? 1u << k : 0;
	return m;
}

uint32_t op_scope_mask(void)
{
	return op_flag_mask(OPF_SCOPE);
}

const char *op_names_list(void)
{
#define OP_WORD(e, name, letters, args, flags, example) #name ", "
	return OP_TABLE(OP_WORD) "all, scope";
#undef OP_WORD
}

static int kind_by_name(const char *name)
{
	for (int k = 0; k < OP_NKINDS; k++)
		if (!strcmp(name, table[k].name))
			return k;
	return -1;
}

int op_kind_of_text(const char *text)
{
	char word[32];
	if (sscanf(text, "op %31s", word) != 1)
		return -1;
	return kind_by_name(word);
}

int64_t op_mask_parse(const char *list, const char **bad, int *badlen)
{
	int64_t mask = 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		char word[32];
		int k = -1;
		if (n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = 0;
			k = !strcmp(word, "all")     ? OP_NKINDS
			    : !strcmp(word, "scope") ? OP_NKINDS + 1
						     : kind_by_name(word);
		}
		if (k < 0) {
			*bad = p;
			*badlen = (int)n;
			return -1;
		}
		mask |= k == OP_NKINDS ? OP_ALL_MASK : k > OP_NKINDS ? op_scope_mask() : 1u << k;
		p += n + (p[n] == ',');
	}
	return mask;
}

uint64_t op_rng_next(uint64_t *s)
{
	return splitmix64(s);
}

#define PICK(rng, arr) (arr[op_rng_next(rng) % (sizeof(arr) / sizeof(arr[0]))])

void op_pools_default(struct op_pools *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(default_files) / sizeof(default_files[0]); i++)
		p->files[p->nfiles++] = default_files[i];
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++)
		p->dirs[p->ndirs++] = default_dirs[i];
}

int op_pools_set_paths(struct op_pools *p, char *list)
{
	p->nfiles = p->ndirs = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		size_t n = strlen(tok);
		bool dir = n > 1 && tok[n - 1] == '/';
		if (dir)
			tok[--n] = 0;
		if (!n || tok[0] == '/' || strstr(tok, "..") || strchr(tok, ' '))
			return -1;
		if (dir ? p->ndirs == OP_POOL_MAX : p->nfiles == OP_POOL_MAX)
			return -1;
		if (dir)
			p->dirs[p->ndirs++] = tok;
		else
			p->files[p->nfiles++] = tok;
	}
	/* Every kind of operation needs a file or a directory to name. */
	if (!p->nfiles)
		p->files[p->nfiles++] = "f0";
	if (!p->ndirs)
		p->dirs[p->ndirs++] = "d0";
	return 0;
}

int op_pools_set_sizes(struct op_pools *p, const char *list)
{
	p->nsizes = 0;
	for (const char *s = list; *s;) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || (*end && *end != ',') || v > (1ul << 30) ||
		    p->nsizes == OP_POOL_MAX)
			return -1;
		p->sizes[p->nsizes++] = v;
		s = *end ? end + 1 : end;
	}
	return p->nsizes ? 0 : -1;
}

/* A size or offset: 2^k or 2^k +- 1 for k up to max_log2, or 0. */
static unsigned long pow2_bin(uint64_t *rng, int max_log2)
{
	uint64_t r = op_rng_next(rng);
	if (r % 16 == 0)
		return 0;
	unsigned long base = 1ul << (r / 16 % (unsigned)(max_log2 + 1));
	int delta = (int)(r / 1024 % 3) - 1;
	return base + (unsigned long)delta + (base == 1 && delta < 0);
}

static bool in_view(const char (*list)[64], int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], path))
			return true;
	return false;
}

static bool parent_exists(const struct op_view *v, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return true;
	char parent[64];
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	return in_view(v->dirs, v->ndirs, parent);
}

/* want: 1 an existing path, -1 an absent one with an existing parent, 0 any.
 * Two draws in three follow the preference when the view allows it. */
static const char *pick(uint64_t *rng, const struct op_pools *p, const struct op_view *v, bool dir,
			int want)
{
	const char *const *pool = dir ? p->dirs : p->files;
	int n = dir ? p->ndirs : p->nfiles;
	if (v && want && op_rng_next(rng) % 3) {
		if (want > 0 && (dir ? v->ndirs : v->nfiles))
			return dir ? v->dirs[op_rng_next(rng) % (uint64_t)v->ndirs]
				   : v->files[op_rng_next(rng) % (uint64_t)v->nfiles];
		for (int tries = 0; want < 0 && tries < 8; tries++) {
			const char *c = pool[op_rng_next(rng) % (uint64_t)n];
			if (!in_view(v->files, v->nfiles, c) && !in_view(v->dirs, v->ndirs, c) &&
			    parent_exists(v, c))
				return c;
		}
	}
	return pool[op_rng_next(rng) % (uint64_t)n];
}

#define FILE_E(want) pick(rng, p, v, false, want)
#define DIR_E(want)  pick(rng, p, v, true, want)

static const char *any_path(uint64_t *rng, const struct op_pools *p, const struct op_view *v)
{
	return op_rng_next(rng) % 3 ? FILE_E(1) : DIR_E(1);
}

static unsigned long size_of(uint64_t *rng, const struct op_pools *p, int max_log2)
{
	return p->nsizes ? p->sizes[op_rng_next(rng) % (uint64_t)p->nsizes]
			 : pow2_bin(rng, max_log2);
}

/* One argument of letter `letter` for kind k, drawn from the pools: what
 * every kind without a case of its own in format_op gets, argument by
 * argument, so a new operation of op_table.h is generated whole. */
static const char *letter_value(uint64_t *rng, const struct op_pools *p, const struct op_view *v,
				enum op_kind k, char letter, char *buf, size_t cap)
{
	switch (letter) {
	case 'P':
	case 'T': return any_path(rng, p, v);
	case 'M': return PICK(rng, modes);
	case 'N': snprintf(buf, cap, "%lu", size_of(rng, p, 16)); return buf;
	case 'I': return PICK(rng, owners);
	case 'S': snprintf(buf, cap, "%u", (unsigned)(op_rng_next(rng) % 256)); return buf;
	case 'X': return PICK(rng, xattr_names);
	case 'C': return PICK(rng, create_flags);
	case 'W': return PICK(rng, write_flags);
	case 'F': return PICK(rng, fallocate_modes);
	case 'R': return PICK(rng, renameat2_flags);
	case 'E': return instant_of(rng, op_flags(k) & OPF_CLOCK ? INSTF_SETTIME : INSTF_UTIMES);
	}
	return "?"; /* a letter op_grammar.h does not know: op_text_check refuses it */
}

static void format_by_letters(uint64_t *rng, const struct op_pools *p, const struct op_view *v,
			      enum op_kind k, char *t)
{
	size_t n = (size_t)snprintf(t, OP_TEXT_MAX, "op %s", op_name(k));
	for (const char *l = op_letters(k); *l && n < OP_TEXT_MAX; l++) {
		char buf[32];
		n += (size_t)snprintf(t + n, OP_TEXT_MAX - n, " %s",
				      letter_value(rng, p, v, k, *l, buf, sizeof(buf)));
	}
}

/* Kinds whose paths have roles (an existing file, an absent name beside
 * existing ones) or whose sizes have their own bins draw them here; every
 * other kind, from its letters. */
static void format_op(uint64_t *rng, const struct op_pools *p, const struct op_view *v,
		      enum op_kind k, char *t)
{
	const int n = OP_TEXT_MAX;
	switch (k) {
	case OP_CREATE:
		snprintf(t, n, "op create %s %s %s", FILE_E(-1), PICK(rng, modes),
			 PICK(rng, create_flags));
		break;
	case OP_WRITE:
		snprintf(t, n, "op write %s %lu %lu %u %s", FILE_E(1), size_of(rng, p, 16),
			 size_of(rng, p, 16), (unsigned)(op_rng_next(rng) % 256),
			 PICK(rng, write_flags));
		break;
	case OP_TRUNCATE:
		snprintf(t, n, "op truncate %s %lu", FILE_E(1), size_of(rng, p, 17));
		break;
	case OP_UNLINK: snprintf(t, n, "op unlink %s", FILE_E(1)); break;
	case OP_MKDIR: snprintf(t, n, "op mkdir %s %s", DIR_E(-1), PICK(rng, modes)); break;
	case OP_RMDIR: snprintf(t, n, "op rmdir %s", DIR_E(1)); break;
	case OP_CHMOD:
		snprintf(t, n, "op chmod %s %s", any_path(rng, p, v), PICK(rng, modes));
		break;
	case OP_CHOWN:
		snprintf(t, n, "op chown %s %s", any_path(rng, p, v), PICK(rng, owners));
		break;
	case OP_CHGRP:
		snprintf(t, n, "op chgrp %s %s", any_path(rng, p, v), PICK(rng, owners));
		break;
	case OP_SETXATTR:
		snprintf(t, n, "op setxattr %s %s %u %u", any_path(rng, p, v),
			 PICK(rng, xattr_names), PICK(rng, xattr_sizes),
			 (unsigned)(op_rng_next(rng) % 256));
		break;
	case OP_REMOVEXATTR:
		snprintf(t, n, "op removexattr %s %s", any_path(rng, p, v), PICK(rng, xattr_names));
		break;
	case OP_RENAME:
	case OP_RENAMEAT2: {
		bool dir = op_rng_next(rng) % 3 == 0;
		const char *a = dir ? DIR_E(1) : FILE_E(1);
		const char *b = op_rng_next(rng) % 2 ? (dir ? DIR_E(-1) : FILE_E(-1))
						     : (dir ? DIR_E(1) : FILE_E(1));
		if (k == OP_RENAME)
			snprintf(t, n, "op rename %s %s", a, b);
		else
			snprintf(t, n, "op renameat2 %s %s %s", a, b, PICK(rng, renameat2_flags));
		break;
	}
	case OP_LINK: snprintf(t, n, "op link %s %s", FILE_E(1), FILE_E(-1)); break;
	case OP_SYMLINK: snprintf(t, n, "op symlink %s %s", any_path(rng, p, v), FILE_E(-1)); break;
	case OP_FSYNC:
	case OP_FDATASYNC: snprintf(t, n, "op %s %s", op_name(k), any_path(rng, p, v)); break;
	case OP_FALLOCATE:
		snprintf(t, n, "op fallocate %s %s %lu %lu", FILE_E(1), PICK(rng, fallocate_modes),
			 size_of(rng, p, 16), size_of(rng, p, 16));
		break;
	case OP_MWRITE:
		snprintf(t, n, "op mwrite %s %lu %lu %u", FILE_E(1), size_of(rng, p, 16),
			 size_of(rng, p, 16), (unsigned)(op_rng_next(rng) % 256));
		break;
	case OP_COPYRANGE:
		snprintf(t, n, "op copyrange %s %s %lu %lu", FILE_E(1), FILE_E(1),
			 size_of(rng, p, 16), size_of(rng, p, 16));
		break;
	case OP_STAT: snprintf(t, n, "op stat %s", any_path(rng, p, v)); break;
	case OP_SETTIME: snprintf(t, n, "op settime %s", instant_of(rng, INSTF_SETTIME)); break;
	case OP_UTIMES:
		snprintf(t, n, "op utimes %s %s", any_path(rng, p, v),
			 instant_of(rng, INSTF_UTIMES));
		break;
	case OP_READ:
		snprintf(t, n, "op read %s %lu %lu", FILE_E(1), size_of(rng, p, 16),
			 size_of(rng, p, 16));
		break;
	default: format_by_letters(rng, p, v, k, t); break;
	}
}

void op_generate(uint64_t *rng, uint32_t mask, const struct op_pools *p, const struct op_view *v,
		 struct op *out)
{
	int kinds[OP_NKINDS], nk = 0;
	for (int k = 0; k < OP_NKINDS; k++)
		if (mask & (1u << k))
			kinds[nk++] = k;
	/* Writes and creates make the states worth exploring: weight them. */
	uint64_t r = op_rng_next(rng);
	enum op_kind k = (enum op_kind)kinds[r % (uint64_t)nk];
	if (r % 7 == 0 && (mask & (1u << OP_WRITE)))
		k = OP_WRITE;
	else if (r % 11 == 0 && (mask & (1u << OP_CREATE)))
		k = OP_CREATE;
	/* A nearly empty tree: build something first. */
	if (v && v->nfiles + v->ndirs < 2 && r % 3 && (mask & (1u << OP_CREATE | 1u << OP_MKDIR)))
		k = (r / 3 % 2 && (mask & 1u << OP_MKDIR)) || !(mask & 1u << OP_CREATE) ? OP_MKDIR
											: OP_CREATE;
	out->kind = k;
	format_op(rng, p, v, k, out->text);
}

/* ---- enumeration ---- */

/* Candidates of one kind, then the kinds interleaved (see op_enumerate). */
struct sink {
	struct op *out;
	int n, max;
	const struct op_view *view; /* NULL: keep every candidate */
	bool doomed_kept;	    /* this kind's one candidate bound to fail */
};

static bool exists(const struct op_view *v, const char *path)
{
	return in_view(v->files, v->nfiles, path) || in_view(v->dirs, v->ndirs, path);
}

/* src must exist and dst's parent must (either may be NULL). A candidate
 * that fails this fails with ENOENT and changes nothing, as every other
 * such candidate of its kind does: one of them stands for all. */
static bool keep(struct sink *s, const char *src, const char *dst)
{
	if (!s->view)
		return true;
	if ((!src || exists(s->view, src)) && (!dst || parent_exists(s->view, dst)))
		return true;
	if (s->doomed_kept)
		return false;
	s->doomed_kept = true;
	return true;
}

static void emit(struct sink *s, enum op_kind k, const char *src, const char *dst, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));
static void emit(struct sink *s, enum op_kind k, const char *src, const char *dst, const char *fmt,
		 ...)
{
	if (s->n == s->max || !keep(s, src, dst))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->out[s->n].text, OP_TEXT_MAX, fmt, ap);
	va_end(ap);
	s->out[s->n++].kind = k;
}

/* Offsets from the start of a file outwards; sizes from a whole block
 * down, so the first writes of a search already fill blocks. */
static const unsigned long offset_bins[] = {0, 1, 4095, 4096, 4097};
static const unsigned long size_bins[] = {4096, 1, 4097, 4095, 0};
#define NBINS 5

/* Where a file's mapping changes shape: ext2/ext3's last direct block
 * (12 of 1 KiB, 12 of 4 KiB blocks) and a write far past the end that
 * leaves a hole. Writes cross them (off, size); truncate goes there. */
static const unsigned long boundary_writes[][2] = {{12287, 2}, {49151, 2}, {1048576, 4096}};
static const unsigned long boundary_sizes[] = {12289, 49153, 1048576};
/* Block-aligned ranges (O_DIRECT's, collapse and insert's need) and one
 * across a block edge. */
static const unsigned long range_pairs[][2] = {{0, 4096}, {4096, 4096}, {4095, 2}};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
/* The data's seeds (op_table.h's S): a byte is a function of its offset
 * and the seed, so under one seed an overwrite writes what was there and
 * a lost overwrite reads back like the one it replaced. The default scope
 * overwrites the first block with the second seed too (write, O_SYNC
 * write, mwrite), which the crash lens can then see lost. */
static const unsigned long data_seeds[] = {1, 2};

/* Each file and each of its pairs (off, size): "op NAME FILE [WORD ]OFF SIZE[ TAIL]". */
static void emit_ranges(struct sink *s, const struct op_pools *p, enum op_kind k, const char *word,
			const unsigned long (*pairs)[2], size_t npairs, const char *tail)
{
	for (int f = 0; f < p->nfiles; f++)
		for (size_t i = 0; i < npairs; i++)
			emit(s, k, p->files[f], NULL, "op %s %s %s%s%lu %lu%s", op_name(k),
			     p->files[f], word ? word : "", word ? " " : "", pairs[i][0],
			     pairs[i][1], tail);
}

/* Every ordered pair of distinct pool paths (files, then directories
 * when dirs): "op NAME A B[ WORD]", A required to exist unless a_new. */
static void emit_pairs(struct sink *s, const struct op_pools *p, enum op_kind k, bool dirs,
		       bool a_new, const char *word)
{
	for (int d = 0; d < (dirs ? 2 : 1); d++) {
		const char *const *a = d ? p->dirs : p->files;
		int na = d ? p->ndirs : p->nfiles;
		for (int i = 0; i < na; i++)
			for (int j = 0; j < na; j++)
				if (i != j)
					emit(s, k, a_new ? NULL : a[i], a[j], "op %s %s %s%s%s",
					     op_name(k), a[i], a[j], word ? " " : "",
					     word ? word : "");
	}
}

static const char *path_at(const struct op_pools *p, int e)
{
	return e < p->nfiles ? p->files[e] : p->dirs[e - p->nfiles];
}

static void enumerate_kind(struct sink *s, const struct op_pools *p, enum op_kind k)
{
	const unsigned long *off = p->nsizes ? p->sizes : offset_bins;
	const unsigned long *sz = p->nsizes ? p->sizes : size_bins;
	int nsz = p->nsizes ? p->nsizes : NBINS;
	const char *name = op_name(k);
	switch (k) {
	case OP_CREATE:
		for (int f = 0; f < p->nfiles; f++)
			emit(s, k, NULL, p->files[f], "op create %s 0644 -", p->files[f]);
		break;
	case OP_MKDIR:
		for (int d = 0; d < p->ndirs; d++)
			emit(s, k, NULL, p->dirs[d], "op mkdir %s 0755", p->dirs[d]);
		break;
	case OP_RMDIR:
		for (int d = 0; d < p->ndirs; d++)
			emit(s, k, p->dirs[d], NULL, "op rmdir %s", p->dirs[d]);
		break;
	case OP_UNLINK:
		for (int f = 0; f < p->nfiles; f++)
			emit(s, k, p->files[f], NULL, "op unlink %s", p->files[f]);
		break;
	case OP_TRUNCATE:
		for (int f = 0; f < p->nfiles; f++) {
			for (int a = 0; a < nsz; a++)
				emit(s, k, p->files[f], NULL, "op truncate %s %lu", p->files[f],
				     sz[a]);
			for (size_t a = 0; !p->nsizes && a < NELEM(boundary_sizes); a++)
				emit(s, k, p->files[f], NULL, "op truncate %s %lu", p->files[f],
				     boundary_sizes[a]);
		}
		break;
	case OP_WRITE:
		for (int f = 0; f < p->nfiles; f++)
			for (int a = 0; a < nsz; a++)
				for (int b = 0; b < nsz; b++) {
					const char *file = p->files[f];
					/* sync first: both reach the same state, which the
					 * visited set then prunes, but only the synced one
					 * has put its data on the disk. */
					emit(s, k, file, NULL, "op write %s %lu %lu 1 sync", file,
					     off[a], sz[b]);
					emit(s, k, file, NULL, "op write %s %lu %lu 1 -", file,
					     off[a], sz[b]);
				}
		if (!p->nsizes) {
			char plain[32], sync[32];
			snprintf(plain, sizeof(plain), " %lu -", data_seeds[1]);
			snprintf(sync, sizeof(sync), " %lu sync", data_seeds[1]);
			emit_ranges(s, p, k, NULL, range_pairs, 1, sync);
			emit_ranges(s, p, k, NULL, range_pairs, 1, plain);
			emit_ranges(s, p, k, NULL, boundary_writes, NELEM(boundary_writes), " 1 -");
			emit_ranges(s, p, k, NULL, range_pairs, 2, " 1 direct");
			emit_ranges(s, p, k, NULL, range_pairs, 1, " 1 dsync");
		}
		break;
	case OP_FALLOCATE:
		for (size_t m = 0; m < NELEM(fallocate_modes); m++)
			emit_ranges(s, p, k, fallocate_modes[m], range_pairs, NELEM(range_pairs),
				    "");
		break;
	case OP_MWRITE: {
		char other[16];
		snprintf(other, sizeof(other), " %lu", data_seeds[1]);
		emit_ranges(s, p, k, NULL, range_pairs, NELEM(range_pairs), " 1");
		if (!p->nsizes)
			emit_ranges(s, p, k, NULL, range_pairs, 1, other);
		break;
	}
	case OP_COPYRANGE:
		emit_pairs(s, p, k, false, false, "0 4096");
		emit_pairs(s, p, k, false, false, "4095 4098");
		break;
	case OP_RENAMEAT2:
		for (size_t f = 0; f < NELEM(renameat2_flags); f++)
			emit_pairs(s, p, k, f < 2, false, renameat2_flags[f]);
		break;
	case OP_RENAME:
	case OP_LINK:
	case OP_SYMLINK: emit_pairs(s, p, k, k == OP_RENAME, k == OP_SYMLINK, NULL); break;
	case OP_CHMOD:
		for (int e = 0; e < p->nfiles + p->ndirs; e++)
			for (size_t m = 0; m < NELEM(chmod_modes); m++)
				emit(s, k, path_at(p, e), NULL, "op chmod %s %s", path_at(p, e),
				     chmod_modes[m]);
		break;
	case OP_SETXATTR:
		for (int e = 0; e < p->nfiles + p->ndirs; e++)
			for (size_t z = 0; z < NELEM(xattr_enum_sizes); z++)
				emit(s, k, path_at(p, e), NULL, "op setxattr %s user.a %u 1",
				     path_at(p, e), xattr_enum_sizes[z]);
		break;
	case OP_SETTIME:
		for (size_t i = 0; i < NINSTANTS; i++)
			if (instants[i].flags & INSTF_SETTIME)
				emit(s, k, NULL, NULL, "op settime %s", instants[i].arg);
		break;
	case OP_UTIMES:
		for (int e = 0; e < p->nfiles + p->ndirs; e++)
			for (size_t i = 0; i < NINSTANTS; i++) {
				const char *path = path_at(p, e);
				if (instants[i].flags & INSTF_UTIMES)
					emit(s, k, path, NULL, "op utimes %s %s", path,
					     instants[i].arg);
			}
		break;
	case OP_READ:
		for (int f = 0; f < p->nfiles; f++)
			for (int a = 0; a < nsz; a++)
				for (int b = 0; b < nsz; b++)
					emit(s, k, p->files[f], NULL, "op read %s %lu %lu",
					     p->files[f], off[a], sz[b]);
		break;
	default: /* the table's example, at every path of the pools */
		if (!*op_letters(k)) {
			emit(s, k, NULL, NULL, "op %s", name);
		} else if (op_letters(k)[0] == 'P') {
			const char *rest = op_example(k); /* "NAME PATH REST" */
			rest += strcspn(rest, " "), rest += strspn(rest, " ");
			rest += strcspn(rest, " ");
			for (int e = 0; e < p->nfiles + p->ndirs; e++) {
				emit(s, k, path_at(p, e), NULL, "op %s %s%s", name, path_at(p, e),
				     rest);
			}
		}
		break;
	}
}

int op_enumerate(uint32_t mask, const struct op_pools *p, const struct op_view *view,
		 struct op *out, int max)
{
	struct op *all = malloc(sizeof(struct op) * (size_t)max);
	int start[OP_NKINDS] = {0}, len[OP_NKINDS] = {0}, longest = 0, n = 0;
	struct sink s = {all, 0, max, view, false};
	for (int k = 0; k < OP_NKINDS && all; k++) {
		start[k] = s.n;
		s.doomed_kept = false;
		if (mask >> k & 1)
			enumerate_kind(&s, p, (enum op_kind)k);
		len[k] = s.n - start[k];
		longest = len[k] > longest ? len[k] : longest;
	}
	/* Round robin over the kinds: a bounded search reaches every kind of
	 * operation early at every depth, not the last kinds only after the
	 * subtrees of every candidate of the first. */
	for (int r = 0; r < longest; r++)
		for (int k = 0; k < OP_NKINDS; k++)
			if (r < len[k])
				out[n++] = all[start[k] + r];
	free(all);
	return n;
}

/* ---- simplicity: the minimizer's order over argument values ---- */

/* The values of one argument letter, simplest first. */
struct bin {
	const char *words[2 * OP_POOL_MAX + 8];
	int nwords;
	unsigned long long nums[2 * OP_POOL_MAX];
	int nnums;
};

static void bin_word(struct bin *b, const char *w)
{
	for (int i = 0; i < b->nwords; i++)
		if (!strcmp(b->words[i], w))
			return; /* a pool repeats a value to weight it */
	if (b->nwords < (int)(sizeof(b->words) / sizeof(b->words[0])))
		b->words[b->nwords++] = w;
}

static void bin_num(struct bin *b, unsigned long long v)
{
	int i = 0;
	while (i < b->nnums && b->nums[i] < v)
		i++;
	if ((i < b->nnums && b->nums[i] == v) || b->nnums == 2 * OP_POOL_MAX)
		return;
	memmove(&b->nums[i + 1], &b->nums[i], sizeof(b->nums[0]) * (size_t)(b->nnums - i));
	b->nums[i] = v;
	b->nnums++;
}

#define BIN_WORDS(b, arr)                                                                          \
	for (size_t i_ = 0; i_ < sizeof(arr) / sizeof(arr[0]); i_++)                               \
	bin_word(b, arr[i_])

/* The bin a letter's values come from (op_table.h's letters): the pools
 * the generator and the enumeration draw from, so nothing here is a list
 * of its own. An instant (E) gets none: which instant is the test. */
static void bin_of(char letter, const struct op_pools *p, struct bin *b)
{
	memset(b, 0, sizeof(*b));
	switch (letter) {
	case 'P':
	case 'T':
		for (int i = 0; i < p->nfiles; i++)
			bin_word(b, p->files[i]);
		for (int i = 0; i < p->ndirs; i++)
			bin_word(b, p->dirs[i]);
		break;
	case 'N':
		for (int i = 0; i < p->nsizes; i++)
			bin_num(b, p->sizes[i]);
		for (int i = 0; !p->nsizes && i < NBINS; i++)
			bin_num(b, offset_bins[i]), bin_num(b, size_bins[i]);
		for (size_t i = 0; !p->nsizes && i < NELEM(boundary_sizes); i++)
			bin_num(b, boundary_sizes[i]), bin_num(b, boundary_writes[i][0]),
			    bin_num(b, boundary_writes[i][1]);
		for (size_t i = 0; !p->nsizes && i < NELEM(xattr_enum_sizes); i++)
			bin_num(b, xattr_enum_sizes[i]);
		break;
	case 'S': /* the enumeration's seeds: the second in the default scope */
		for (size_t i = 0; i < (p->nsizes ? 1 : NELEM(data_seeds)); i++)
			bin_num(b, data_seeds[i]);
		break;
	case 'M': BIN_WORDS(b, modes); break;
	case 'C': BIN_WORDS(b, create_flags); break;
	case 'W': BIN_WORDS(b, write_flags); break;
	case 'I': BIN_WORDS(b, owners); break;
	case 'X': BIN_WORDS(b, xattr_names); break;
	case 'F': BIN_WORDS(b, fallocate_modes); break;
	case 'R': BIN_WORDS(b, renameat2_flags); break;
	default: break;
	}
}

int op_value_rank(char letter, const struct op_pools *p, const char *value)
{
	struct bin b;
	bin_of(letter, p, &b);
	if (b.nnums) {
		char *end;
		unsigned long long v = strtoull(value, &end, 10);
		int r = 0;
		while (r < b.nnums && b.nums[r] < v)
			r++;
		return *end ? b.nnums : r;
	}
	for (int i = 0; i < b.nwords; i++)
		if (!strcmp(b.words[i], value))
			return i;
	return b.nwords;
}

int op_value_at(char letter, const struct op_pools *p, int rank, char *out, size_t cap)
{
	struct bin b;
	bin_of(letter, p, &b);
	if (rank < 0 || rank >= (b.nnums ? b.nnums : b.nwords))
		return -1;
	if (b.nnums)
		snprintf(out, cap, "%llu", b.nums[rank]);
	else
		snprintf(out, cap, "%s", b.words[rank]);
	return 0;
}
