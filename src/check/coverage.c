/* coverage.c - see coverage.h. The arguments and their kinds come from
 * the operation table (op_table.h), the agent's grammar. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"

/* Argument a of kind k: its name (from op_table.h's args, "-" for one not
 * counted) into out, and its letter; 0 past the last argument. */
static char arg_at(enum op_kind k, int a, char *out, size_t cap)
{
	const char *letters = op_letters(k), *p = op_args(k);
	if (a >= (int)strlen(letters) || a >= COV_ARGS)
		return 0;
	for (int i = 0; i < a; i++)
		p += strcspn(p, " "), p += strspn(p, " ");
	snprintf(out, cap, "%.*s", (int)strcspn(p, " "), p);
	return letters[a];
}

/* Outcomes with a bit of their own; any other errno is the last bit. */
static const char *const outcomes[] = {
    "ok",     "ENOENT",	      "EEXIST", "ENOTDIR", "EISDIR",  "ENOTEMPTY", "EINVAL",	 "EPERM",
    "EACCES", "ENOSPC",	      "EFBIG",	"EMLINK",  "ENODATA", "ERANGE",	   "EOPNOTSUPP", "ELOOP",
    "EXDEV",  "ENAMETOOLONG", "EBUSY",	"EIO",	   "EFAULT",  "ENXIO",	   "other"};
#define NOUTCOMES (sizeof(outcomes) / sizeof(outcomes[0]))

/* 0 for 0, else 1 + floor(log2(n)), at most 31. */
static unsigned pow2_bin(unsigned long long n)
{
	unsigned b = 0;
	while (n && b < 31) {
		n >>= 1;
		b++;
	}
	return b;
}

/* FNV-1a, for arguments whose values are their own bins (few values: a
 * collision would only undercount). */
static unsigned word_bin(const char *w, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)w[i]) * 16777619u;
	return h % 32;
}

/* A path's bin: its place in the pools (files 0-15, directories 16-31). */
static unsigned path_bin(const struct op_pools *p, const char *w, size_t n)
{
	for (int i = 0; i < p->nfiles + p->ndirs; i++) {
		const char *q = i < p->nfiles ? p->files[i] : p->dirs[i - p->nfiles];
		if (strlen(q) == n && !memcmp(q, w, n))
			return i < p->nfiles ? (unsigned)i % 16
					     : 16 + (unsigned)(i - p->nfiles) % 16;
	}
	return word_bin(w, n);
}

void cov_add(struct coverage *c, const struct op_pools *pools, const char *text, const char *err)
{
	int k = op_kind_of_text(text);
	if (k < 0)
		return;
	const char *p = text + 3 + strlen(op_name((enum op_kind)k));
	char name[16], l;
	for (int a = 0; (l = arg_at((enum op_kind)k, a, name, sizeof(name))); a++) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (strcmp(name, "-"))
			c->in[k][a] |= 1u << (l == 'N' ? pow2_bin(strtoull(p, NULL, 10))
					      : l == 'P' || l == 'T' ? path_bin(pools, p, n)
								     : word_bin(p, n));
		p += n;
	}
	unsigned o = 0;
	if (strcmp(err, "0"))
		for (o = 1; o < NOUTCOMES - 1 && strcmp(err, outcomes[o]); o++)
			;
	c->out[k] |= 1u << o;
}

void cov_merge(struct coverage *into, const struct coverage *from)
{
	for (int k = 0; k < OP_NKINDS; k++) {
		for (int a = 0; a < COV_ARGS; a++)
			into->in[k][a] |= from->in[k][a];
		into->out[k] |= from->out[k];
	}
}

void cov_scope(struct coverage *c, uint32_t mask, const struct op_pools *p)
{
	enum { MAX = 1 << 16 };
	struct op *all = malloc(sizeof(*all) * MAX);
	memset(c, 0, sizeof(*c));
	if (!all)
		return;
	int n = op_enumerate(mask, p, NULL, all, MAX);
	for (int i = 0; i < n; i++)
		cov_add(c, p, all[i].text, "0");
	for (int k = 0; k < OP_NKINDS; k++)
		c->out[k] = 0; /* outcomes have no scope */
	free(all);
}

static int popcount(uint32_t x)
{
	return __builtin_popcount(x);
}

void cov_print(FILE *f, const struct coverage *t, const struct coverage *scope, uint32_t mask)
{
	fprintf(f, "coverage (argument bins tried/in scope; outcomes seen):\n");
	for (int k = 0; k < OP_NKINDS; k++) {
		if (!(mask >> k & 1))
			continue;
		fprintf(f, "  %-12s", op_name((enum op_kind)k));
		char name[16];
		for (int a = 0; arg_at((enum op_kind)k, a, name, sizeof(name)); a++)
			if (strcmp(name, "-"))
				fprintf(f, " %s %d/%d", name, popcount(t->in[k][a]),
					popcount(t->in[k][a] | scope->in[k][a]));
		fprintf(f, "  ->");
		if (!t->out[k])
			fprintf(f, " (not tried)");
		for (unsigned o = 0; o < NOUTCOMES; o++)
			if (t->out[k] >> o & 1)
				fprintf(f, " %s", outcomes[o]);
		fprintf(f, "\n");
	}
}

void cov_json(FILE *f, const struct coverage *t, const struct coverage *scope, uint32_t mask)
{
	fprintf(f, "{");
	bool first = true;
	for (int k = 0; k < OP_NKINDS; k++) {
		if (!(mask >> k & 1))
			continue;
		fprintf(f, "%s\n    \"%s\": {\"arguments\": {", first ? "" : ",",
			op_name((enum op_kind)k));
		first = false;
		bool a1 = true;
		char name[16];
		for (int a = 0; arg_at((enum op_kind)k, a, name, sizeof(name)); a++)
			if (strcmp(name, "-")) {
				fprintf(f, "%s\"%s\": [%d, %d]", a1 ? "" : ", ", name,
					popcount(t->in[k][a]),
					popcount(t->in[k][a] | scope->in[k][a]));
				a1 = false;
			}
		fprintf(f, "}, \"outcomes\": [");
		bool o1 = true;
		for (unsigned o = 0; o < NOUTCOMES; o++)
			if (t->out[k] >> o & 1) {
				fprintf(f, "%s\"%s\"", o1 ? "" : ", ", outcomes[o]);
				o1 = false;
			}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  }");
}
