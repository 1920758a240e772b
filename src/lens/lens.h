/* lens.h - the lens interface: what owning the machine buys, observed at the
 * one place every operation of the checker passes (check_state in
 * src/check/step.c, for explore, replay and the minimizer alike).
 *
 * A lens observes one operation from below and adds its own data to the
 * state, the report and the trace. It may:
 *   - attach to a run (its private state, allocated by the set);
 *   - look before an operation and after it, with the machine, the typed
 *     operation and what every filesystem answered; after() may find a
 *     discrepancy (the on-disk view does); when the check ends in a
 *     discrepancy, note() adds the lens's view of the operation to its
 *     detail (built only then: most operations end in none);
 *   - count into words of its own, which the share (shared memory or
 *     Redis) merges across workers word by word, each word by its kind:
 *     's' summed, 'm' kept as a maximum, 'o' OR-ed (32-bit sets);
 *   - report its words as text and as a JSON value;
 *   - own what it adds to a run: its explore options (parsed and listed
 *     in explore's help from its table), its lines of a trace's header,
 *     its section of the HTML report, and how a machine that only looks
 *     turns it off. Nothing outside the lens names them.
 *
 * Each lens is one file (src/lens/lens_NAME.c) that registers itself with
 * LENS_REGISTER in a linker section: adding one edits no other lens, no
 * share backend and no list elsewhere. A lens never reaches into a
 * device's struct; it uses the disk's and the machine's public calls.
 *
 * Order: lenses run by their `order` (then name), so a lens that must see
 * the operation's own I/O (io) runs before one that syncs (disk). */
#ifndef THEMIS_LENS_H
#define THEMIS_LENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct virt;
struct op;
struct check_config;
struct check_machine;
struct check_step;
struct json_t; /* jansson's */

#define LENS_MAX       16
#define LENS_WORDS_MAX 512 /* words of every lens of a run together */
#define LENS_NOTE_MAX  256

/* Where after() says what discrepancy it found: the check's buffers. */
struct lens_out {
	char *why, *sig; /* a discrepancy's description and signature */
	size_t whylen, siglen;
};

/* An option a lens owns: explore offers it (its help lists it under the
 * lens) and set() writes what it means into the run's machine, where
 * replay and the minimizer find it too. arg NULL: a flag (val is NULL).
 * 0, or -1 with err. */
struct lens_opt {
	const char *name, *arg, *help; /* "--crash-states", "K", the help's lines */
	int (*set)(struct check_machine *m, const char *val, char *err, size_t errlen);
};

struct lens_def {
	const char *name, *help;
	int order;	   /* lower runs first */
	bool always;	   /* on in every run (the checker's own views) */
	int phase;	   /* what its guest work counts as (src/check/phase.h) */
	unsigned words;	   /* counters merged across workers */
	size_t state_size; /* private per-process state the set allocates */
	/* The merge kind of each word: out[0..words) gets 's', 'm' or 'o'.
	 * NULL: every word is summed. */
	void (*kinds)(char *out);
	/* 0, or -1 with a reason (the lens cannot serve this run). cfg is
	 * NULL outside explore (replay, minimize, profile). */
	int (*attach)(void *state, const struct check_config *cfg, const struct check_machine *m,
		      char *err, size_t errlen);
	void (*before)(void *state, struct virt *v, const struct op *op);
	/* 0; 1 a discrepancy (in out->why and out->sig); -1 the guest failed
	 * (out->why says what). parent: the step that led to the state the
	 * operation ran in, or NULL. */
	int (*after)(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		     const struct op *op, const struct check_step *parent, struct check_step *s,
		     struct lens_out *out);
	/* The words, merged over the run: text lines, or one JSON value. */
	/* A line on the last operation for a discrepancy's detail ("" for
	 * none), called only when the check ended in one. */
	void (*note)(const void *state, char *out, size_t cap);
	void (*report)(const void *state, const uint64_t *words, FILE *f, bool json);
	void (*detach)(void *state);

