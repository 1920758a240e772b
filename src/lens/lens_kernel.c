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
 * (lens_crash.c). --kernel-reports KIND,... refuses a kernel whose
 * System.map shows it cannot print those kinds (splat_printable).
 *
 * The words: the reports seen, by kind (the summary's "kernel reports"). */
#include <stdio.h>
#include <string.h>

#include "../check/check.h"
#include "../check/phase.h"
#include "../machine/kline.h"
#include "../machine/kmap.h"
#include "../machine/splat.h"
#include "lens.h"

struct kernel_state {
	char note[LENS_NOTE_MAX]; /* a report met where another judge found the state wrong */
	/* Each kernel's line tables (kline.h; NULL: frames as printed): the
	 * first machine's, the peer's under two kernels. */
	struct kline *lines[2];
	char text[2 * SPLAT_TEXT_MAX]; /* a report with its frames' source lines */
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
	if (s->verdict > 0) {
		snprintf(((struct kernel_state *)state)->note, LENS_NOTE_MAX, "kernel %s: %.*s",
			 splat_kind_name(l->kind), (int)first, l->text);
		return 0;
	}
	/* The kind and where, from the frames' source lines: one bug met at
	 * many states is one group. */
	struct kernel_state *ks = state;
	kline_annotate(ks->lines[l != &v->splat], l->text, ks->text, sizeof(ks->text));
	splat_signature(l->kind, ks->text, out->sig, out->siglen);
	if (s->verdict < 0) {
		/* The guest failed (a panic after a BUG, an oops): the report
		 * printed before it says why, and signs the finding. */
		size_t n = strcspn(out->why, "\n");
		n += (size_t)snprintf(out->why + n, out->whylen - n,
				      " (after the kernel reported %s: %.*s)",
				      splat_kind_name(l->kind), (int)first, l->text);
		if (n < out->whylen)
			splat_append_lines(ks->text, out->why, n, out->whylen);
		mark(v);
		return 0;
	}
	size_t n = (size_t)snprintf(out->why, out->whylen,
				    "the kernel reported %s during '%s' on %s: %.*s",
				    splat_kind_name(l->kind), op->text, label, (int)first, l->text);
	if (n < out->whylen) /* each shown in the trace ("show kernel ...") */
		splat_append_lines(ks->text, out->why, n, out->whylen);
	mark(v);
	return 1;
}

/* --kernel-reports KIND,...: the kinds into m->kernel_reports. */
static int set_kernel_reports(struct check_machine *m, const char *val, char *err, size_t errlen)
{
	char list[256], *save = NULL;
	snprintf(list, sizeof(list), "%s", val);
	m->kernel_reports = 0;
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		enum splat_kind k = splat_kind_by_name(w);
		if (k == SPLAT_NONE) {
			size_t n = (size_t)snprintf(err, errlen,
						    "--kernel-reports: unknown kind "
						    "'%s' (known:",
						    w);
			for (int i = SPLAT_NONE + 1; i < SPLAT_NKINDS && n < errlen; i++)
				n += (size_t)snprintf(err + n, errlen - n, " %s",
						      splat_kind_name((enum splat_kind)i));
			if (n < errlen)
				snprintf(err + n, errlen - n, ")");
			return -1;
		}
		m->kernel_reports |= 1u << k;
	}
	if (!m->kernel_reports) {
		snprintf(err, errlen, "--kernel-reports needs a comma list of kinds, got '%s'",
			 val);
		return -1;
	}
	return 0;
}

/* 0 when `kernel` can print every kind in `want`, else -1 with what it
 * lacks and how to build one that has it. */
static int check_printable(const char *kernel, unsigned want, char *err, size_t errlen)
{
	char path[4096], why[512];
	struct kmap map;
	snprintf(path, sizeof(path), "%s.map", kernel);
	if (kmap_load(&map, path, why, sizeof(why))) {
		snprintf(
		    err, errlen,
		    "--kernel-reports: cannot tell what %s can report: %s (scripts/build-kernel.sh "
		    "writes KERNEL.map beside each Image)",
		    kernel, why);
		return -1;
	}
	/* 11 kinds of at most 8 letters and their options fit. */
	char kinds[256] = "", configs[768] = "";
	size_t nk = 0, nc = 0;
	for (int k = SPLAT_NONE + 1; k < SPLAT_NKINDS; k++) {
		enum splat_kind kind = (enum splat_kind)k;
		if (!(want & (1u << k)) || splat_printable(&map, kind))
			continue;
		nk += (size_t)snprintf(kinds + nk, sizeof(kinds) - nk, "%s%s", nk ? ", " : "",
				       splat_kind_name(kind));
		nc += (size_t)snprintf(configs + nc, sizeof(configs) - nc, "%sCONFIG_%s",
				       nc ? ", " : "", splat_kind_config(kind));
	}
	kmap_free(&map);
	if (!nk)
		return 0;
	snprintf(err, errlen,
		 "%s cannot print these reports: %s (its System.map has no sign of %s); a debug "
		 "kernel can: scripts/build-kernel.sh --debug (KASAN: with --version 6.12)",
		 kernel, kinds, configs);
	return -1;
}

static int kernel_attach(void *state, const struct check_config *cfg, const struct check_machine *m,
			 char *err, size_t errlen)
{
	(void)cfg;
	struct kernel_state *ks = state;
	const char *kernels[2] = {m->kernel, m->kernel_b};
	for (int i = 0; i < 2; i++)
		if (kernels[i] && kline_open(&ks->lines[i], kernels[i]) < 0) {
			snprintf(err, errlen, "the kernel lens: out of memory");
			return -1;
		}
	if (!m->kernel_reports || !m->kernel)
		return 0;
	if (check_printable(m->kernel, m->kernel_reports, err, errlen))
		return -1;
	return m->kernel_b ? check_printable(m->kernel_b, m->kernel_reports, err, errlen) : 0;
}

static const struct lens_opt kernel_opts[] = {
    {"--kernel-reports", "KINDS",
     "refuse a kernel that cannot print these reports\n"
     "(kasan, lockdep, ubsan, kfence, atomic, list,\n"
     "warning, ...: from its System.map), with what it lacks",
     set_kernel_reports},
    {NULL, NULL, NULL, NULL},
};

static void kernel_detach(void *state)
{
	struct kernel_state *ks = state;
	for (int i = 0; i < 2; i++)
		kline_close(ks->lines[i]);
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
    .attach = kernel_attach,
    .before = kernel_before,
    .after = kernel_after,
    .note = kernel_note,
    .report = kernel_report,
    .detach = kernel_detach,
    .opts = kernel_opts,
};
LENS_REGISTER(kernel_lens);
