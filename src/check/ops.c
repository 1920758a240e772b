/* ops.c - see ops.h. The pools follow Metis (FAST'24): up to 3 files and 2
 * directories per level, 2 levels; sizes and offsets from power-of-two bins
 * and their +-1 neighbours. */
#include <stdio.h>
#include <string.h>

#include "ops.h"

static const char *const names[OP_NKINDS] = {
	[OP_CREATE] = "create",	  [OP_WRITE] = "write",		[OP_TRUNCATE] = "truncate",
	[OP_UNLINK] = "unlink",	  [OP_MKDIR] = "mkdir",		[OP_RMDIR] = "rmdir",
	[OP_CHMOD] = "chmod",	  [OP_CHOWN] = "chown",		[OP_CHGRP] = "chgrp",
	[OP_SETXATTR] = "setxattr", [OP_REMOVEXATTR] = "removexattr", [OP_RENAME] = "rename",
	[OP_LINK] = "link",	  [OP_SYMLINK] = "symlink",	[OP_FSYNC] = "fsync",
	[OP_FALLOCATE] = "fallocate", [OP_REMOUNT] = "remount",
};

/* Paths: files f0..f2 and directories d0, d1 at the root and inside d0. */
static const char *const files[] = {"f0", "f1", "f2", "d0/f0", "d0/f1", "d0/f2", "d1/f0"};
static const char *const dirs[] = {"d0", "d1", "d0/d0", "d0/d1"};
static const char *const modes[] = {"0644", "0600", "0755", "0444", "0777"};
static const char *const create_flags[] = {"-", "-", "excl", "trunc"};
static const char *const write_flags[] = {"-", "-", "-", "append", "sync", "append,sync"};
static const char *const owners[] = {"0", "1000", "65534"};
static const char *const xattr_names[] = {"user.a", "user.b"};
static const unsigned xattr_sizes[] = {0, 1, 16, 255, 4096};

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
	{"vfat", 1u << OP_CHOWN | 1u << OP_CHGRP | 1u << OP_LINK | 1u << OP_SYMLINK |
			 1u << OP_CHMOD | 1u << OP_SETXATTR | 1u << OP_REMOVEXATTR |
			 1u << OP_FALLOCATE},
	{"exfat", 1u << OP_CHOWN | 1u << OP_CHGRP | 1u << OP_LINK | 1u << OP_SYMLINK |
			  1u << OP_CHMOD | 1u << OP_SETXATTR | 1u << OP_REMOVEXATTR |
			  1u << OP_FALLOCATE},
};

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

static const char *any_path(uint64_t *rng)
{
	return op_rng_next(rng) % 3 ? PICK(rng, files) : PICK(rng, dirs);
}

static void format_op(uint64_t *rng, enum op_kind k, char *t)
{
	const int n = OP_TEXT_MAX;
	switch (k) {
	case OP_CREATE:
		snprintf(t, n, "op create %s %s %s", PICK(rng, files), PICK(rng, modes),
			 PICK(rng, create_flags));
		break;
	case OP_WRITE:
		snprintf(t, n, "op write %s %lu %lu %u %s", PICK(rng, files), pow2_bin(rng, 16),
			 pow2_bin(rng, 16), (unsigned)(op_rng_next(rng) % 256),
			 PICK(rng, write_flags));
		break;
	case OP_TRUNCATE: snprintf(t, n, "op truncate %s %lu", PICK(rng, files), pow2_bin(rng, 17)); break;
	case OP_UNLINK: snprintf(t, n, "op unlink %s", PICK(rng, files)); break;
	case OP_MKDIR: snprintf(t, n, "op mkdir %s %s", PICK(rng, dirs), PICK(rng, modes)); break;
	case OP_RMDIR: snprintf(t, n, "op rmdir %s", PICK(rng, dirs)); break;
	case OP_CHMOD: snprintf(t, n, "op chmod %s %s", any_path(rng), PICK(rng, modes)); break;
	case OP_CHOWN: snprintf(t, n, "op chown %s %s", any_path(rng), PICK(rng, owners)); break;
	case OP_CHGRP: snprintf(t, n, "op chgrp %s %s", any_path(rng), PICK(rng, owners)); break;
	case OP_SETXATTR:
		snprintf(t, n, "op setxattr %s %s %u %u", any_path(rng), PICK(rng, xattr_names),
			 PICK(rng, xattr_sizes), (unsigned)(op_rng_next(rng) % 256));
		break;
	case OP_REMOVEXATTR:
		snprintf(t, n, "op removexattr %s %s", any_path(rng), PICK(rng, xattr_names));
		break;
	case OP_RENAME: {
		bool dir = op_rng_next(rng) % 3 == 0;
		const char *a = dir ? PICK(rng, dirs) : PICK(rng, files);
		const char *b = dir ? PICK(rng, dirs) : PICK(rng, files);
		snprintf(t, n, "op rename %s %s", a, b);
		break;
	}
	case OP_LINK: snprintf(t, n, "op link %s %s", PICK(rng, files), PICK(rng, files)); break;
	case OP_SYMLINK: snprintf(t, n, "op symlink %s %s", any_path(rng), PICK(rng, files)); break;
	case OP_FSYNC: snprintf(t, n, "op fsync %s", any_path(rng)); break;
	case OP_FALLOCATE:
		snprintf(t, n, "op fallocate %s %s %lu %lu", PICK(rng, files),
			 op_rng_next(rng) % 2 ? "0" : "keep_size", pow2_bin(rng, 16), pow2_bin(rng, 16));
		break;
	default: snprintf(t, n, "op remount"); break;
	}
}

void op_generate(uint64_t *rng, uint32_t mask, struct op *out)
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
	out->kind = k;
	format_op(rng, k, out->text);
}
