/* report_lens.h - the report's sections that lenses name as their html
 * hooks (lens.h), each drawn from its lens's value in report.json's
 * "lenses". Without jansson's header, so that a lens file (which has a
 * JSON writer of its own, util/json.h) can name them. */
#ifndef THEMIS_REPORT_LENS_H
#define THEMIS_REPORT_LENS_H
#include <stdio.h>

struct json_t;

/* The rules that masked differences (report_rules.c): a table of each,
 * with its count, reason and source. */
void report_rules(FILE *f, const struct json_t *rules);
/* The coverage heat map and the outcomes seen per operation. */
void report_coverage(FILE *f, const struct json_t *coverage);
/* The io lens's chart and its data. */
void report_io(FILE *f, const struct json_t *io);
#endif
