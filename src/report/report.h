/* report.h - `themis report DIR`: one self-contained HTML page from what
 * `themis explore --out DIR` left there (report.json, the traces, the
 * reproducers in DIR/group-NNNN/, SVG pictures), read back with jansson.
 *
 * The page needs nothing but itself: CSS and charts inline (SVG drawn
 * here), pictures found in DIR as data: URLs, one small inline script
 * that notes each drawn chart's size (for the tests' headless browser).
 * Everything that comes from the run (paths, details, trace text, the
 * reproducers) is HTML-escaped: a trace is untrusted input.
 *
 *   report.c         load report.json, write the page: summary, sections
 *   report_html.c    the page's frame and escaping (report_html_*)
 *   report_svg.c     the charts: coverage heat map, growth by depth, io
 *   report_groups.c  the groups (or each result as a group of one), their
 *                    simplest trace, its diff, the reproducer */
#ifndef THEMIS_REPORT_H
#define THEMIS_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "report_lens.h"

/* Write the page for the run in `dir` to `out` (NULL: DIR/report.html).
 * 0, or -1 with a one-line message in err naming the file and what is
 * wrong (no DIR, no or malformed report.json, an unwritable out). */
int report_write(const char *dir, const char *out, char *err, size_t errlen);

/* ---- shared by the report's files ---- */

/* s HTML-escaped (& < > " '), the whole string. */
void report_html_text(FILE *f, const char *s);
/* The first n bytes of s, escaped; bytes that are not printable ASCII or
 * UTF-8 text (controls but \n and \t) shown as U+FFFD. */
void report_html_bytes(FILE *f, const char *s, size_t n);
/* The page's head (title escaped) and its end (with the script). */
void report_html_begin(FILE *f, const char *title);
void report_html_end(FILE *f);
/* <details><summary>SUMMARY</summary><pre>TEXT</pre></details>, escaped. */
void report_html_details(FILE *f, const char *summary, const char *text, size_t n);
/* A file's contents into a new buffer (at most max bytes: longer is cut,
 * *cut set), NUL-terminated; NULL if it cannot be read. */
char *report_read_file(const char *path, size_t max, size_t *len, int *cut);
/* n bytes as a data: URL of the MIME type (base64): a picture inline. */
void report_html_data_url(FILE *f, const char *mime, const unsigned char *p, size_t n);
/* A number of the object, 0 when absent or not a number. */
double report_num(const json_t *obj, const char *key);
/* A string of the object, "" when absent or not a string. */
const char *report_str(const json_t *obj, const char *key);

/* The charts, each an inline <svg> (nothing drawn when the data is absent). */
void report_svg_heatmap(FILE *f, const json_t *coverage);
void report_svg_growth(FILE *f, const json_t *by_depth);
void report_svg_io(FILE *f, const json_t *io);

/* The groups section: report.json's "groups", or each "results" entry as
 * a group of one. */
void report_groups(FILE *f, const char *dir, const json_t *root);
/* The lenses' sections (their lens_def html hooks): report_lens.h. */

#endif
