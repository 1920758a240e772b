/* report_groups.c - the groups section of `themis report`'s page
 * (report.h). A group is report.json's "groups" entry (id, signature,
 * view, filesystems, shape, count, simplest trace, members); a run whose
 * report has none shows each "results" entry as a group of one (its
 * .min.trace when there is one). Per group: its simplest trace's
 * operations, the difference the trace shows (its `show` lines: stat per
 * filesystem, the first differing offset and hexdump, fsck verdicts), the
 * disks' byte diff of its last operation (DIR/group-NNNN/disk-diff.txt's
 * first lines), the whole trace, the members, and the reproducer found in
 * DIR/group-NNNN/ (links to repro.sh and repro.c, and repro.sh's first
 * lines). Trace paths are as the run wrote them (relative to its
 * directory then, or absolute): tried as given, then by name in DIR. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check/lastop.h"
#include "../check/repro.h"
#include "report.h"

#define TRACE_MAX (1u << 20) /* bytes of a trace or reproducer shown */

/* The texts a result's group of one is made of. */
struct group_text {
	char view[64], shape[1024], min[PATH_MAX];
};

struct group {
	long long id, count;
	const char *signature, *view, *shape, *simplest, *detail;
	const json_t *filesystems, *members; /* arrays of strings, or NULL */
};

/* Where `path` is: as given, else its name in dir, into out; 0 or -1. */
static int resolve(const char *dir, const char *path, char *out, size_t cap)
{
	if (!*path)
		return -1;
	if (access(path, R_OK) == 0) {
		snprintf(out, cap, "%s", path);
		return 0;
	}
	const char *base = strrchr(path, '/');
	snprintf(out, cap, "%s/%s", dir, base ? base + 1 : path);
	return access(out, R_OK) == 0 ? 0 : -1;
}

static void list_strings(FILE *f, const json_t *list, const char *sep)
{
	size_t i;
	json_t *v;
	json_array_foreach((json_t *)list, i, v)
	{
		if (i)
			fputs(sep, f);
		report_html_text(f, json_string_value(v) ? json_string_value(v) : "?");
	}
}

/* One kind of line of the trace ("op ", "show "), each without its word,
 * as list items (ol) or lines of a <pre>. How many. */
static int trace_lines(FILE *f, const char *text, const char *word, bool items)
{
	size_t wl = strlen(word);
	int n = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		if (len >= wl && !strncmp(p, word, wl)) {
			fputs(items ? "<li><code>" : "", f);
			report_html_bytes(f, p + wl, len - wl);
			fputs(items ? "</code></li>\n" : "\n", f);
			n++;
		}
		p += len + (p[len] == '\n');
	}
	return n;
}

/* The trace's "discrepancy SIG DETAIL" line's detail, escaped, or `fallback`. */
static void trace_detail(FILE *f, const char *text, const char *fallback)
{
	const char *p = strstr(text, "\ndiscrepancy ");
	if (!p) {
		report_html_text(f, fallback);
		return;
	}
	p += strlen("\ndiscrepancy ");
	p += strcspn(p, " \n");
	p += *p == ' ';
	report_html_bytes(f, p, strcspn(p, "\n"));
}

static void group_trace(FILE *f, const char *dir, const struct group *g)
{
	char path[PATH_MAX];
	size_t len;
	int cut = 0;
	char *text = resolve(dir, g->simplest, path, sizeof(path)) == 0
			 ? report_read_file(path, TRACE_MAX, &len, &cut)
			 : NULL;
	if (!text) {
		fputs("<p class=\"bad\">The simplest trace, <code>", f);
		report_html_text(f, g->simplest);
		fputs("</code>, cannot be read (nor found by its name in the report's "
		      "folder).</p>\n<p>",
		      f);
		report_html_text(f, g->detail);
		fputs("</p>\n", f);
		return;
	}
	fputs("<p class=\"detail\">", f);
	trace_detail(f, text, g->detail);
	fputs("</p>\n<h4>Simplest trace: <code>", f);
	report_html_text(f, path);
	fputs("</code></h4>\n<ol class=\"ops\">\n", f);
	if (!trace_lines(f, text, "op ", true))
		fputs("<li class=\"muted\">(no operation: the root differs)</li>\n", f);
	fputs("</ol>\n<h4>The difference</h4>\n<pre class=\"diff\">", f);
	if (!trace_lines(f, text, "show ", false))
		fputs("(the trace holds no show lines)", f);
	fputs("</pre>\n", f);
	report_html_details(f, cut ? "the whole trace (cut at 1 MiB)" : "the whole trace", text,
			    len);
	free(text);
}

