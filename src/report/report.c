/* report.c - `themis report DIR` (report.h): load DIR/report.json with
 * jansson, check it is an explore report, and write the page, the bug
 * first: the run's summary (command line, kernel, build, scope, totals),
 * the findings by group, the rules that accepted differences; then the
 * coverage heat map and outcomes, the state space's growth by depth, the
 * other lenses' data and the SVG pictures found in DIR. The page is written beside its final name
 * and renamed into place, so a failed run leaves no half page. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lens/lens.h"
#include "report.h"

#define PICTURE_MAX (8u << 20) /* bytes of an SVG file inlined */

/* The summary's rows, the one list: X(report.json key, label). */
#define REPORT_SUMMARY(X)                                                                          \
	X("command", "command")                                                                    \
	X("kernel_version", "kernel")                                                              \
	X("kernels", "kernels (one per side)")                                                     \
	X("build", "themis build")                                                                 \
	X("filesystems", "filesystems")                                                            \
	X("scope", "operations in scope")                                                          \
	X("depth", "depth")                                                                        \
	X("states", "states")                                                                      \
	X("unique_states", "unique states")                                                        \
	X("discrepancies", "discrepancies")                                                        \
	X("findings", "guest failures (panics, hangs)")                                            \
	X("seconds", "seconds")                                                                    \
	X("states_per_second", "states/s")                                                         \
	X("complete", "complete")                                                                  \
	X("stopped", "stopped because")                                                            \
	X("deepest", "deepest (operations)")                                                       \
	X("durability", "durability")                                                              \
	X("time", "timestamps compared")                                                           \
	X("jobs", "jobs")                                                                          \
	X("seed", "seed")                                                                          \
	X("branch", "branch")                                                                      \
	X("swarm", "swarm")                                                                        \
	X("time_rules", "time rules")

/* A JSON scalar or list of scalars as text, escaped. */
static void put_value(FILE *f, const json_t *v)
{
	size_t i;
	json_t *e;
	switch (json_typeof(v)) {
	case JSON_STRING: report_html_text(f, json_string_value(v)); break;
	case JSON_INTEGER: fprintf(f, "%lld", (long long)json_integer_value(v)); break;
	case JSON_REAL: fprintf(f, "%.2f", json_real_value(v)); break;
	case JSON_TRUE: fputs("yes", f); break;
	case JSON_FALSE: fputs("no", f); break;
	case JSON_ARRAY:
		json_array_foreach((json_t *)v, i, e)
		{
			fputs(i ? ", " : "", f);
			put_value(f, e);
		}
		break;
	default: fputs("-", f); break;
	}
}

static void summary(FILE *f, const json_t *root)
{
	fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table>\n", f);
#define SUMMARY_ROW(key, label)                                                                    \
	if (json_object_get(root, key)) {                                                          \
		fputs("<tr><th>" label "</th><td class=\"value\" data-key=\"" key "\">", f);       \
		put_value(f, json_object_get(root, key));                                          \
		fputs("</td></tr>\n", f);                                                          \
	}
	REPORT_SUMMARY(SUMMARY_ROW)
#undef SUMMARY_ROW
	fputs("</table>\n</section>\n", f);
}

static void growth(FILE *f, const json_t *root)
{
	const json_t *by_depth = json_object_get(root, "by_depth");
	size_t i;
	json_t *d;
	fputs("<section id=\"growth-section\">\n<h2>The state space by depth</h2>\n", f);
	report_svg_growth(f, by_depth);
	if (json_array_size(by_depth)) {
		fputs("<table><tr><th>depth</th><th>states</th><th>unique</th></tr>\n", f);
		json_array_foreach((json_t *)by_depth, i, d) fprintf(
		    f,
		    "<tr><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td "
		    "class=\"n\">%.0f</td></tr>\n",
		    report_num(d, "depth"), report_num(d, "states"), report_num(d, "unique"));
		fputs("</table>\n<p class=\"muted\">Depth 0 is the booted root. Unique: states "
		      "new to the visited set (states at the last depth are never stored: "
		      "nothing is explored below them).</p>\n",
		      f);
	}
	fputs("</section>\n", f);
}

