/* minimize.h - the reproducer shrinker: a trace cut to the shortest
 * sequence of operations that shows the same discrepancy. */
#ifndef THEMIS_MINIMIZE_H
#define THEMIS_MINIMIZE_H

#include "check.h"
#include "trace.h"

/* `root` is a booted machine at the agent's command loop with one fork
 * level open at the root state. Shrinks ops[0..*nops) in place; returns the
 * number of attempts made. */
int check_minimize(struct virt *root, const struct check_machine *m, char ops[][OP_TEXT_MAX],
		   int *nops, const char *sig);

#endif
