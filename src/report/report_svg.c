/* report_svg.c - the charts of `themis report`'s page (report.h), drawn
 * as inline SVG from report.json: the coverage heat map (operations x
 * arguments, each cell shaded by the share of the argument's bins tried),
 * the state space's growth by depth (states and unique states, log
 * scale), and the io lens's sectors per call. No xmlns: an <svg> inside
 * HTML needs none, and the page then names no URL at all. */
#include <math.h>
#include <string.h>

#include "report.h"

#define HEAT_COLS_MAX 16
#define HEAT_LABEL    110 /* the operations' column */
#define HEAT_W	      78
#define HEAT_H	      22
#define HEAT_TOP      28

/* The colour of a share from 0 to 1: from near white to dark blue. */
static void shade(double share, char *out, size_t cap)
{
	static const int from[3] = {240, 245, 250}, to[3] = {8, 69, 148};
	int c[3];
	for (int i = 0; i < 3; i++)
		c[i] = (int)lround(from[i] + (to[i] - from[i]) * share);
	snprintf(out, cap, "rgb(%d,%d,%d)", c[0], c[1], c[2]);
}

/* The argument names of every operation, in the order first met. */
static int heat_columns(const json_t *coverage, const char **cols)
{
	int n = 0;
	const char *op, *arg;
	json_t *v, *a;
	json_object_foreach((json_t *)coverage, op, v)
	{
		json_object_foreach(json_object_get(v, "arguments"), arg, a)
		{
			int j = 0;
			while (j < n && strcmp(cols[j], arg))
				j++;
			if (j == n && n < HEAT_COLS_MAX)
				cols[n++] = arg;
		}
	}
	return n;
}

static void heat_cell(FILE *f, const char *op, const char *arg, const json_t *pair, double x,
		      double y)
{
	double tried = json_number_value(json_array_get(pair, 0));
	double scope = json_number_value(json_array_get(pair, 1));
	double share = scope > 0 ? tried / scope : 0;
	char fill[32];
	shade(share, fill, sizeof(fill));
	fprintf(f, "<g class=\"heat-cell\" data-op=\"");
	report_html_text(f, op);
	fprintf(f, "\" data-arg=\"");
	report_html_text(f, arg);
	fprintf(f, "\" data-tried=\"%.0f\" data-scope=\"%.0f\"><title>", tried, scope);
	report_html_text(f, op);
	fputc(' ', f);
	report_html_text(f, arg);
	fprintf(f, ": %.0f of %.0f bins tried</title>", tried, scope);
	fprintf(f,
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\" "
		"stroke=\"#fff\"/>",
		x, y, HEAT_W, HEAT_H, fill);
	fprintf(
	    f,
	    "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"%s\">%.0f/%.0f</text></g>\n",
	    x + HEAT_W / 2.0, y + 15, share > 0.55 ? "#fff" : "#222", tried, scope);
}

static void heat_legend(FILE *f, double y)
{
	fprintf(f,
		"<g class=\"legend\"><text x=\"0\" y=\"%.0f\">share of the argument's bins "
		"tried:</text>",
		y + 14);
	for (int i = 0; i <= 4; i++) {
		char fill[32];
		shade(i / 4.0, fill, sizeof(fill));
		double x = 190 + i * 60;
		fprintf(f,
			"<rect x=\"%.0f\" y=\"%.0f\" width=\"18\" height=\"18\" fill=\"%s\" "
			"stroke=\"#999\"/><text x=\"%.0f\" y=\"%.0f\">%d%%</text>",
			x, y, fill, x + 22, y + 14, i * 25);
	}
	fputs("</g>\n", f);
}

void report_svg_heatmap(FILE *f, const json_t *coverage)
{
	const char *cols[HEAT_COLS_MAX];
	int ncols = heat_columns(coverage, cols);
	int nrows = (int)json_object_size(coverage);
	if (!ncols || !nrows) {
		fputs("<p class=\"muted\">No coverage in report.json.</p>\n", f);
		return;
	}
	int w = HEAT_LABEL + ncols * HEAT_W, h = HEAT_TOP + nrows * HEAT_H + 36;
	fprintf(f, "<svg id=\"heatmap\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", w, h,
		w, h);
	for (int c = 0; c < ncols; c++) {
		fprintf(f, "<text x=\"%d\" y=\"18\" text-anchor=\"middle\">",
			HEAT_LABEL + c * HEAT_W + HEAT_W / 2);
		report_html_text(f, cols[c]);
		fputs("</text>\n", f);
	}
	int r = 0;
	const char *op;
	json_t *v;
	json_object_foreach((json_t *)coverage, op, v)
	{
		double y = HEAT_TOP + r++ * HEAT_H;
		fprintf(f, "<text x=\"0\" y=\"%.0f\">", y + 15);
		report_html_text(f, op);
		fputs("</text>\n", f);
		json_t *args = json_object_get(v, "arguments");
		for (int c = 0; c < ncols; c++) {
			json_t *pair = json_object_get(args, cols[c]);
			if (json_is_array(pair))
				heat_cell(f, op, cols[c], pair, HEAT_LABEL + c * HEAT_W, y);
		}
	}
	heat_legend(f, HEAT_TOP + nrows * HEAT_H + 10);
	fputs("</svg>\n", f);
}