static void outcomes(FILE *f, const json_t *coverage)
{
	const char *op;
	json_t *v;
	fputs("<table class=\"outcomes\"><tr><th>operation</th><th>outcomes seen</th></tr>\n", f);
	json_object_foreach((json_t *)coverage, op, v)
	{
		fputs("<tr><td>", f);
		report_html_text(f, op);
		fputs("</td><td>", f);
		put_value(f, json_object_get(v, "outcomes"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The coverage lens: the heat map and the outcome lists. */
void report_coverage(FILE *f, const json_t *cov)
{
	fputs("<section id=\"coverage\">\n<h2>Coverage: operations x arguments</h2>\n", f);
	report_svg_heatmap(f, cov);
	if (json_object_size(cov))
		outcomes(f, cov);
	fputs("</section>\n", f);
}

/* Whether a lens's words are all zero: a lens the run had no use for
 * (crash and fsck count nothing without --crash and --fsck). */
static bool idle(const json_t *v)
{
	const char *key;
	json_t *w;
	json_object_foreach((json_t *)v, key, w)
	{
		if (!(json_is_integer(w) && json_integer_value(w) == 0) &&
		    !(json_is_object(w) && idle(w)))
			return false;
	}
	return true;
}

/* A lens's section: its chart (NULL: none) and its JSON; nothing for a
 * lens that counted nothing. */
static void lens_section(FILE *f, const char *name, const json_t *v,
			 void (*chart)(FILE *, const json_t *))
{
	if (!json_object_size(v) || idle(v))
		return;
	fputs("<section class=\"lens\">\n<h2>Lens: ", f);
	report_html_text(f, name);
	fputs("</h2>\n", f);
	if (chart)
		chart(f, v);
	char *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text)
		report_html_details(f, "its data in report.json", text, strlen(text));
	free(text);
	fputs("</section>\n", f);
}

void report_io(FILE *f, const json_t *io)
{
	lens_section(f, "io", io, report_svg_io);
}

/* Every lens of this build with a value in report.json, in the lenses'
 * order: its own section (its html hook), or its JSON. */
static void lenses(FILE *f, const json_t *root)
{
	const json_t *all = json_object_get(root, "lenses");
	const struct lens_def *defs[LENS_MAX];
	for (int i = 0, n = lens_registry(defs, LENS_MAX); i < n; i++) {
		const json_t *v = json_object_get(all, defs[i]->name);
		if (v && defs[i]->html)
			defs[i]->html(f, v);
		else if (v)
			lens_section(f, defs[i]->name, v, NULL);
	}
}

static int svg_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return n > 4 && !strcmp(e->d_name + n - 4, ".svg");
}

/* Every *.svg in dir (profile --svg, corrupt --svg put there), inline as
 * an <img> of a data: URL: the picture shows, and a script in it never
 * runs. */
static void pictures(FILE *f, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, svg_file, alphasort);
	if (n <= 0) {
		if (n == 0)
			free(names);
		return;
	}
	fputs("<section id=\"pictures\">\n<h2>Pictures in the report's folder</h2>\n", f);
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		size_t len;
		int cut;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		char *svg = report_read_file(path, PICTURE_MAX, &len, &cut);
		if (svg && !cut) {
			fputs("<figure><img class=\"picture\" alt=\"\" src=\"", f);
			report_html_data_url(f, "image/svg+xml", (const unsigned char *)svg, len);
			fputs("\"><figcaption>", f);
			report_html_text(f, names[i]->d_name);
			fputs("</figcaption></figure>\n", f);
		} else {
			fputs("<p class=\"bad\">", f);
			report_html_text(f, names[i]->d_name);
			fputs(svg ? ": larger than 8 MiB, left out.</p>\n"
				  : ": cannot be read.</p>\n",
			      f);
		}
		free(svg);
		free(names[i]);
	}
	free(names);
	fputs("</section>\n", f);
}

/* report.json, loaded and checked to be an explore report; NULL with err. */
static json_t *load(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	if (stat(dir, &st)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/report.json", dir);
	if (access(path, R_OK)) {
		snprintf(err, errlen, "%s: cannot read: %s (not a folder of explore --out?)", path,
			 strerror(errno));
		return NULL;
	}
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: malformed JSON: %s", path, je.line, je.column,
			 je.text);
		return NULL;
	}
	if (!json_is_object(root) || !json_is_array(json_object_get(root, "results"))) {
		snprintf(err, errlen, "%s: not an explore report (no \"results\" list)", path);
		json_decref(root);
		return NULL;
	}
	return root;
}

static void page(FILE *f, const char *dir, const json_t *root)
{
	char title[512];
	size_t used = (size_t)snprintf(title, sizeof(title), "Themis report:");
	size_t i;
	json_t *fs;
	json_array_foreach(json_object_get(root, "filesystems"), i, fs)
	{
		if (used < sizeof(title))
			used +=
			    (size_t)snprintf(title + used, sizeof(title) - used, " %s",
					     json_string_value(fs) ? json_string_value(fs) : "?");
	}
	/* The bug first: what was run, then the groups, then what was
	 * accepted; coverage and charts after. */
	report_html_begin(f, title);
	summary(f, root);
	report_groups(f, dir, root);
	lenses(f, root); /* the rules it accepted first, then coverage, io... */
	growth(f, root);
	pictures(f, dir);
	report_html_end(f);
}

int report_write(const char *dir, const char *out, char *err, size_t errlen)
{
	json_t *root = load(dir, err, errlen);
	if (!root)
		return -1;
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s", out ? out : "");
	if (!out)
		snprintf(path, sizeof(path), "%s/report.html", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		json_decref(root);
		return -1;
	}
	page(f, dir, root);
	json_decref(root);
	int bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
