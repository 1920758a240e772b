/* lens_fsck.c - fsck as a judge (explore --fsck): at every explored state
 * the filesystems agree on, the disks are remounted read-only in a fork
 * (check_quiesce: what the kernel held lands on them, journals and logs
 * emptied and marked clean, as a clean unmount leaves them) and each
 * filesystem's own checker judges its disk, read-only (corrupt_fsck.h).
 * A checker that finds errors is a discrepancy, fsck:errors, naming its
 * first line of trouble. Verdicts are memoized by the disk's content
 * (crash_fsck.h: the hash of the chunks the run wrote), so a state whose
 * disk holds bytes an earlier state's did costs the remount and the hash,
 * not a checker run. Always registered, it acts only when the machine
 * asks (check_machine.fsck), so replay judges as the run did. A format
 * with no checker installed is counted, not judged. */
#include <stdio.h>
#include <string.h>

#include "../check/check.h"
#include "crash_fsck.h"
#include "../machine/virt.h"
#include "../check/phase.h"
#include "lens.h"

#define FSCK_TIMEOUT 60.0 /* seconds a checker may take */

/* The lens's counters, once: X(NAME, json key). */
#define FSCK_WORDS(X)                                                                              \
	X(STATES, "states")                                                                        \
	X(RUNS, "runs")                                                                            \
	X(HITS, "memo_hits")                                                                       \
	X(MASKED_HITS, "memo_masked_hits")                                                         \
	X(CHECKED, "memo_checked")                                                                 \
	X(MISMATCHES, "memo_mismatches")                                                           \
	X(NO_CHECKER, "disks_without_checker")

enum {
#define FSCK_WORD_ENUM(name, json) FW_##name,
	FSCK_WORDS(FSCK_WORD_ENUM)
#undef FSCK_WORD_ENUM
	    FW_WORDS
};

struct fsck_state {
	bool on;
	struct crash_fsck memo;
};

static int fsck_attach(void *state, const struct check_config *cfg, const struct check_machine *m,
		       char *err, size_t errlen)
{
	(void)cfg, (void)err, (void)errlen;
	struct fsck_state *f = state;
	f->on = m->fsck;
	f->memo.timeout = FSCK_TIMEOUT;
	f->memo.memo = m->fsck_memo;
	return 0;
}

static void fsck_detach(void *state)
{
	crash_fsck_free(&((struct fsck_state *)state)->memo);
}

/* Every disk's verdict, in the fork after the remount (their checkers
 * side by side): 1 at the first that finds errors (said in out), 0 if
 * none. */
static int judge_disks(struct fsck_state *f, uint64_t *words, struct virt *v,
		       const struct check_machine *m, unsigned unmounted, struct lens_out *out)
{
	struct crash_fsck_ask a[CRASH_FSCK_MAX_DISKS];
	int n = m->nfs < CRASH_FSCK_MAX_DISKS ? m->nfs : CRASH_FSCK_MAX_DISKS;
	for (int i = 0; i < n; i++)
		a[i] = (struct crash_fsck_ask){
		    .d = &v->disks[i], .i = i, .fs = m->fs[i], .clean = true};
	struct crash_fsck_counts was = f->memo.n;
	crash_fsck_disks(&f->memo, a, n);
	words[FW_RUNS] += f->memo.n.runs - was.runs;
	words[FW_HITS] += f->memo.n.hits - was.hits;
	words[FW_MASKED_HITS] += f->memo.n.masked_hits - was.masked_hits;
	words[FW_CHECKED] += f->memo.n.checked - was.checked;
	words[FW_MISMATCHES] += f->memo.n.mismatches - was.mismatches;
	for (int i = 0; i < n; i++) {
		enum corrupt_fsck_verdict r = a[i].verdict;
		if (r == CORRUPT_FSCK_NONE || r == CORRUPT_FSCK_MISSING)
			words[FW_NO_CHECKER]++;
		if (r != CORRUPT_FSCK_ERRORS && r != CORRUPT_FSCK_CRASHED &&
		    r != CORRUPT_FSCK_TIMEOUT)
			continue;
		snprintf(out->sig, out->siglen, "fsck:%s", corrupt_fsck_name(r));
		snprintf(out->why, out->whylen,
			 "%s's checker (%s) judges its disk after %s: %s: %s", m->fs[i],
			 corrupt_fsck_command(m->fs[i]), check_quiesced_how(unmounted, i),
			 corrupt_fsck_name(r), a[i].said);
		return 1;
	}
	return 0;
}