#define DIFF_LINES 40 /* lines of a group's disk diff shown */

/* The disks' byte diff of the simplest trace's last operation
 * (lastop.h), its first lines; a link to the whole when cut. */
static void group_disk_diff(FILE *f, const char *dir, long long id)
{
	char path[PATH_MAX];
	size_t len;
	int cut = 0;
	snprintf(path, sizeof(path), "%s/group-%04lld/" LASTOP_FILE, dir, id);
	char *text = report_read_file(path, TRACE_MAX, &len, &cut);
	fputs("<h4>The disks' byte diff of the last operation (synced)</h4>\n", f);
	if (!text) {
		fprintf(f,
			"<p class=\"muted\">No disk diff (group-%04lld/" LASTOP_FILE
			" is not in the report's folder).</p>\n",
			id);
		return;
	}
	int lines = 0;
	const char *end = text;
	while (*end && lines < DIFF_LINES) {
		end += strcspn(end, "\n");
		end += *end == '\n';
		lines++;
	}
	fputs("<pre class=\"disk-diff\">", f);
	report_html_bytes(f, text, (size_t)(end - text));
	fputs("</pre>\n", f);
	if (*end)
		fprintf(f,
			"<p class=\"muted\">The first %d lines: the whole diff is <a download "
			"href=\"group-%04lld/" LASTOP_FILE "\">" LASTOP_FILE "</a>.</p>\n",
			DIFF_LINES, id);
	free(text);
}

#define REPRO_HEAD_LINES 12 /* lines of repro.sh shown under its link */

/* The first n lines of text, escaped, in a <pre>. */
static void head_lines(FILE *f, const char *text, int n)
{
	const char *end = text;
	for (int i = 0; i < n && *end; i++)
		end += strcspn(end, "\n") + (end[strcspn(end, "\n")] == '\n');
	fputs("<pre class=\"repro-head\">", f);
	report_html_bytes(f, text, (size_t)(end - text));
	fputs(*end ? "...\n</pre>\n" : "</pre>\n", f);
}

/* The reproducer as links to its files (relative: the page sits in DIR)
 * and repro.sh's first lines; or why there is none. */
static void group_repro(FILE *f, const char *dir, long long id)
{
	char path[PATH_MAX];
	size_t len;
	int cut = 0;
	snprintf(path, sizeof(path), "%s/group-%04lld/repro.sh", dir, id);
	char *sh = report_read_file(path, TRACE_MAX, &len, &cut);
	if (sh) {
		fprintf(
		    f,
		    "<p class=\"repro\">Reproducer, no Themis needed (as root: <code>sh "
		    "repro.sh</code>): <a download href=\"group-%04lld/repro.sh\">repro.sh</a>, "
		    "<a download href=\"group-%04lld/repro.c\">repro.c</a></p>\n",
		    id, id);
		head_lines(f, sh, REPRO_HEAD_LINES);
		free(sh);
		return;
	}
	snprintf(path, sizeof(path), "%s/group-%04lld/" REPRO_REFUSED, dir, id);
	char *why = report_read_file(path, TRACE_MAX, &len, &cut);
	fprintf(f, "<p class=\"muted no-repro\">No reproducer for this group%s", why ? ": " : "");
	if (why) {
		why[strcspn(why, "\n")] = '\0';
		report_html_text(f, why);
	} else
		fprintf(f, " (group-%04lld/repro.sh, repro.c) in the report's folder", id);
	fputs(".</p>\n", f);
	free(why);
}

