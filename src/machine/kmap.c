/* kmap.c - see kmap.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmap.h"

#define KMAP_TAIL (64u << 10) /* code past the last symbol still its */

static int by_addr(const void *a, const void *b)
{
	const struct kmap_sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line: "ADDR TYPE NAME"; text symbols kept. 0, or -1 (no memory). */
static int add_line(struct kmap *m, const char *line)
{
	char *end;
	errno = 0;
	uint64_t addr = strtoull(line, &end, 16);
	if (errno || end == line || end[0] != ' ' || !strchr("tTwW", end[1]) || end[1] == 0 ||
	    end[2] != ' ')
		return 0;
	const char *name = end + 3;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4096;
		struct kmap_sym *p = realloc(m->s, cap * sizeof(*p));
		if (!p)
			return -1;
		m->s = p, m->cap = cap;
	}
	struct kmap_sym *x = &m->s[m->n++];
	x->addr = addr;
	snprintf(x->name, sizeof(x->name), "%.*s", (int)strcspn(name, " \t\r\n"), name);
	return 0;
}

int kmap_load(struct kmap *m, const char *path, char *err, size_t errlen)
{
	char line[512];
	*m = (struct kmap){0};
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? 1 : -1;
	}
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f))
		rc = add_line(m, line);
	fclose(f);
	if (rc || m->n == 0) {
		snprintf(err, errlen, "%s: %s", path,
			 rc ? "out of memory" : "no text symbol in it");
		kmap_free(m);
		return -1;
	}
	qsort(m->s, m->n, sizeof(*m->s), by_addr);
	m->end = m->s[m->n - 1].addr + KMAP_TAIL;
	return 0;
}

void kmap_free(struct kmap *m)
{
	free(m->s);
	*m = (struct kmap){0};
}

long kmap_index(const struct kmap *m, uint64_t addr)
{
	if (addr >= m->end)
		return -1;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

uint64_t kmap_addr(const struct kmap *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->s[i].name, name))
			return m->s[i].addr;
	return 0;
}
