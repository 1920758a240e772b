/* profile_svg.c - the profile's pictures (profile.h): the write
 * amplification curve, and each filesystem's disk as a strip of its
 * structures with every operation's writes overlaid (the paper's Figure 4).
 * Plain SVG 1.1, written by hand: a few rectangles, lines and texts. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "profile.h"

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* A structure's colour: the same name, the same colour, in every picture. */
static const char *colour_of(const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return palette[h % NPALETTE];
}

static FILE *open_svg(const char *dir, const char *name, int w, int h, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f)
		fprintf(f,
			"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			"font-family=\"sans-serif\" font-size=\"11\">\n"
			"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
			w, h);
	return f;
}

static int close_svg(FILE *f, const char *path, char *err, size_t errlen)
{
	fprintf(f, "</svg>\n");
	if (fclose(f) != 0)
		return snprintf(err, errlen, "%s: write failed", path), -1;
	return 0;
}

/* x: log2 of the bytes (0..20), y: log2 of the amplification. */
static int amplification_svg(const struct profile_result *r, const char *dir, char *err,
			     size_t errlen)
{
	const int W = 720, H = 420, L = 60, B = 50, T = 30, R = 140;
	double ymax = 1;
	for (int k = 0; k < r->n; k++)
		if (r->e[k].bytes && r->e[k].written.sectors) {
			double a = log2((double)r->e[k].written.sectors * 512 / r->e[k].bytes);
			ymax = a > ymax ? a : ymax;
		}
	ymax = ceil(ymax);
	char path[1100];
	FILE *f = open_svg(dir, "amplification.svg", W, H, path, sizeof(path));
	if (!f)
		return snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno)), -1;
	double pw = W - L - R, ph = H - T - B;
	fprintf(f,
		"<text x=\"%d\" y=\"18\">write amplification: sectors written x 512 / bytes "
		"asked (log2), after syncfs</text>\n",
		L);
	for (int x = 0; x <= 20; x += 2)
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">2^%d</text>\n",
			L + pw * x / 20, T, L + pw * x / 20, H - B, L + pw * x / 20, H - B + 15, x);
	for (int y = 0; y <= (int)ymax; y++)
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%gx</text>\n",
			L, H - B - ph * y / ymax, W - R, H - B - ph * y / ymax, L - 4,
			H - B - ph * y / ymax + 4, pow(2, y));
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">bytes written</text>\n",
		L + pw / 2, H - 10);
	for (int i = 0; i < r->nfs; i++) {
		const char *c = palette[i % NPALETTE];
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
		for (int k = i; k < r->n; k += r->nfs) {
			const struct profile_entry *e = &r->e[k];
			if (!e->bytes || !e->written.sectors)
				continue;
			double x = log2((double)e->bytes),
			       a = log2((double)e->written.sectors * 512 / e->bytes);
			fprintf(f, "%.1f,%.1f ", L + pw * x / 20,
				H - B - ph * (a < 0 ? 0 : a) / ymax);
		}
		fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - R + 10,
			T + 16 * (i + 1), c, r->fs[i]);
	}
	return close_svg(f, path, err, errlen);
}

/* The disk as a strip (linear in sectors), a row per operation beneath. */
static int layout_svg(const struct profile_result *r, int i, const char *dir, char *err,
		      size_t errlen)
{
	const struct layout *map = &r->map[i];
	int nops = 0;
	for (int k = i; k < r->n; k += r->nfs)
		nops++;
	const int L = 220, W = 1200, strip = 40, row = 12;
	int H = 90 + strip + row * nops + 20 * 8;
	char name[64], path[1100];
	snprintf(name, sizeof(name), "layout-%s.svg", r->fs[i]);
	FILE *f = open_svg(dir, name, W, H, path, sizeof(path));
	if (!f)
		return snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno)), -1;
	uint64_t total = map->sectors ? map->sectors : 1;
	double pw = W - L - 20;
	fprintf(f,
		"<text x=\"10\" y=\"18\">%s: the disk (%llu sectors, left to right), its "
		"structures, and the sectors each operation wrote (with syncfs)</text>\n",
		r->fs[i], (unsigned long long)total);
	const char *seen[64];
	int nseen = 0;
	for (size_t k = 0; k < map->n; k++) {
		const struct layout_range *g = &map->r[k];
		double x = L + pw * (double)g->lba / (double)total,
		       w = pw * (double)g->count / (double)total;
		fprintf(f,
			"<rect x=\"%.2f\" y=\"40\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
			"<title>%s %llu+%llu</title></rect>\n",
			x, w < 0.5 ? 0.5 : w, strip, colour_of(g->structure), g->structure,
			(unsigned long long)g->lba, (unsigned long long)g->count);
		bool known = false;
		for (int s = 0; s < nseen; s++)
			known |= !strcmp(seen[s], g->structure);
		if (!known && nseen < 64)
			seen[nseen++] = g->structure;
	}
	fprintf(f, "<text x=\"10\" y=\"%d\">structures</text>\n", 40 + strip / 2 + 4);
	int y = 50 + strip;
	for (int k = i; k < r->n; k += r->nfs, y += row) {
		const struct profile_entry *e = &r->e[k];
		fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"9\">%.40s</text>\n", y + 9, e->op);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>\n", L,
			y + 6, W - 20, y + 6);
		for (int q = 0; q < e->written.nruns; q++) {
			const struct profile_run *w = &e->written.runs[q];
			double x = L + pw * (double)w->lba / (double)total,
			       wd = pw * (double)w->count / (double)total;
			fprintf(f,
				"<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				"fill=\"%s\" stroke=\"black\" stroke-width=\"0.3\"><title>%s "
				"%llu+%llu</title></rect>\n",
				x, y + 1, wd < 1.5 ? 1.5 : wd, row - 2, colour_of(w->structure),
				w->structure, (unsigned long long)w->lba,
				(unsigned long long)w->count);
		}
	}
	y += 20;
	for (int s = 0; s < nseen; s++)
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>\n",
			10 + (s % 6) * 190, y + (s / 6) * 16, colour_of(seen[s]),
			24 + (s % 6) * 190, y + 9 + (s / 6) * 16, seen[s]);
	return close_svg(f, path, err, errlen);
}

int profile_svg(const struct profile_result *r, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return snprintf(err, errlen, "--svg %s: cannot create: %s", dir, strerror(errno)),
		       -1;
	if (amplification_svg(r, dir, err, errlen))
		return -1;
	for (int i = 0; i < r->nfs; i++)
		if (layout_svg(r, i, dir, err, errlen))
			return -1;
	return 0;
}
