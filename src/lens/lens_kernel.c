/* lens_kernel.c - the kernel's own reports as an oracle (always on): a
 * KASAN report, a lockdep splat, a UBSAN report, a WARNING, a BUG, a hung
 * task or an RCU stall printed on the console while a state was checked
 * (the operation, its walk, the on-disk view, the checkers' mounts) is a
 * discrepancy `kernel:KIND` carrying the report's lines. The machine tells
 * the reports apart and keeps the first (src/machine/splat.h); this lens
 * marks the log before the operation and reads it after the other
 * judges, so a report in their forks counts too. A state another judge
 * already found wrong keeps that finding, the report as its note. The
 * base kernels print no BUG or WARN text (CONFIG_BUG is off): the debug
 * kernels (scripts/build-kernel.sh --debug) do, and add KASAN, lockdep
 * and UBSAN. A report in a crash state's recovery is the crash lens's
 * machine's, not counted here yet.
 *
 * The words: the reports seen, by kind (the summary's "kernel reports"). */
#include <stdio.h>
#include <string.h>

#include "../check/check.h"
#include "../check/phase.h"
#include "../machine/splat.h"
#include "lens.h"

struct kernel_state {
	char note[LENS_NOTE_MAX]; /* a report met where another judge found the state wrong */
};

static void mark(struct virt *v)
{
	splat_mark(&v->splat);
	if (v->peer)
		splat_mark(&v->peer->splat);
}

static void kernel_before(void *state, struct virt *v, const struct op *op)
{
	(void)op;
	((struct kernel_state *)state)->note[0] = 0;
	mark(v);
}

/* The machine whose log has a report (v or its peer: two kernels), and
 * its label. */
static const struct splat_log *reported(const struct virt *v, const struct check_machine *m,
					char label[CHECK_LABEL_MAX])
{
	if (v->splat.opened) {
		check_label(m, 0, label);
		return &v->splat;
	}
	if (v->peer && v->peer->splat.opened) {
		check_label(m, 1, label);
		return &v->peer->splat;
	}
	return NULL;
}

static int kernel_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
			const struct op *op, const struct check_step *parent, struct check_step *s,
			struct lens_out *out)
{
	(void)parent;
	char label[CHECK_LABEL_MAX];
	const struct splat_log *l = reported(v, m, label);
	if (!l)
		return 0;
	words[l->kind] += l->opened;
	size_t first = strcspn(l->text, "\n");
	if (s->verdict != 0) {
		snprintf(((struct kernel_state *)state)->note, LENS_NOTE_MAX, "kernel %s: %.*s",
			 splat_kind_name(l->kind), (int)first, l->text);
		return 0;
	}
	/* The kind and where: one bug met at many states is one group. */
	splat_signature(l, out->sig, out->siglen);
	size_t n = (size_t)snprintf(out->why, out->whylen,
				    "the kernel reported %s during '%s' on %s: %.*s",
				    splat_kind_name(l->kind), op->text, label, (int)first, l->text);
	/* Its lines follow, each shown in the trace ("show kernel ..."). */
	for (const char *p = l->text; *p && n < out->whylen;) {
		size_t len = strcspn(p, "\n");
		n += (size_t)snprintf(out->why + n, out->whylen - n, "\nkernel %.*s", (int)len, p);
		p += len + (p[len] == '\n');
	}
	mark(v);
	return 1;
}

static void kernel_note(const void *state, char *out, size_t cap)
{
	snprintf(out, cap, "%s", ((const struct kernel_state *)state)->note);
}

static void kernel_report(const void *state, const uint64_t *w, FILE *f, bool json)
{
	(void)state;
	uint64_t total = 0;
	for (int k = 1; k < SPLAT_NKINDS; k++)
		total += w[k];
	if (json) {
		fprintf(f, "{\"reports\": %llu", (unsigned long long)total);
		for (int k = 1; k < SPLAT_NKINDS; k++)
			fprintf(f, ", \"%s\": %llu", splat_kind_name((enum splat_kind)k),
				(unsigned long long)w[k]);
		fputs("}", f);
		return;
	}
	if (!total)
		return;
	fprintf(f, "kernel reports: %llu (", (unsigned long long)total);
	for (int k = 1, first = 1; k < SPLAT_NKINDS; k++)
		if (w[k]) {
			fprintf(f, "%s%llu %s", first ? "" : ", ", (unsigned long long)w[k],
				splat_kind_name((enum splat_kind)k));
			first = 0;
		}
	fputs(")\n", f);
}

static const struct lens_def kernel_lens = {
    .name = "kernel",
    .help = "the kernel's own reports on the console (KASAN, lockdep, UBSAN, WARNING, BUG)",
    .order = 80,
    .phase = CHECK_PHASE_OTHER,
    .always = true,
    .words = SPLAT_NKINDS,
    .state_size = sizeof(struct kernel_state),
    .before = kernel_before,
    .after = kernel_after,
    .note = kernel_note,
    .report = kernel_report,
};
LENS_REGISTER(kernel_lens);