static int fsck_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		      const struct op *op, const struct check_step *parent, struct check_step *s,
		      struct lens_out *out)
{
	(void)op, (void)parent;
	struct fsck_state *f = state;
	if (!f->on || s->verdict != 0)
		return 0;
	if (virt_fork(v)) {
		snprintf(out->why, out->whylen, "cannot fork the machine for the checkers");
		return -1;
	}
	unsigned unmounted;
	int rc = check_quiesce(v, m, (1u << m->nfs) - 1, &unmounted, out->why, out->whylen);
	if (rc == 0) {
		words[FW_STATES]++;
		rc = judge_disks(f, words, v, m, unmounted, out);
	}
	virt_release(v);
	return rc;
}

static void fsck_report(const void *state, const uint64_t *w, FILE *f, bool json)
{
	(void)state;
	static const char *const keys[] = {
#define FSCK_WORD_KEY(name, json) json,
	    FSCK_WORDS(FSCK_WORD_KEY)
#undef FSCK_WORD_KEY
	};
	if (json) {
		for (int k = 0; k < FW_WORDS; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "{", keys[k],
				(unsigned long long)w[k]);
		fputs("}", f);
		return;
	}
	if (!w[FW_STATES])
		return;
	fprintf(f,
		"fsck: %llu states' disks judged after a read-only remount: the checkers ran %llu "
		"times, %llu answered by the memo (%llu of them only with times, checksums and "
		"logs masked); %llu disks with no checker\n",
		(unsigned long long)w[FW_STATES], (unsigned long long)w[FW_RUNS],
		(unsigned long long)w[FW_HITS], (unsigned long long)w[FW_MASKED_HITS],
		(unsigned long long)w[FW_NO_CHECKER]);
	if (w[FW_CHECKED])
		fprintf(f,
			"fsck memo check: the checkers ran again on %llu of those; %llu verdicts "
			"differed from the memo's\n",
			(unsigned long long)w[FW_CHECKED], (unsigned long long)w[FW_MISMATCHES]);
}

static int set_fsck(struct check_machine *m, const char *val, char *err, size_t errlen)
{
	(void)val, (void)err, (void)errlen;
	m->fsck = true;
	return 0;
}

static int set_fsck_memo(struct check_machine *m, const char *val, char *err, size_t errlen)
{
	int memo = crash_fsck_memo_parse(val);
	if (memo < 0) {
		snprintf(err, errlen, "--fsck-memo needs on, exact, off or check, got '%s'", val);
		return -1;
	}
	m->fsck_memo = (enum crash_fsck_memo)memo;
	return 0;
}

static const struct lens_opt fsck_opts[] = {
    {"--fsck", NULL,
     "the filesystems' own checkers judge every state's disks\n"
     "remounted read-only (as a clean unmount leaves them), in\n"
     "a fork (memoized by content)",
     set_fsck},
    {"--fsck-memo", "M",
     "the checkers' memo (--fsck, and --crash's checkers): on\n"
     "(default): a disk that differs from one a checker judged\n"
     "only in times, generations, checksums, log positions,\n"
     "free space and regular files' bytes is answered by that\n"
     "verdict; exact: only the same bytes; off: the checker\n"
     "every time; check: on, and the checker run anyway where\n"
     "the bytes differ, counting verdicts that differ\n"
     "(docs/fsck.md)",
     set_fsck_memo},
    {NULL, NULL, NULL, NULL},
};

static bool fsck_wanted(const struct check_machine *m)
{
	return m->fsck;
}

static void fsck_trace_write(const struct check_machine *m, FILE *f)
{
	if (m->fsck)
		fprintf(f, "fsck 1\n");
}

static int fsck_trace_parse(struct check_machine *m, const char *line, char *why, size_t whylen)
{
	unsigned long long u;
	int rc = lens_trace_number(line, "fsck", 1, 1, &u, why, whylen);
	if (rc == 1)
		m->fsck = true;
	return rc;
}

static void fsck_off(struct check_machine *m)
{
	m->fsck = false;
}

static const struct lens_def fsck_lens = {
    .name = "fsck",
    .help = "the filesystems' own checkers on every state's disks (explore --fsck)",
    .order = 70,
    .phase = CHECK_PHASE_FSCK,
    .always = true,
    .words = FW_WORDS,
    .state_size = sizeof(struct fsck_state),
    .attach = fsck_attach,
    .detach = fsck_detach,
    .after = fsck_after,
    .report = fsck_report,
    .opts = fsck_opts,
    .wanted = fsck_wanted,
    .one_machine = true,
    .waits_on_host = true,
    .trace_write = fsck_trace_write,
    .trace_parse = fsck_trace_parse,
    .off = fsck_off,
};
LENS_REGISTER(fsck_lens);
