/* minimize.h - the reproducer simplifier: a trace cut to the fewest
 * operations, each of the simplest kind and arguments, that still shows
 * the same discrepancy. */
#ifndef THEMIS_MINIMIZE_H
#define THEMIS_MINIMIZE_H

#include "check.h"
#include "trace.h"

/* `root` is a booted machine at the agent's command loop with one fork
 * level open at the root state, checked as the search checks it (its step
 * in root_step: the first operation's parent); cfg the run's (its machine,
 * its operations and pools: a simpler kind or value is one the run could
 * have tried). Simplifies ops[0..*nops) in place, and puts the detail the
 * simplified trace shows into detail (cap bytes; "" when no simpler trace
 * showed and ops are as given); returns the number of attempts made, or -1
 * out of memory (ops unchanged). */
int check_minimize(struct virt *root, const struct check_step *root_step,
		   const struct check_config *cfg, char ops[][OP_TEXT_MAX], int *nops,
		   const char *sig, char *detail, size_t cap);

#endif
