/* replay.c - see replay.h: a trace run again from power-on, its steps
 * checked as the search checked them, its disks saved or its machine
 * hashed on the way. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lens/lens.h"
#include "../machine/virt.h"
#include "../util/clock.h"
#include "check.h"
#include "replay.h"
#include "trace.h"

/* Where save_step puts the disks: DIR/NN-FS.img. */
struct save_to {
	const struct check_machine *m;
	const char *dir;
	int step;
};

static int save_one(struct disk *d, int i, void *ctx, char *why, size_t whylen)
{
	const struct save_to *to = ctx;
	char path[PATH_MAX + 64], err[512];
	snprintf(path, sizeof(path), "%s/%02d-%s%s.img", to->dir, to->step, to->m->fs[i],
		 to->m->kernel_b && i ? "-b" : ""); /* the second kernel's */
	if (disk_save(d, path, err, sizeof(err)) == 0)
		return 0;
	snprintf(why, whylen, "%s: %s", path, err);
	return -1;
}

/* Each disk of the machine's state after `step`, synced (in a fork: the
 * replay is not changed), to DIR/NN-FS.img. 0, or -1 said. */
static int save_step(struct virt *v, const struct check_machine *m, const char *dir, int step)
{
	char why[CHECK_DETAIL_MAX];
	struct save_to to = {m, dir, step};
	if (check_synced(v, m, save_one, &to, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "themis: --save-disks: %s\n", why);
	return -1;
}

static void hex16(const uint8_t h[16], char out[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* The whole-machine hash, of both machines under two kernels (the
 * peer's folded in: a pass differs if either machine does). */
static void machine_hash(const struct virt *v, uint8_t out[16])
{
	virt_state_hash(v, out);
	if (!v->peer)
		return;
	uint8_t b[16];
	virt_state_hash(v->peer, b);
	for (int i = 0; i < 16; i++)
		out[i] ^= (uint8_t)(b[(i + 1) % 16] + i);
}

/* One run of the trace from power-on: 1 the recorded discrepancy (or
 * another) came back, 0 not, -1 an error (said). quiet: no step lines
 * (passes); with hashes, each operation's whole-machine hash is printed,
 * and the last one left in final. */
int replay_once(const struct replay_opts *a, struct trace *t, bool quiet, uint8_t final[16])
{
	struct virt *v = calloc(1, sizeof(*v));
	char err[1024], why[CHECK_DETAIL_MAX], sig[64];
	if (!v || check_boot(v, &t->m, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", v ? err : "out of memory");
		free(v);
		return -1;
	}
	/* A trace without operations is a discrepancy at the root. */
	int rc = a->save && save_step(v, &t->m, a->save, 0) ? -1 : 0, n = t->nops ? t->nops : 1;
	/* The root checked first, as the search did: the first operation's
	 * parent (a crash may recover the root's namespace). */
	struct check_step st[2], root;
	int parted = -1, parted_at = 0; /* the refuses rule a step stopped at, and the step */
	if (rc == 0 && t->nops && check_root(v, &t->m, &root, why, sizeof(why))) {
		fprintf(stderr, "themis: %s\n", why);
		rc = -1;
	}
	for (int i = 0; i < n && rc >= 0; i++) {
		struct op op = check_root_op;
		if (t->nops)
			check_op_of_text(t->ops[i], &op);
		if (!quiet)
			printf("%3d  %s\n", i + 1, t->nops ? op.text : "(the state at the root)");
		/* A crash step crashes its point after the last operation, and
		 * nothing before it (whose points the run found fine). */
		if (t->crash[0]) {
			t->m.crash_at = i == n - 1 ? t->crash + 6 : "";
			if (!quiet && i == n - 1)
				printf("     then %s\n", t->crash);
		}
		int c = check_state(v, &t->m, &op,
				    i	      ? &st[(i - 1) & 1]
				    : t->nops ? &root
					      : NULL,
				    &st[i & 1], why, sizeof(why), sig, sizeof(sig));
		if (c) /* a discrepancy, or a guest failure: the finding of a hang */
			rc = 1;
		if (a->save && t->nops && save_step(v, &t->m, a->save, i + 1))
			rc = -1;
		if (a->hash_every_op) {
			char h[33];
			machine_hash(v, final);
			hex16(final, h);
			printf("  op %d hash %s\n", i + 1, h);
		}
		/* A guest failure is a trace's "finding", whatever report of the
		 * kernel's signed it. */
		const char *got = c < 0 ? "finding" : sig;
		if (rc > 0 && !quiet)
			printf("     %s: %s\n",
			       i + 1 == n && !strcmp(got, t->sig) ? "reproduced"
								  : "a different discrepancy",
			       why);
		if (rc > 0)
			break;
		if (st[i & 1].refused_rule >= 0 && i + 1 < n) {
			parted = st[i & 1].refused_rule, parted_at = i + 1;
			break;
		}
	}
	machine_hash(v, final);
	if (!rc && !quiet && parted >= 0)
		printf("not reproduced: step %d is a refusal %s allows; the filesystems part "
		       "there, and the operations after it are not compared (recorded: %s)\n",
		       parted_at, t->m.rules->r[parted].where, t->detail);
	else if (!rc && !quiet)
		printf("not reproduced: the filesystems agree after all %d operations (recorded: "
		       "%s)\n",
		       t->nops, t->detail);
	virt_free(v);
	free(v);
	return rc;
}

/* --passes N: the trace N times from power-on, the whole machine hashed
 * after each (RAM, hart, devices, every disk); a line a pass and the
 * distinct hashes. 0 all alike, 1 they differ, -1 an error. */
int replay_passes(const struct replay_opts *a, struct trace *t)
{
	uint8_t(*h)[16] = calloc((size_t)a->passes, 16);
	if (!h)
		return -1;
	int distinct = 0, rc = 0;
	double total = 0;
	for (int p = 0; p < a->passes && rc >= 0; p++) {
		double t0 = host_seconds();
		rc = replay_once(a, t, true, h[p]);
		double dt = host_seconds() - t0;
		total += dt;
		char hex[33];
		hex16(h[p], hex);
		bool fresh = true;
		for (int q = 0; q < p && fresh; q++)
			fresh = memcmp(h[q], h[p], 16) != 0;
		distinct += fresh;
		if (rc >= 0)
			printf("pass %d hash %s time %.3f%s\n", p + 1, hex, dt,
			       fresh && p ? " (new)" : "");
		fflush(stdout);
	}
	if (rc >= 0)
		printf("%d pass%s, %d distinct hash%s (%s clock), %.3f s a pass\n", a->passes,
		       a->passes == 1 ? "" : "es", distinct, distinct == 1 ? "" : "es",
		       t->m.clock_host ? "the host's" : "virtual", total / a->passes);
	free(h);
	return rc < 0 ? -1 : distinct > 1;
}

int replay_run(const struct replay_opts *o, struct trace *t, char *err, size_t errlen)
{
	struct lens_set ls = {0}; /* the always-on ones: the views of the trace's signature */
	if (lens_set_open(&ls, NULL, NULL, &t->m, err, errlen))
		return -2;
	t->m.lenses = &ls;
	uint8_t h[16];
	int rc = o->passes ? replay_passes(o, t) : replay_once(o, t, false, h);
	t->m.lenses = NULL;
	lens_set_close(&ls);
	return rc;
}