/* ---- growth by depth ---- */

#define GROW_LEFT 60
#define GROW_H	  200
#define GROW_TOP  20
#define GROW_BAR  22

static double grow_y(double v, double top)
{
	return GROW_TOP + GROW_H - (top > 0 ? log10(v + 1) / top * GROW_H : 0);
}

/* Grid lines at 0 and at each power of ten, where those values are drawn. */
static void grow_axis(FILE *f, double top, int w)
{
	for (int p = -1; p <= (int)ceil(top); p++) {
		double v = p < 0 ? 0 : pow(10, p), y = grow_y(v, top);
		fprintf(f,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
			GROW_LEFT, w, y, y, GROW_LEFT - 4, y + 4, v);
	}
}

static void grow_bar(FILE *f, const char *cls, const char *fill, double x, double v, double top)
{
	double y = grow_y(v, top);
	fprintf(f,
		"<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
		"fill=\"%s\"><title>%.0f</title></rect>"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
		cls, x, y, GROW_BAR, GROW_TOP + GROW_H - y, fill, v, x + GROW_BAR / 2.0, y - 3, v);
}

void report_svg_growth(FILE *f, const json_t *by_depth)
{
	size_t n = json_array_size(by_depth), i;
	json_t *d;
	double max = 0;
	json_array_foreach((json_t *)by_depth, i, d)
	{
		max = fmax(max, report_num(d, "states"));
		max = fmax(max, report_num(d, "unique"));
	}
	if (!n) {
		fputs("<p class=\"muted\">report.json holds no states by depth (a run of an older "
		      "build).</p>\n",
		      f);
		return;
	}
	double top = fmax(1, ceil(log10(max + 1)));
	/* Wide enough for the axis label (about 300 px), however few depths. */
	int w = GROW_LEFT + (int)n * (3 * GROW_BAR) + 20, h = GROW_TOP + GROW_H + 60;
	w = w < GROW_LEFT + 340 ? GROW_LEFT + 340 : w;
	fprintf(f, "<svg id=\"growth\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", w, h,
		w, h);
	grow_axis(f, top, w);
	json_array_foreach((json_t *)by_depth, i, d)
	{
		double x = GROW_LEFT + 8 + (double)i * 3 * GROW_BAR;
		grow_bar(f, "bar-states", "#3b6ea5", x, report_num(d, "states"), top);
		grow_bar(f, "bar-unique", "#e08a2c", x + GROW_BAR, report_num(d, "unique"), top);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n",
			x + GROW_BAR, GROW_TOP + GROW_H + 16, report_num(d, "depth"));
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\">depth (operations from the root); log scale</text>"
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#3b6ea5\"/>"
		"<text x=\"%d\" y=\"%d\">states</text>"
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#e08a2c\"/>"
		"<text x=\"%d\" y=\"%d\">unique</text>\n</svg>\n",
		GROW_LEFT, h - 26, GROW_LEFT, h - 14, GROW_LEFT + 16, h - 3, GROW_LEFT + 70, h - 14,
		GROW_LEFT + 86, h - 3);
}

/* ---- the io lens ---- */

#define IO_LEFT	 110
#define IO_W	 420
#define IO_ROW	 30
#define IO_THICK 11

static void io_bar(FILE *f, const char *cls, const char *fill, double y, double v, double max)
{
	double w = max > 0 ? v / max * IO_W : 0;
	fprintf(f,
		"<rect class=\"%s\" x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\"/><text x=\"%.1f\" y=\"%.0f\">%.1f</text>\n",
		cls, IO_LEFT, y, w, IO_THICK, fill, IO_LEFT + w + 4, y + 10, v);
}

void report_svg_io(FILE *f, const json_t *io)
{
	const char *op;
	json_t *v;
	double max = 0;
	json_object_foreach((json_t *)io, op, v)
	{
		double calls = fmax(1, report_num(v, "calls"));
		max = fmax(max, report_num(v, "sectors_written") / calls);
		max = fmax(max, report_num(v, "sectors_read") / calls);
	}
	int n = (int)json_object_size(io), r = 0;
	if (!n)
		return;
	int w = IO_LEFT + IO_W + 60, h = n * IO_ROW + 30;
	fprintf(f, "<svg id=\"io\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", w, h, w,
		h);
	json_object_foreach((json_t *)io, op, v)
	{
		double calls = fmax(1, report_num(v, "calls")), y = r++ * IO_ROW + 4;
		fprintf(f, "<text x=\"0\" y=\"%.0f\">", y + 15);
		report_html_text(f, op);
		fputs("</text>\n", f);
		io_bar(f, "bar-written", "#b5443a", y, report_num(v, "sectors_written") / calls,
		       max);
		io_bar(f, "bar-read", "#4a8a5c", y + IO_THICK + 1,
		       report_num(v, "sectors_read") / calls, max);
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\">sectors per call: written (red), read (green)</text>"
		"\n</svg>\n",
		IO_LEFT, h - 6);
}
