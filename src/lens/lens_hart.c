/* lens_hart.c - what the machine does for the guest beside retiring its
 * instructions (always on): the hart's runs (the board's slices, each a
 * cpu_run), the soft TLB's misses by access kind, the
 * dispatcher's visits (each a return from translated code to the run
 * loop), the blocks compiled and the pages decoded, and the pages RAM
 * copied on a write (the first write to a page after a fork, or to one
 * never written). These are what an exploration adds to the guest's own
 * work: every fork makes each page's next write a copy, every restore
 * puts back pages the TLB had cached (virt_fork.c). Per state, summed
 * across workers, taken after each state like the guest lens's counts
 * (the boot's are no state's). The machine counts them as it runs
 * (VIRT_EVENTS, virt.h) and never reads them.
 *
 * The summary line: "the machine, a state: N read TLB misses, ...";
 * report.json: {"states", "per_state": {KEY: N, ...}, "total": {...}}. */
#include <stdio.h>

#include "../machine/virt.h"
#include "lens.h"

enum { HART_STATES = VIRT_NEVENTS, HART_WORDS };

static const char *const event_key[] = {
#define EVENT_KEY(name, key, words) key,
    VIRT_EVENTS(EVENT_KEY)
#undef EVENT_KEY
};

static const char *const event_words[] = {
#define EVENT_WORDS(name, key, words) words,
    VIRT_EVENTS(EVENT_WORDS)
#undef EVENT_WORDS
};

static int hart_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		      const struct op *op, const struct check_step *parent, struct check_step *s,
		      struct lens_out *out)
{
	(void)state, (void)m, (void)op, (void)parent, (void)s, (void)out;
	virt_events_take(v, words);
	words[HART_STATES]++;
	return 0;
}

static void json_events(FILE *f, const char *name, const uint64_t *w, uint64_t divisor)
{
	fprintf(f, ", \"%s\": {", name);
	for (int e = 0; e < VIRT_NEVENTS; e++)
		fprintf(f, "%s\"%s\": %llu", e ? ", " : "", event_key[e],
			(unsigned long long)(w[e] / divisor));
	fputs("}", f);
}

static void hart_report(const void *state, const uint64_t *w, FILE *f, bool json)
{
	(void)state;
	uint64_t n = w[HART_STATES];
	if (json) {
		fprintf(f, "{\"states\": %llu", (unsigned long long)n);
		json_events(f, "per_state", w, n ? n : 1);
		json_events(f, "total", w, 1);
		fputs("}", f);
		return;
	}
	if (!n)
		return;
	fputs("the machine, a state:", f);
	for (int e = 0; e < VIRT_NEVENTS; e++)
		fprintf(f, "%s %llu %s", e ? "," : "", (unsigned long long)(w[e] / n),
			event_words[e]);
	fputs("\n", f);
}

static const struct lens_def hart_lens = {
    .name = "hart",
    .help = "the machine's runs, TLB misses, dispatches, compiled blocks and page copies per state",
    .order = 1001, /* after the guest lens: a state's own lenses' work is in its count */
    .always = true,
    .words = HART_WORDS,
    .after = hart_after,
    .report = hart_report,
};
LENS_REGISTER(hart_lens);
