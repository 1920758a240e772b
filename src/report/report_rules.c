/* report_rules.c - the report's rules section: every rule of rules/FS.rules
 * that masked a difference in the run (the rules lens's data in
 * report.json), with how often, its reason and its source, so a reader
 * sees what the run accepted and why; the rules in force that masked
 * nothing are counted in one line. */
#include <string.h>

#include "report.h"

static void cell(FILE *f, const json_t *rule, const char *key)
{
	const char *s = json_string_value(json_object_get(rule, key));
	fputs("<td>", f);
	report_html_text(f, s ? s : "");
	fputs("</td>", f);
}

void report_rules(FILE *f, const json_t *lens)
{
	const json_t *rules = json_object_get(lens, "rules");
	if (!json_is_array(rules))
		return;
	size_t i, shown = 0;
	const json_t *r;
	fputs("<section id=\"rules\">\n<h2>Rules: documented differences the run accepted</h2>\n",
	      f);
	fputs("<p>From ", f);
	const char *dir = json_string_value(json_object_get(lens, "dir"));
	report_html_text(f, dir ? dir : "?");
	fputs(" (hash ", f);
	const char *hash = json_string_value(json_object_get(lens, "hash"));
	report_html_text(f, hash ? hash : "?");
	fputs("). Each rule that masked something, and how often.</p>\n", f);
	json_array_foreach(rules, i, r)
	{
		json_int_t n = json_integer_value(json_object_get(r, "masked"));
		if (n <= 0)
			continue;
		if (!shown++)
			fputs(
			    "<table class=\"rules\"><tr><th>rule</th><th>where</th><th>masked</th>"
			    "<th>counting</th><th>reason</th><th>source</th></tr>\n",
			    f);
		fputs("<tr>", f);
		cell(f, r, "rule");
		cell(f, r, "where");
		fprintf(f, "<td>%lld</td>", (long long)n);
		cell(f, r, "counts");
		cell(f, r, "reason");
		cell(f, r, "source");
		fputs("</tr>\n", f);
	}
	if (shown)
		fputs("</table>\n", f);
	fprintf(f, "<p>%zu rule%s in force, %zu masked nothing in this run.</p>\n",
		json_array_size(rules), json_array_size(rules) == 1 ? "" : "s",
		json_array_size(rules) - shown);
	json_int_t clamps = json_integer_value(json_object_get(lens, "time_clamps"));
	if (clamps > 0)
		fprintf(
		    f,
		    "<p class=\"time-clamps\">Time clamps: %lld states where the filesystems "
		    "differed only in times one instant explains, each at or clamped to its own "
		    "declared range (--time's rule: the summary's time rules).</p>\n",
		    (long long)clamps);
	fputs("</section>\n", f);
}
