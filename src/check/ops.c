/* ops.c - see ops.h. The pools follow Metis (FAST'24): up to 3 files and 2
 * directories per level, 2 levels; sizes and offsets from power-of-two bins
 * and their +-1 neighbours. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

static const char *const names[OP_NKINDS] = {
    [OP_CREATE] = "create",
    [OP_WRITE] = "write",
    [OP_TRUNCATE] = "truncate",
    [OP_UNLINK] = "unlink",
    [OP_MKDIR] = "mkdir",
    [OP_RMDIR] = "rmdir",
    [OP_CHMOD] = "chmod",
    [OP_CHOWN] = "chown",
    [OP_CHGRP] = "chgrp",
    [OP_SETXATTR] = "setxattr",
    [OP_REMOVEXATTR] = "removexattr",
    [OP_RENAME] = "rename",
    [OP_LINK] = "link",
    [OP_SYMLINK] = "symlink",
    [OP_FSYNC] = "fsync",
    [OP_FALLOCATE] = "fallocate",
    [OP_REMOUNT] = "remount",
};

static const char *const default_files[] = {"f0", "f1", "f2", "d0/f0", "d0/f1", "d0/f2", "d1/f0"};
static const char *const default_dirs[] = {"d0", "d1", "d0/d0", "d0/d1"};
static const char *const modes[] = {"0644", "0600", "0755", "0444", "0777"};
static const char *const create_flags[] = {"-", "-", "excl", "trunc"};
static const char *const write_flags[] = {"-", "-", "-", "append", "sync", "append,sync"};
static const char *const owners[] = {"0", "1000", "65534"};
static const char *const xattr_names[] = {"user.a", "user.b"};
/* Values every filesystem here stores inline or in one block: the limits
 * beyond differ by design (ext4 about a block: 1 KiB on the small test
 * images, xfs 64 KiB). */
static const unsigned xattr_sizes[] = {0, 1, 16, 255};

const char *op_name(enum op_kind k)
{
	return (unsigned)k < OP_NKINDS ? names[k] : "?";
}

int op_kind_by_name(const char *name)
{
	for (int k = 0; k < OP_NKINDS; k++)
		if (!strcmp(name, names[k]))
			return k;
	return -1;
}

int op_kind_of_text(const char *text)
{
	char word[32];
	if (sscanf(text, "op %31s", word) != 1)
		return -1;
	return op_kind_by_name(word);
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
			k = !strcmp(word, "all") ? OP_NKINDS : op_kind_by_name(word);
		}
		if (k < 0) {
			*bad = p;
			*badlen = (int)n;
			return -1;
		}
		mask |= k == OP_NKINDS ? (1LL << OP_NKINDS) - 1 : 1LL << k;
		p += n + (p[n] == ',');
	}
	return mask;
}

static const struct {
	const char *fs;
	uint32_t unsupported;
} fs_table[] = {
    {"ext2", 1u << OP_FALLOCATE},
    {"ext3", 1u << OP_FALLOCATE},
    {"ext4", 0},
    {"xfs", 0},
    {"btrfs", 0},
    {"f2fs", 0},
    {"jfs", 1u << OP_FALLOCATE},
    {"nilfs2", 1u << OP_FALLOCATE | 1u << OP_SETXATTR | 1u << OP_REMOVEXATTR},
    {"minix", 1u << OP_FALLOCATE | 1u << OP_SETXATTR | 1u << OP_REMOVEXATTR},
    /* FAT-family: no owners, no links, no modes beyond read-only, no xattrs. */
    {"vfat", 1u << OP_CHOWN | 1u << OP_CHGRP | 1u << OP_LINK | 1u << OP_SYMLINK | 1u << OP_CHMOD |
		 1u << OP_SETXATTR | 1u << OP_REMOVEXATTR | 1u << OP_FALLOCATE},
    {"exfat", 1u << OP_CHOWN | 1u << OP_CHGRP | 1u << OP_LINK | 1u << OP_SYMLINK | 1u << OP_CHMOD |
		  1u << OP_SETXATTR | 1u << OP_REMOVEXATTR | 1u << OP_FALLOCATE},
};

const char *fs_unrepresented(const char *fs)
{
	/* FAT keeps no permission bits (all read 0755 from the mount's umask),
	 * no link counts worth the name, and no xattrs. */
	return !strcmp(fs, "vfat") || !strcmp(fs, "exfat") ? "mode,nlink,xattrs" : "";
}

bool fs_known(const char *fs)
{
	for (size_t i = 0; i < sizeof(fs_table) / sizeof(fs_table[0]); i++)
		if (!strcmp(fs, fs_table[i].fs))
			return true;
	return false;
}

uint32_t fs_supported_ops(const char *fs)
{
	for (size_t i = 0; i < sizeof(fs_table) / sizeof(fs_table[0]); i++)
		if (!strcmp(fs, fs_table[i].fs))
			return ((1u << OP_NKINDS) - 1) & ~fs_table[i].unsupported;
	return 0;
}