static void group_section(FILE *f, const char *dir, const struct group *g)
{
	fprintf(f, "<section class=\"group\" id=\"group-%lld\" data-signature=\"", g->id);
	report_html_text(f, g->signature);
	fprintf(f, "\">\n<h3>Group %lld: <span class=\"sig\">", g->id);
	report_html_text(f, g->signature);
	fprintf(f, "</span></h3>\n<table><tr><th>view</th><td>");
	report_html_text(f, g->view);
	fputs("</td><th>filesystems</th><td>", f);
	list_strings(f, g->filesystems, ", ");
	fputs("</td><th>shape</th><td><code>", f);
	report_html_text(f, g->shape);
	fprintf(f, "</code></td><th>members</th><td class=\"n\">%lld</td></tr></table>\n",
		g->count);
	group_trace(f, dir, g);
	group_disk_diff(f, dir, g->id);
	if (json_array_size(g->members) > 1) {
		fprintf(f, "<details><summary>all %zu members</summary><pre>",
			json_array_size(g->members));
		list_strings(f, g->members, "\n");
		fputs("</pre></details>\n", f);
	}
	group_repro(f, dir, g->id);
	fputs("</section>\n", f);
}

static void from_group(struct group *g, const json_t *j)
{
	*g = (struct group){
	    .id = (long long)report_num(j, "id"),
	    .count = (long long)report_num(j, "count"),
	    .signature = report_str(j, "signature"),
	    .view = report_str(j, "view"),
	    .shape = report_str(j, "shape"),
	    .simplest = report_str(j, "simplest"),
	    .detail = "",
	    .filesystems = json_object_get(j, "filesystems"),
	    .members = json_object_get(j, "members"),
	};
}

/* A result as a group of one: its view is its signature's first word,
 * its shape the operations' names, its simplest trace the .min.trace
 * beside its trace when there is one (into min). */
static void from_result(struct group *g, const json_t *r, const json_t *root, long long id,
			const char *dir, struct group_text *t)
{
	const char *sig = report_str(r, "signature"), *trace = report_str(r, "trace");
	snprintf(t->view, sizeof(t->view), "%.*s", (int)strcspn(sig, ":"), sig);
	size_t used = 0, cap = sizeof(t->shape);
	t->shape[0] = 0;
	for (const char *p = report_str(r, "operations"); *p && used + 1 < cap;) {
		p += strncmp(p, "op ", 3) ? 0 : 3; /* the lines are the trace's */
		int w = (int)strcspn(p, " \n");
		int n = snprintf(t->shape + used, cap - used, "%s%.*s", used ? "," : "", w, p);
		used = n < 0 ? cap : used + (size_t)n;
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	size_t tl = strlen(trace);
	bool named = tl > 6 && !strcmp(trace + tl - 6, ".trace");
	char found[PATH_MAX];
	snprintf(t->min, sizeof(t->min), "%.*s.min.trace", named ? (int)(tl - 6) : 0, trace);
	if (!named || resolve(dir, t->min, found, sizeof(found)))
		snprintf(t->min, sizeof(t->min), "%s", trace);
	*g = (struct group){.id = id,
			    .count = 1,
			    .signature = sig,
			    .view = t->view,
			    .shape = t->shape,
			    .simplest = t->min,
			    .detail = report_str(r, "detail"),
			    .filesystems = json_object_get(root, "filesystems"),
			    .members = NULL};
}

void report_groups(FILE *f, const char *dir, const json_t *root)
{
	const json_t *groups = json_object_get(root, "groups");
	const json_t *results = json_object_get(root, "results");
	size_t i;
	json_t *j;
	struct group g;
	fputs("<section id=\"groups\">\n<h2>Findings, by group</h2>\n", f);
	if (json_array_size(groups)) {
		json_array_foreach((json_t *)groups, i, j)
		{
			from_group(&g, j);
			group_section(f, dir, &g);
		}
	} else if (json_array_size(results)) {
		struct group_text *t = malloc(sizeof(*t));
		if (!t) {
			fputs("<p class=\"bad\">Out of memory.</p>\n</section>\n", f);
			return;
		}
		fputs("<p class=\"muted\">report.json has no groups: each result is shown as a "
		      "group of one.</p>\n",
		      f);
		json_array_foreach((json_t *)results, i, j)
		{
			from_result(&g, j, root, (long long)i + 1, dir, t);
			group_section(f, dir, &g);
		}
		free(t);
	} else {
		fputs("<p class=\"ok\">No discrepancy and no finding.</p>\n", f);
	}
	fputs("</section>\n", f);
}
