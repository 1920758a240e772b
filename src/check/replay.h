/* replay.h - the replay engine (`themis replay`, src/cli/cmd_explore.c is
 * its command line): a trace's operations run again on a machine booted
 * as the trace says, each step checked as the search checked it (the same
 * check_state, lenses and rules), so the recorded discrepancy comes back,
 * or does not; with passes, the run is repeated and the whole machine
 * hashed after each, to show a run is the same bit for bit. */
#ifndef THEMIS_CHECK_REPLAY_H
#define THEMIS_CHECK_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct replay_opts {
	const char *save;   /* a folder for each step's synced disks (NN-FS.img), or NULL */
	int passes;	    /* replay_passes: how many runs */
	bool hash_every_op; /* a whole-machine hash after every operation too */
};

/* One run of the trace from power-on: 1 the recorded discrepancy (or
 * another) came back, 0 not, -1 an error (said on stderr). quiet: no step
 * lines; the last whole-machine hash is left in final. */
int replay_once(const struct replay_opts *o, struct trace *t, bool quiet, uint8_t final[16]);

/* The trace o->passes times from power-on, the whole machine hashed after
 * each (RAM, hart, devices, every disk); a line a pass and the distinct
 * hashes. 0 all alike, 1 they differ, -1 an error. */
int replay_passes(const struct replay_opts *o, struct trace *t);

/* The trace replayed as o says (passes or one run), with the always-on
 * lenses open (the views its signature names): replay_once's or
 * replay_passes's answer, or -2 with err when the lenses cannot open. */
int replay_run(const struct replay_opts *o, struct trace *t, char *err, size_t errlen);

#endif
