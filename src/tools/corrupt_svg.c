/* corrupt_svg.c - the blast-radius spectrum as a picture (corrupt.h): a
 * bar per filesystem and structure, cut into the outcomes' shares, in
 * the plain hand-written SVG of the profile's pictures (profile_svg.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corrupt.h"

/* One colour per outcome, in CORRUPT_OUTCOMES' order: the failures dark,
 * the detected greens and blues, the silent red, no effect grey. */
static const char *const outcome_colour[CORRUPT_NOUTCOMES] = {
    "#000000", "#4e79a7", "#59a14f", "#b07aa1", "#e15759", "#edc948", "#d9d9d9"};

struct row {
	const char *fs, *structure;
	int count[CORRUPT_NOUTCOMES], n;
};

int corrupt_svg(const struct corrupt_result *r, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return snprintf(err, errlen, "--svg %s: cannot create: %s", dir, strerror(errno)),
		       -1;
	struct row *rows = calloc((size_t)(r->n ? r->n : 1), sizeof(*rows));
	if (!rows)
		return snprintf(err, errlen, "out of memory"), -1;
	int nrows = 0;
	for (int k = 0; k < r->n; k++) {
		const struct corrupt_flip *f = &r->f[k];
		int i = 0;
		while (i < nrows &&
		       (strcmp(rows[i].fs, f->fs) || strcmp(rows[i].structure, f->structure)))
			i++;
		if (i == nrows)
			rows[nrows++] = (struct row){f->fs, f->structure, {0}, 0};
		rows[i].count[f->outcome]++;
		rows[i].n++;
	}
	const int L = 230, W = 980, T = 40, row = 18, bar = 600;
	int H = T + row * nrows + 70;
	char path[1100];
	snprintf(path, sizeof(path), "%s/corrupt-spectrum.svg", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		free(rows);
		return snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno)), -1;
	}
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"10\" y=\"18\">one bit flipped per row's structure: the share of each "
		"outcome (%d flips)</text>\n",
		W, H, r->n);
	for (int i = 0; i < nrows; i++) {
		int y = T + i * row;
		bool first = !i || strcmp(rows[i - 1].fs, rows[i].fs);
		fprintf(f,
			"<text x=\"10\" y=\"%d\"%s>%s</text><text x=\"70\" y=\"%d\">%.24s</text>\n",
			y + 12, first ? " font-weight=\"bold\"" : "", first ? rows[i].fs : "",
			y + 12, rows[i].structure);
		double x = L;
		for (int o = 0; o < CORRUPT_NOUTCOMES; o++) {
			if (!rows[i].count[o])
				continue;
			double w = (double)bar * rows[i].count[o] / rows[i].n;
			fprintf(
			    f,
			    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
			    "stroke=\"white\"><title>%s %s: %d of %d</title></rect>\n",
			    x, y + 2, w, row - 4, outcome_colour[o], rows[i].structure,
			    corrupt_outcome_name((enum corrupt_outcome)o), rows[i].count[o],
			    rows[i].n);
			x += w;
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\">%d</text>\n", L + bar + 8, y + 12, rows[i].n);
	}
	int y = T + row * nrows + 20;
	for (int o = 0; o < CORRUPT_NOUTCOMES; o++)
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\" "
			"stroke=\"#999\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
			10 + (o % 4) * 160, y + (o / 4) * 16, outcome_colour[o], 24 + (o % 4) * 160,
			y + 9 + (o / 4) * 16, corrupt_outcome_name((enum corrupt_outcome)o));
	free(rows);
	bool bad = fprintf(f, "</svg>\n") < 0;
	if (fclose(f) != 0 || bad)
		return snprintf(err, errlen, "%s: write failed", path), -1;
	return 0;
}
