/* minimize.c - shrink a trace to a shortest sequence that still shows the
 * same discrepancy (same signature, at its last operation): greedy removal
 * of one operation at a time, repeated until nothing can go, each attempt
 * run from the root state of one booted machine (fork once, restore before
 * every attempt), so an attempt costs only its operations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minimize.h"

/* Run ops from the root; 1 if the last one (and no earlier one) shows a
 * discrepancy with signature `sig`. */
static int shows(struct virt *v, const struct check_machine *m, char ops[][OP_TEXT_MAX], int n,
		 const char *sig)
{
	struct check_step st[2];
	char why[CHECK_DETAIL_MAX], got[64];
	/* The run's lenses, counting nowhere: an attempt is not a state of
	 * the run. */
	struct check_machine plain = *m;
	plain.lens_words = NULL;
	virt_restore(v);
	for (int i = 0; i < n; i++) {
		struct op op;
		check_op_of_text(ops[i], &op);
		if (check_state(v, &plain, &op, i ? &st[(i - 1) & 1] : NULL, &st[i & 1], why,
				sizeof(why), got, sizeof(got)))
			return i == n - 1 && !strcmp(got, sig);
	}
	return 0;
}

int check_minimize(struct virt *root, const struct check_machine *m, char ops[][OP_TEXT_MAX],
		   int *nops, const char *sig)
{
	char(*trial)[OP_TEXT_MAX] = malloc(sizeof(char[TRACE_MAX_OPS][OP_TEXT_MAX]));
	int tries = 0;
	if (!trial)
		return 0;
	bool shrunk = true;
	while (shrunk && *nops > 1) {
		shrunk = false;
		for (int drop = 0; drop < *nops - 1 && *nops > 1; drop++) {
			int n = 0;
			for (int i = 0; i < *nops; i++)
				if (i != drop)
					memcpy(trial[n++], ops[i], OP_TEXT_MAX);
			tries++;
			if (shows(root, m, trial, n, sig)) {
				memcpy(ops, trial, OP_TEXT_MAX * (size_t)n);
				*nops = n;
				shrunk = true;
				drop--;
			}
		}
	}
	virt_restore(root);
	free(trial);
	return tries;
}