	/* What the lens adds to a run through explore's options, ended by a
	 * NULL name (NULL: none), and whether a machine's settings ask for
	 * its work (an option of it was given). */
	const struct lens_opt *opts;
	bool (*wanted)(const struct check_machine *m);
	/* It reads the disks of one machine: explore refuses it (wanted, or
	 * an optional lens named by --lens) with two kernels. */
	bool one_machine;
	/* Its work waits for host processes (the checkers), leaving a core
	 * idle: explore adds a worker when it is wanted and --jobs is not
	 * given. */
	bool waits_on_host;
	/* Its lines of a trace's header: write the machine's settings it
	 * owns; parse one line, 1 taken, 0 not its own, -1 malformed (why
	 * says how). NULL: none. */
	void (*trace_write)(const struct check_machine *m, FILE *f);
	int (*trace_parse)(struct check_machine *m, const char *line, char *why, size_t whylen);
	/* Turn its work off in m, for a machine that only looks (lastop.c:
	 * the last operation's I/O, no judging). NULL: it has none to. */
	void (*off)(struct check_machine *m);
	/* Its section of the HTML report, from its value in report.json's
	 * "lenses" (src/report/: the page's helpers are there). NULL: its
	 * JSON in a <details>, when it counted anything. */
	void (*html)(FILE *f, const struct json_t *value);
};

/* Put a lens in the registry (at file scope, once per lens file). */
#define LENS_REGISTER(def)                                                                         \
	static const struct lens_def *const lens_reg_##def                                         \
	    __attribute__((used, section("themis_lenses"), aligned(sizeof(void *)))) = &def

/* The lenses of one run: those asked for, and the always-on ones. */
struct lens_set {
	int n;
	const struct lens_def *def[LENS_MAX];
	void *state[LENS_MAX];
	unsigned offset[LENS_MAX]; /* of its words in the run's lens words */
	unsigned words;		   /* all lenses' words together */
};

/* Every registered lens, sorted by order then name: how many, into defs. */
int lens_registry(const struct lens_def **defs, int max);
const struct lens_def *lens_by_name(const char *name);
/* "io, ..." the optional lenses, for errors. */
void lens_names(char *out, size_t cap);
/* name is one of the comma list names (explore --lens). */
bool lens_listed(const char *names, const char *name);
/* The option named `name` of any lens, and its lens; NULL if none has it. */
const struct lens_opt *lens_option(const char *name, const struct lens_def **owner);
/* Every lens's trace header lines for m; offer a line to every lens: 1
 * taken, 0 none's, -1 malformed (why). */
void lens_trace_write(const struct check_machine *m, FILE *f);
/* Every lens's off(m). */
void lens_all_off(struct check_machine *m);
int lens_trace_parse(struct check_machine *m, const char *line, char *why, size_t whylen);
/* text is a whole decimal number from min to max (into *u). */
bool lens_number(const char *text, unsigned long long min, unsigned long long max,
		 unsigned long long *u);
/* For a lens's trace_parse: line is "WORD N" with N a whole number from
 * min to max: 1 (N in *u); 0 not WORD's line; -1 WORD with a bad number
 * (why says so). */
int lens_trace_number(const char *line, const char *word, unsigned long long min,
		      unsigned long long max, unsigned long long *u, char *why, size_t whylen);

/* Open a set: the always-on lenses plus a comma list of names (NULL or ""
 * for none), attached to the run. 0, or -1 with err (unknown name, a lens
 * that cannot attach). */
int lens_set_open(struct lens_set *ls, const char *names, const struct check_config *cfg,
		  const struct check_machine *m, char *err, size_t errlen);
void lens_set_close(struct lens_set *ls);
/* The merge kinds of the set's words, in order (ls->words chars + NUL). */
void lens_set_kinds(const struct lens_set *ls, char *out);

/* The check step's calls (step.c): every lens's before(); every lens's
 * after(), in order, stopping at the first that does not return 0 (its
 * status is returned); and, for a discrepancy, every lens's note as one
 * line joined by " | " (a trace keeps the detail on one line). */
void lens_set_before(const struct lens_set *ls, struct virt *v, const struct op *op);
int lens_set_after(const struct lens_set *ls, uint64_t *words, struct virt *v,
		   const struct check_machine *m, const struct op *op,
		   const struct check_step *parent, struct check_step *s, char *why, size_t whylen,
		   char *sig, size_t siglen);
void lens_set_notes(const struct lens_set *ls, char *notes, size_t noteslen);
void lens_set_report(const struct lens_set *ls, const uint64_t *words, FILE *f, bool json);

/* Merge `from` into `into`, n words by their kinds ('s', 'm', 'o'). */
void lens_merge_words(uint64_t *into, const uint64_t *from, const char *kinds, unsigned n);

#endif
