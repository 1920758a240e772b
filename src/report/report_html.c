/* report_html.c - the frame of `themis report`'s page (report.h): its
 * head with the inline style sheet, its end with the one inline script,
 * and the escaping every text from the run goes through. Also the small
 * readers the sections share (a file, a JSON member). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:72em;color:#222;padding:0 1em}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #ddd;padding:.2em .6em;text-align:left;vertical-align:top}"
    "th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "pre{background:#f7f7f7;border:1px solid #e4e4e4;padding:.5em;overflow-x:auto;"
    "font-size:.85em;line-height:1.3}"
    "details{margin:.3em 0}summary{cursor:pointer;color:#245}"
    ".group{border:1px solid #ccd;border-radius:4px;padding:0 1em .6em;margin:1em 0}"
    ".sig{font-family:monospace;background:#fde8e8;padding:0 .3em}"
    ".ok{color:#175}.bad{color:#a11}.muted{color:#777}"
    "svg text{font-family:sans-serif;font-size:11px}"
    "img.picture{max-width:100%;border:1px solid #eee}";

/* After load, each drawn picture's size goes into data- attributes (an
 * <svg>'s bounding box, an <img>'s natural size), and each group's top in
 * pixels from the page's: what a headless browser dumping the DOM shows of
 * what was drawn, and where. */
static const char script[] =
    "window.addEventListener('load',function(){"
    "document.querySelectorAll('svg').forEach(function(s){var b=s.getBBox();"
    "s.setAttribute('data-drawn-width',Math.round(b.width));"
    "s.setAttribute('data-drawn-height',Math.round(b.height));});"
    "document.querySelectorAll('img').forEach(function(i){"
    "i.setAttribute('data-drawn-width',i.naturalWidth);"
    "i.setAttribute('data-drawn-height',i.naturalHeight);});"
    "document.querySelectorAll('section.group').forEach(function(g){"
    "g.setAttribute('data-top',Math.round(g.getBoundingClientRect().top+window.scrollY));});"
    "document.body.setAttribute('data-loaded','1');});";

void report_html_text(FILE *f, const char *s)
{
	report_html_bytes(f, s, strlen(s));
}

/* The length of the well-formed UTF-8 sequence at s (at most n bytes
 * available), 0 if there is none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4   ? 4
		     : s[0] >= 0xe0		    ? 3
		     : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
						    : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

void report_html_bytes(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = c >= 0x80 ? utf8_len(p + i, n - i) : 1;
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&#39;", f);
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || !len)
			fputs("\xef\xbf\xbd", f); /* U+FFFD */
		else
			fwrite(p + i, 1, len, f);
		i += len ? len : 1;
	}
}

void report_html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	report_html_text(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	report_html_text(f, title);
	fputs("</h1>\n", f);
}

void report_html_end(FILE *f)
{
	fprintf(f, "<script>%s</script>\n</body>\n</html>\n", script);
}

void report_html_details(FILE *f, const char *summary, const char *text, size_t n)
{
	fputs("<details><summary>", f);
	report_html_text(f, summary);
	fputs("</summary><pre>", f);
	report_html_bytes(f, text, n);
	fputs("</pre></details>\n", f);
}

char *report_read_file(const char *path, size_t max, size_t *len, int *cut)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(max + 1);
	size_t n = buf ? fread(buf, 1, max, f) : 0;
	int more = buf && n == max && fgetc(f) != EOF;
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	if (cut)
		*cut = more;
	return buf;
}

void report_html_data_url(FILE *f, const char *mime, const unsigned char *p, size_t n)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	fprintf(f, "data:%s;base64,", mime);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		char out[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63],
			       i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '='};
		fwrite(out, 1, 4, f);
	}
}

double report_num(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_number(v) ? json_number_value(v) : 0;
}

const char *report_str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}
