/* lens_guest.c - where the guest's instructions go (always on): per
 * phase of a state's check (src/check/phase.h: the operation, the live
 * fingerprint, the on-disk view, crash states, recoveries, the checkers'
 * mounts, the rest), summed across workers, and the states they were
 * spent on. The machine counts them as it runs (virt_phase, virt.h; the
 * agent marks an `op` command's walk itself), so counting costs nothing
 * but a word per phase; this lens takes the machine's counts after each
 * state. It runs last, so a state's own lenses' work is in its count;
 * what a state that ended early left is counted with the next one.
 *
 * It also takes the machine's count of the functions it computed for the
 * guest (virt_hostfn.h: the CRCs, memset), each of which the guest counts
 * as one instruction.
 *
 * The summary line: "guest instructions: N per state (operation A, ...)";
 * report.json: {"states", "total", "per_state", "by_phase": {...},
 * "host_crc": {"calls", "bytes"}, "host_memset": {...}}. */
#include <stdio.h>

#include "../check/check.h"
#include "../check/phase.h"
#include "lens.h"

/* The words: each phase's instructions, the states, then the host
 * functions' calls and bytes by kind. */
enum {
	GUEST_STATES = CHECK_NPHASES,
	GUEST_HOST_CALLS,
	GUEST_HOST_BYTES = GUEST_HOST_CALLS + VIRT_HOST_NKINDS,
	GUEST_WORDS = GUEST_HOST_BYTES + VIRT_HOST_NKINDS
};

static int guest_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		       const struct op *op, const struct check_step *parent, struct check_step *s,
		       struct lens_out *out)
{
	(void)state, (void)m, (void)op, (void)parent, (void)s, (void)out;
	uint64_t took[VIRT_PHASES] = {0};
	virt_phase_take(v, took);
	for (int p = 0; p < CHECK_NPHASES; p++)
		words[p] += took[p];
	words[GUEST_STATES]++;
	virt_hostfn_take(v, &words[GUEST_HOST_CALLS], &words[GUEST_HOST_BYTES]);
	return 0;
}

static uint64_t total_of(const uint64_t *w)
{
	uint64_t t = 0;
	for (int p = 0; p < CHECK_NPHASES; p++)
		t += w[p];
	return t;
}

static void guest_report(const void *state, const uint64_t *w, FILE *f, bool json)
{
	(void)state;
	uint64_t total = total_of(w), n = w[GUEST_STATES];
	if (json) {
		fprintf(f,
			"{\"states\": %llu, \"total\": %llu, \"per_state\": %llu, \"by_phase\": {",
			(unsigned long long)n, (unsigned long long)total,
			(unsigned long long)(n ? total / n : 0));
		for (int p = 0; p < CHECK_NPHASES; p++)
			fprintf(f, "%s\"%s\": %llu", p ? ", " : "", check_phase_key(p),
				(unsigned long long)w[p]);
		fputs("}", f);
		for (int k = 0; k < VIRT_HOST_NKINDS; k++)
			fprintf(f, ", \"%s\": {\"calls\": %llu, \"bytes\": %llu}",
				virt_host_kind_key(k), (unsigned long long)w[GUEST_HOST_CALLS + k],
				(unsigned long long)w[GUEST_HOST_BYTES + k]);
		fputs("}", f);
		return;
	}
	if (!n)
		return;
	fprintf(f, "guest instructions: %llu per state over %llu checks (",
		(unsigned long long)(total / n), (unsigned long long)n);
	bool first = true;
	for (int p = 0; p < CHECK_NPHASES; p++)
		if (w[p]) {
			fprintf(f, "%s%s %llu", first ? "" : ", ", check_phase_key(p),
				(unsigned long long)(w[p] / n));
			first = false;
		}
	fprintf(f, ")\n");
	for (int k = 0; k < VIRT_HOST_NKINDS; k++) {
		uint64_t calls = w[GUEST_HOST_CALLS + k], bytes = w[GUEST_HOST_BYTES + k];
		if (calls)
			fprintf(f,
				"the machine computed the guest's %s: %llu a state, of %llu bytes "
				"on average, one instruction each (THEMIS_GUEST_CODE=1: the "
				"guest's own code)\n",
				virt_host_kind_words(k), (unsigned long long)(calls / n),
				(unsigned long long)(bytes / calls));
	}
}

static const struct lens_def guest_lens = {
    .name = "guest",
    .help = "guest instructions per state, by phase of the check",
    .order = 1000,
    .always = true,
    .words = GUEST_WORDS,
    .after = guest_after,
    .report = guest_report,
};
LENS_REGISTER(guest_lens);
