/* coverage.h - input and output coverage of an exploration, after IOCov
 * (Metis, FAST'24): for every kind of operation, which partitions ("bins")
 * of each argument were tried, and which outcomes (success or an errno)
 * came back. Sizes and offsets fall in power-of-two bins (0, 1, 2-3,
 * 4-7, ...); paths (by their place in the pools), modes, owners, names
 * and flags each in a bin of their own. The bins the scope could produce are found by running the
 * same counting over every candidate of the scope, so a summary can say "offset 5/5". Bit sets of
 * 32-bit words: merged with OR across workers. */
#ifndef THEMIS_COVERAGE_H
#define THEMIS_COVERAGE_H

#include <stdio.h>

#include "ops.h"

#define COV_ARGS 5

struct coverage {
	uint32_t in[OP_NKINDS][COV_ARGS];
	uint32_t out[OP_NKINDS]; /* bit 0: success; see outcome names in coverage.c */
};

/* Count one operation (its agent command text) and its outcome on the
 * first filesystem: "0" for success, or an errno's name. */
void cov_add(struct coverage *c, const struct op_pools *pools, const char *op_text,
	     const char *err);
void cov_merge(struct coverage *into, const struct coverage *from);

/* Every candidate the scope holds (op_enumerate over the pools). */
void cov_scope(struct coverage *c, uint32_t mask, const struct op_pools *p);

/* Text: a line per kind tried. JSON: an object (no trailing newline). */
void cov_print(FILE *f, const struct coverage *tried, const struct coverage *scope, uint32_t mask);
void cov_json(FILE *f, const struct coverage *tried, const struct coverage *scope, uint32_t mask);

#endif