uint64_t op_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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
	case OP_RENAME: {
		bool dir = op_rng_next(rng) % 3 == 0;
		const char *a = dir ? DIR_E(1) : FILE_E(1);
		const char *b = op_rng_next(rng) % 2 ? (dir ? DIR_E(-1) : FILE_E(-1))
						     : (dir ? DIR_E(1) : FILE_E(1));
		snprintf(t, n, "op rename %s %s", a, b);
		break;
	}
	case OP_LINK: snprintf(t, n, "op link %s %s", FILE_E(1), FILE_E(-1)); break;
	case OP_SYMLINK: snprintf(t, n, "op symlink %s %s", any_path(rng, p, v), FILE_E(-1)); break;
	case OP_FSYNC: snprintf(t, n, "op fsync %s", any_path(rng, p, v)); break;
	case OP_FALLOCATE:
		snprintf(t, n, "op fallocate %s %s %lu %lu", FILE_E(1),
			 op_rng_next(rng) % 2 ? "0" : "keep_size", size_of(rng, p, 16),
			 size_of(rng, p, 16));
		break;
	default: snprintf(t, n, "op remount"); break;
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

struct sink {
	struct op *out;
	int n, max;
};

static void emit(struct sink *s, enum op_kind k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void emit(struct sink *s, enum op_kind k, const char *fmt, ...)
{
	if (s->n == s->max)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->out[s->n].text, OP_TEXT_MAX, fmt, ap);
	va_end(ap);
	s->out[s->n++].kind = k;
}

static void enumerate_paths(struct sink *s, const struct op_pools *p, enum op_kind k,
			    const char *name, const char *arg)
{
	for (int i = 0; i < p->nfiles + p->ndirs; i++) {
		const char *path = i < p->nfiles ? p->files[i] : p->dirs[i - p->nfiles];
		emit(s, k, "op %s %s%s%s", name, path, arg ? " " : "", arg ? arg : "");
	}
}

static void enumerate_data(struct sink *s, const struct op_pools *p, uint32_t mask)
{
	static const unsigned long bins[] = {0, 1, 4095, 4096, 4097};
	const unsigned long *sz = p->nsizes ? p->sizes : bins;
	int nsz = p->nsizes ? p->nsizes : 5;
	for (int f = 0; f < p->nfiles; f++)
		for (int a = 0; a < nsz; a++) {
			if (mask & 1u << OP_TRUNCATE)
				emit(s, OP_TRUNCATE, "op truncate %s %lu", p->files[f], sz[a]);
			for (int b = 0; b < nsz; b++) {
				/* sync first: the plain write reaches the same abstract
				 * state, which the visited set then prunes, but only the
				 * synced one has put its data on the disk. */
				if (mask & 1u << OP_WRITE) {
					emit(s, OP_WRITE, "op write %s %lu %lu 1 sync", p->files[f],
					     sz[a], sz[b]);
					emit(s, OP_WRITE, "op write %s %lu %lu 1 -", p->files[f],
					     sz[a], sz[b]);
				}
				if (mask & 1u << OP_FALLOCATE)
					emit(s, OP_FALLOCATE, "op fallocate %s 0 %lu %lu",
					     p->files[f], sz[a], sz[b]);
			}
		}
}

static void enumerate_pairs(struct sink *s, const char *name, enum op_kind k, const char *const *a,
			    int na)
{
	for (int i = 0; i < na; i++)
		for (int j = 0; j < na; j++)
			if (i != j)
				emit(s, k, "op %s %s %s", name, a[i], a[j]);
}

int op_enumerate(uint32_t mask, const struct op_pools *p, struct op *out, int max)
{
	struct sink s = {out, 0, max};
	for (int f = 0; f < p->nfiles && (mask & 1u << OP_CREATE); f++)
		emit(&s, OP_CREATE, "op create %s 0644 -", p->files[f]);
	for (int d = 0; d < p->ndirs; d++) {
		if (mask & 1u << OP_MKDIR)
			emit(&s, OP_MKDIR, "op mkdir %s 0755", p->dirs[d]);
		if (mask & 1u << OP_RMDIR)
			emit(&s, OP_RMDIR, "op rmdir %s", p->dirs[d]);
	}
	for (int f = 0; f < p->nfiles && (mask & 1u << OP_UNLINK); f++)
		emit(&s, OP_UNLINK, "op unlink %s", p->files[f]);
	enumerate_data(&s, p, mask);
	if (mask & 1u << OP_RENAME) {
		enumerate_pairs(&s, "rename", OP_RENAME, p->files, p->nfiles);
		enumerate_pairs(&s, "rename", OP_RENAME, p->dirs, p->ndirs);
	}
	if (mask & 1u << OP_LINK)
		enumerate_pairs(&s, "link", OP_LINK, p->files, p->nfiles);
	if (mask & 1u << OP_SYMLINK)
		enumerate_pairs(&s, "symlink", OP_SYMLINK, p->files, p->nfiles);
	static const struct {
		enum op_kind k;
		const char *name, *arg;
	} simple[] = {{OP_CHMOD, "chmod", "0600"},
		      {OP_CHOWN, "chown", "1000"},
		      {OP_CHGRP, "chgrp", "1000"},
		      {OP_SETXATTR, "setxattr", "user.a 16 1"},
		      {OP_REMOVEXATTR, "removexattr", "user.a"},
		      {OP_FSYNC, "fsync", NULL}};
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++)
		if (mask & 1u << simple[i].k)
			enumerate_paths(&s, p, simple[i].k, simple[i].name, simple[i].arg);
	if (mask & 1u << OP_REMOUNT)
		emit(&s, OP_REMOUNT, "op remount");
	return s.n;
}
