/* group.c - see group.h. A group's key is the signature, the view it
 * implies and the shape: the operation names in order of a simplified
 * trace, or of a trace as found only the operation that showed it (its
 * earlier ones may merely set the scene: `symlink; link; link` and
 * `create; link; link` are one bug). The filesystems are the run's, alike
 * for every record. Quadratic in the groups, which are few (a run keeps at
 * most SHARE_RECORDS_MAX records). */
#include <string.h>

#include "group.h"

const char *group_view(const char *sig)
{
	static const struct {
		const char *prefix, *view;
	} views[] = {{"state:", "live"},    {"result", "live"},
		     {"disk:", "disk"},	    {"durability:", "durability"},
		     {"crash:", "crash"},   {"fsck:", "fsck"},
		     {"kernel:", "kernel"}, {"finding", "guest"}};
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strncmp(sig, views[i].prefix, strlen(views[i].prefix)))
			return views[i].view;
	return "live";
}

const char *group_ops(const struct share_record *r)
{
	return r->min_ops[0] ? r->min_ops : r->ops;
}

/* "op create f0 0644 -\nop link f0 f1" -> "create,link"; how many ops. */
static int shape_of(const char *ops, char *out, size_t cap)
{
	size_t len = 0;
	int n = 0;
	out[0] = 0;
	for (const char *p = ops; *p;) {
		size_t line = strcspn(p, "\n");
		const char *name = p + (strncmp(p, "op ", 3) ? 0 : 3);
		size_t word = strcspn(name, " \n");
		if (len < cap)
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s", n ? "," : "",
						(int)word, name);
		n++;
		p += line + (p[line] == '\n');
	}
	return n;
}

/* What of a shape groups: all of a simplified trace's; of a trace as
 * found, its last operation (before a crash step, which every crash
 * trace ends in). Into key. */
static void key_of(const char *shape, bool simplified, char *key, size_t cap)
{
	size_t len = strlen(shape);
	if (len >= 6 && !strcmp(shape + len - 6, ",crash"))
		len -= 6;
	const char *from = shape;
	if (!simplified)
		for (size_t i = 0; i < len; i++)
			if (shape[i] == ',')
				from = shape + i + 1;
	snprintf(key, cap, "%.*s", (int)(len - (size_t)(from - shape)), from);
}

int group_records(const struct share_record *r, int n, struct check_group *g, int *of)
{
	int ng = 0;
	char shape[GROUP_SHAPE_MAX], key[GROUP_SHAPE_MAX];
	for (int i = 0; i < n; i++) {
		/* A guest failure the kernel explained (a report before the
		 * panic) groups by that report, as the kernel lens signs it. */
		const char *sig =
		    r[i].finding && strncmp(r[i].sig, "kernel:", 7) ? "finding" : r[i].sig;
		int nops = shape_of(group_ops(&r[i]), shape, sizeof(shape));
		key_of(shape, r[i].min_ops[0] != 0, key, sizeof(key));
		int k = 0;
		while (k < ng && (strcmp(g[k].sig, sig) || strcmp(g[k].key, key)))
			k++;
		if (k == ng) {
			memset(&g[k], 0, sizeof(g[k]));
			g[k].id = ++ng;
			snprintf(g[k].sig, sizeof(g[k].sig), "%s", sig);
			snprintf(g[k].key, sizeof(g[k].key), "%s", key);
		}
		if (g[k].count == 0 || nops < g[k].nops) { /* ties: the first found stays */
			snprintf(g[k].shape, sizeof(g[k].shape), "%s", shape);
			g[k].simplest = i;
			g[k].nops = nops;
		}
		g[k].count++;
		of[i] = k;
	}
	return ng;
}

void group_print(FILE *f, const struct check_group *g, int ngroups, int nrecords,
		 const char *const *fs, int nfs, bool minimized)
{
	if (!nrecords)
		return;
	fprintf(f, "groups: %d among %d discrepancies and findings, by signature, view and %s:\n",
		ngroups, nrecords,
		minimized ? "the shape of the simplified trace"
			  : "the operation that showed it (the trace as found, without --minimize: "
			    "not simplified first)");
	for (int i = 0; i < ngroups; i++) {
		fprintf(f, "  group %d: %s (%s view", g[i].id, g[i].sig, group_view(g[i].sig));
		for (int j = 0; j < nfs; j++)
			fprintf(f, "%s%s", j ? " vs " : ", ", fs[j]);
		fprintf(f, ") after %s: %d, simplest %s\n",
			g[i].shape[0] ? g[i].shape : "(the root)", g[i].count, g[i].simplest_trace);
	}
}
