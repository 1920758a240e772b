/* check.h - the model checker: bounded depth-first exploration of
 * filesystem operations on several real filesystems at once, each the
 * others' reference, over the machine fork.
 *
 * One machine holds one disk per filesystem under test; the guest agent
 * applies every operation to all of them and answers with each one's
 * return value, errno and abstract-state fingerprint. At every node of the
 * search the machine is forked, each candidate operation is applied and
 * compared, the search recurses into combined states not seen before, and
 * the machine is restored. A discrepancy (different results, or different
 * fingerprints) is written out as a trace that `themis replay` re-runs.
 *
 * The search stack: the state at depth d of the DFS (d operations from
 * the root) is the machine at fork level d, and dfs opens level d + 1 to
 * try its candidates. Invariant, checked by dfs (explore.c) after that
 * fork, after every restore and before the release: the machine is at
 * level d + 1 (the baseline, which never forks, is exempt). */
#ifndef THEMIS_CHECK_H
#define THEMIS_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../proto/agent_cmds.h"
#include "../lens/lens.h"
#include "../machine/virt.h"
#include "coverage.h"
#include "../lens/crash_fsck.h"
#include "ops.h"
#include "rules.h"

struct share;
struct check_group;

#define CHECK_MAX_FS	 4
#define CHECK_MAX_DEPTH	 64
#define CHECK_DETAIL_MAX 4096
/* Instructions an operation may take before it counts as a hang (a
 * finding), unless --op-budget says otherwise. */
#define CHECK_OP_BUDGET		   8000000000ULL
#define CHECK_HANG_FRAMES	   10	/* a hang's why: where the hart spins, and its callers */
#define CHECK_NAMES_MAX		   16	/* namespaces a step remembers (check_step.names) */
#define CHECK_CRASH_STATES_MAX	   4096 /* subsets per operation (--crash-states) */
#define CHECK_CRASH_STATES_DEFAULT 8

/* The on-disk view (--durability): after every operation, inside a fork
 * thrown away afterwards, sync and then read the state back from the disk
 * with every cache dropped, or through an unmount and a mount. */
enum check_durability { CHECK_DURABLE_OFF, CHECK_DURABLE_DROP, CHECK_DURABLE_REMOUNT };
const char *check_durability_name(enum check_durability d);
/* The mode named `name`, or -1. */
int check_durability_by_name(const char *name);

/* What one operation did on every filesystem. */
#define CHECK_WAIVED_MAX 8 /* times waivers a branch keeps (check_step.waived) */

struct check_step {
	int64_t ret[CHECK_MAX_FS];
	char err[CHECK_MAX_FS][24];
	uint8_t fp[CHECK_MAX_FS][16]; /* live (with timestamps under --time) */
	/* A disk whose walk failed ("f I !ERRNO"): the errno's name, else "".
	 * Its fingerprint is not an answer: the step still fails to parse, and
	 * a caller that can judge an unreadable disk (the crash lens) reads
	 * this. */
	char fp_err[CHECK_MAX_FS][24];
	uint8_t plain[CHECK_MAX_FS][16]; /* live, without timestamps */
	uint8_t disk[CHECK_MAX_FS][16];	 /* on disk (durability on) */
	uint8_t key[16];		 /* the visited key: live and disk views */
	/* Under --time, the clock is state the views do not show: the last
	 * settime on the path to here (a hash of its text; 0 for none), mixed
	 * into the key so a moved clock is a new state. */
	uint64_t clock_tag;
	struct op_view view; /* what exists on the first filesystem */
	/* What the fields the agent ignores held (its "m" lines): a hash per
	 * RULE_FIELDS field and disk, for the disks in the bit set
	 * masked_from; the rules lens counts the differences they hid. */
	uint64_t masked[CHECK_MAX_FS][RULE_NFIELDS];
	unsigned masked_from;
	/* The namespace (check_names_hash of the view) after each operation
	 * on the path since the last sync or the root, oldest first: what a
	 * crash may recover on a filesystem that journals its names in order
	 * (src/lens/lens_crash.c). None: unknown (a longer path, a full view). */
	uint64_t names[CHECK_NAMES_MAX];
	int nnames;
	/* The check's verdict so far, as lenses see it in after(): 0 the
	 * filesystems agree, 1 a discrepancy, -1 the guest failed (the
	 * machine must not be run). */
	int verdict;
	/* Under --time: the filesystems' live views differed only in times
	 * each held to its own declared range (no discrepancy; counted). */
	bool time_clamped;
	/* Under --time, the times a `times` rule (rules.h) let differ, from
	 * the operation it names down the branch: the path (XXH3 of its
	 * name), the times (rule bits), the rule; and the rule that masked a
	 * difference of this state (-1: none). */
	struct check_waiver {
		uint64_t path;
		unsigned times;
		int rule;
	} waived[CHECK_WAIVED_MAX];
	int nwaived, time_rule;
	/* The refuses rule that let a filesystem fail this operation where
	 * another did not (-1: none): a leaf of the search. */
	int refused_rule;
};

/* The machine and what the search needs to rebuild it (for traces). */
struct check_machine {
	const char *fs[CHECK_MAX_FS];
	int nfs;
	const char *kernel, *initrd, *images[CHECK_MAX_FS];
	/* A second kernel (explore FS --kernel A --kernel B, a regression
	 * finder): fs[0] and fs[1] are then one filesystem, disk 0 on a
	 * machine booting `kernel` and disk 1 on its peer (virt.h) booting
	 * kernel_b, each over its own copy-on-write of the one base image,
	 * stepped and forked together and compared as two filesystems are.
	 * NULL: one machine, every disk in it. */
	const char *kernel_b;
	uint64_t mem, clock_ns, machine_seed;
	bool clock_host;    /* the host's clock at power-on instead (nondeterministic) */
	bool time;	    /* fingerprints include timestamps */
	uint64_t op_budget; /* instructions an operation may take (0: default) */
	const char *load;   /* a saved machine to start from instead of booting */
	FILE *console;	    /* the guest's console (NULL: discarded) */
	bool warnings;	    /* the kernel's warnings on the console (loglevel=5), not quiet */
	/* The report kinds (bit 1 << enum splat_kind) each kernel must be
	 * able to print (explore --kernel-reports; src/lens/lens_kernel.c). */
	unsigned kernel_reports;
	const char *options; /* the exploring run's options, for its traces (NULL: none) */
	enum check_durability durability;
	/* Crash states checked per operation (explore --crash; 0: none). The
	 * crash lens (src/lens/lens_crash.c) is always there and acts on it,
	 * so replay and the minimizer crash the same points. */
	unsigned crash_states;
	/* Recover every crash disk in the guest (crash_memo.h); or do so and
	 * also check each answer the memo would have given (memo_check). */
	bool crash_no_memo, crash_memo_check;
	/* A trace's crash step (docs/trace.md), as replay runs it: NULL
	 * crashes every point crash_states derives (explore, the minimizer);
	 * "" none (the operations before the step, the write log kept); else
	 * the step's point alone ("end", "flush 0 17", "subset 1 40 3a0"). */
	const char *crash_at;
	/* The filesystems' own checkers judge every state's disks after a
	 * clean unmount (explore --fsck; src/lens/lens_fsck.c); their
	 * verdicts there and on crash disks are remembered as fsck_memo says
	 * (crash_fsck.h). */
	bool fsck;
	enum crash_fsck_memo fsck_memo;
	/* The lenses every check runs (lens_set_open; check_state refuses
	 * NULL), and the words they count into (NULL: thrown away). */
	const struct lens_set *lenses;
	uint64_t *lens_words;
	/* The rules of the run's filesystems (rules.h), loaded before any
	 * fork: the fields the agent ignores, the errnos taken as one (NULL:
	 * none, every difference counts). */
	const struct rules *rules;
};

struct check_config {
	struct check_machine m;
	int jobs;		  /* worker processes (1: the search runs in this one) */
	const char *redis;	  /* redis://HOST:PORT: share the run there (NULL: memory) */
	const char *redis_config; /* what workers joining the run must match */
	const char *lens_names;	  /* --lens: the optional lenses, comma-separated */
	int lease;		  /* seconds a Redis worker may go unheard from */
	double time_budget;	  /* seconds, 0: none */
	int depth;
	uint64_t seed;
	uint32_t ops; /* mask of enum op_kind */
	struct op_pools pools;
	int branch;	     /* random candidates per node; 0: every one (op_enumerate) */
	int swarm;	     /* members of a swarm search (0: one plain search), see explore.c */
	uint64_t max_states; /* 0: no limit */
	bool stop_on_first, minimize, progress, verbose;
	/* Benchmark baseline: backtrack as an in-OS checker must, without the
	 * fork (unmount, write the saved images back, mount again). */
	bool baseline;
	const char *out_dir; /* NULL: no files */
	/* The guest profiler (gprof.h): a sample every this many guest
	 * instructions of the search's machine; 0 none. */
	uint64_t profile_every;
};

/* The run's totals, the one list: X(name, kind, json key, summary text)
 * per total; kind 's' summed over workers, 'm' kept as a maximum. Both
 * share backends, the summary and report.json are generated from it. */
#define CHECK_TOTALS(X)                                                                            \
	X(states, 's', "states", "states")                                                         \
	X(ops, 's', "operations", "operations")                                                    \
	X(unique, 's', "unique_states", "unique")                                                  \
	X(restores, 's', "restores", "restores")                                                   \
	X(discrepancies, 's', "discrepancies", "discrepancies")                                    \
	X(findings, 's', "findings", "findings")                                                   \
	X(deepest, 'm', "deepest", "deepest")                                                      \
	X(full, 'm', "visited_set_full", "visited set full")                                       \
	X(min_attempts, 's', "minimize_attempts", "minimize attempts")                             \
	X(min_ms, 's', "minimize_ms", "ms minimizing")

enum {
#define CHECK_TOTAL_ENUM(name, kind, json, text) CHECK_TOTAL_##name,
	CHECK_TOTALS(CHECK_TOTAL_ENUM)
#undef CHECK_TOTAL_ENUM
	    CHECK_NTOTALS
};

/* The totals as named fields and as an array, for a struct to embed (the
 * shares' totals, a run's result). */
#define CHECK_TOTAL_FIELD(name, kind, json, text) uint64_t name;
#define CHECK_TOTALS_FIELDS                                                                        \
	union {                                                                                    \
		struct {                                                                           \
			CHECK_TOTALS(CHECK_TOTAL_FIELD)                                            \
		};                                                                                 \
		uint64_t fixed[CHECK_NTOTALS];                                                     \
	}

struct check_result {
	CHECK_TOTALS_FIELDS; /* the run's, merged over its workers */
	uint64_t own_states; /* of the states, those this process explored */
	double seconds;
	bool complete;	   /* the whole scope was explored (no budget cut it) */
	char stopped[320]; /* when not complete: why, in words ("" when complete) */
	unsigned cleared;  /* files of an earlier run removed from --out */
	char note[256];	   /* a warning for the summary, or "" */
	/* The lenses' words merged over the run, to report with the set the
	 * caller opens alike (lens_set_open with the run's names). */
	uint64_t lens[LENS_WORDS_MAX];
	/* The run's discrepancies and findings grouped (group.h), as the
	 * report lists them: the coordinator's, NULL elsewhere. Freed by
	 * check_result_free. */
	struct check_group *groups;
	int ngroups, nrecords;
};

void check_result_free(struct check_result *res);

#define CHECK_LABEL_MAX 96
/* What messages call filesystem i of m: its name, or under two kernels
 * its name at its kernel's file name ("ext4@Image", "ext4@Image-6.12";
 * "ext4@Image#2" for the second of two alike). Returns out. */
const char *check_label(const struct check_machine *m, int i, char out[CHECK_LABEL_MAX]);
/* Disk i of the machine v (past v's own disks, its peer's). */
struct disk *check_disk(struct virt *v, int i);

/* Boot the machine to the agent's command loop with one disk per fs.
 * 0, or -1 with a reason in err. */
int check_boot(struct virt *v, const struct check_machine *m, char *err, size_t errlen);
/* Why a guest booted on `kernel` cannot serve the checker, in what the
 * kernel lacks (bootdiag.c): from the console's last lines when it
 * stopped before the agent's command loop (ready false: 0 when nothing
 * known was said), or from the agent's ready report of its disks (ready
 * true: 0 when every disk mounted). -1 with err otherwise. */
int check_boot_diagnose(const struct virt *v, const char *kernel, bool ready, char *err,
			size_t errlen);

/* The granularities times compare in under --time, ns (mtime and ctime;
 * atime): the coarsest any of m's filesystems declares (src/fs), so that
 * a time every one of them stores compares equal, and one a filesystem
 * cannot store does not. */
void check_time_grans(const struct check_machine *m, uint64_t *gran, uint64_t *agran);
/* The rules --time compares by, one line for the summary and report.json:
 * the granularity and each filesystem's declared range. */
void check_time_rules(const struct check_machine *m, char *out, size_t cap);

/* The namespace of a view, or of disk's records in an agent dump ("e
 * DISK PATH kind=K ..." lines): what exists, each path as a file or a
 * directory, order-independent. The two agree on one tree. */
uint64_t check_names_of_view(const struct op_view *v);
uint64_t check_names_of_dump(const char *dump, int disk);

/* The agent's client (agent.c). Run one agent command and parse the
 * per-filesystem replies. 0; -1 when the guest did not come back (panic,
 * hang...: *why says what). */
int check_apply(struct virt *v, int nfs, const char *cmd, struct check_step *s, char *why,
		size_t whylen);
/* check_apply where only the disks whose bit is set in `disks` must
 * answer (the others may say "unmounted"). */
int check_apply_on(struct virt *v, int nfs, unsigned disks, const char *cmd, struct check_step *s,
		   char *why, size_t whylen);
/* check_apply when nothing of the answer is needed but that it came. */
int check_agent(struct virt *v, int nfs, const char *cmd, char *why, size_t whylen);
/* check_apply on a machine of one disk: its RET, and its ERRNO's name
 * ("0" for none) in err. */
int check_agent_result(struct virt *v, const char *cmd, int64_t *ret, char err[24], char *why,
		       size_t whylen);

/* Each disk of the state the machine is in, synced, in a fork thrown
 * away afterwards (the machine goes on as it was): each(disk, i, ctx) for
 * every filesystem i in order, until one fails. 0, or -1 with why (the
 * sync failed, or each's own reason). */
typedef int check_disk_fn(struct disk *d, int i, void *ctx, char *why, size_t whylen);
int check_synced(struct virt *v, const struct check_machine *m, check_disk_fn *each, void *ctx,
		 char *why, size_t whylen);

/* The disks of `disks` (bit i: disk i) that have a checker, as a clean
 * unmount leaves them, for it (a disk no checker reads stays as it is):
 * remounted
 * read-only (the journal or log emptied and marked clean, without the
 * unmount's teardown), or unmounted where the remount is refused: the
 * kernel says EBUSY while an unlinked inode waits to be evicted (jfs and
 * nilfs2 keep one until their next commit, after an unlink), which the
 * unmount does wait for. Run it in a fork. 0, with bit i of *unmounted
 * set for a disk i unmounted rather than remounted, or -1 with why (a
 * disk that neither remounts nor unmounts). */
int check_quiesce(struct virt *v, const struct check_machine *m, unsigned disks,
		  unsigned *unmounted, char *why, size_t whylen);
/* How check_quiesce left disk i: "a read-only remount" or "an unmount". */
const char *check_quiesced_how(unsigned unmounted, int i);

/* Run a dump command ("dump" or "dump time") into a private copy of the
 * agent's reply, "e I RECORD" lines (free it); NULL with why on failure. */
char *check_dump(struct virt *v, int nfs, const char *cmd, char *why, size_t whylen);

/* Parse the agent's reply to a command: "r I RET ERR", "f I HEX32" and
 * "v PATH:K ..." lines into s (which the caller zeroed); every disk must
 * answer with the lines `need` names (CHECK_REPLY_R, CHECK_REPLY_F, or
 * both). 0, or -1 with why. */
enum { CHECK_REPLY_R = AGENT_REPLY_R, CHECK_REPLY_F = AGENT_REPLY_F };
int check_parse_reply(const char *log, int nfs, unsigned need, struct check_step *s, char *why,
		      size_t whylen);
/* Name the first path and field where disk a's entries of the dump log_a
 * and disk b's of log_b ("e DISK PATH FIELDS" lines, as the agent's dump
 * prints them) differ, into why, with a signature into sig; kind is its
 * prefix ("state", "disk", "durability"). a and b index m->fs. */
void check_explain_dumps(const struct check_machine *m, const char *log_a, int a, const char *log_b,
			 int b, const char *kind, char *why, size_t whylen, char *sig,
			 size_t siglen);
/* The same, each side named as given ("f2fs after the whole recovery"). */
void check_explain_named(const struct check_machine *m, const char *log_a, int a,
			 const char *name_a, const char *log_b, int b, const char *name_b,
			 const char *kind, char *why, size_t whylen, char *sig, size_t siglen);

/* Run `op` (an operation, or check_root_op for the state as it is) and
 * check the state it leaves, through every lens of m (the on-disk view is
 * one) (parent: the step that led to the state op runs in, or NULL when
 * unknown): 0 if every filesystem agrees; 1 with
 * a one-line description in why and a short signature in sig that replays
 * and minimization match ("result"; "state:FIELD" the live views differ;
 * "disk:FIELD" the on-disk views differ; "durability:FIELD" a filesystem's
 * disk differs from its own cache after sync); -1 when the guest failed
 * (panic, hang: why says what; sig is "finding"). */
int check_state(struct virt *v, const struct check_machine *m, const struct op *op,
		const struct check_step *parent, struct check_step *s, char *why, size_t whylen,
		char *sig, size_t siglen);
/* The pseudo-operation of a root check: "fp", kind OP_NKINDS. */
extern const struct op check_root_op;

/* Check the root state as the search does before its first operation,
 * into root (the first operation's parent, as in the search): replay and
 * the minimizer start from it. 0, or -1 with why (the guest failed, or the
 * root differs). */
int check_root(struct virt *v, const struct check_machine *m, struct check_step *root, char *why,
	       size_t whylen);
/* The typed operation of an agent command text (kind -1 when unknown). */
void check_op_of_text(const char *text, struct op *out);

/* The on-disk view of the state the machine is in (the disk lens): sync and
 * read back with caches dropped or through a remount, in a fork thrown
 * away; compared across the filesystems and with each one's live view.
 * Sets s->disk; the return as check_state's. */
int check_disk_view(struct virt *v, const struct check_machine *m, const struct check_step *parent,
		    struct check_step *s, char *why, size_t whylen, char *sig, size_t siglen);

/* The exploration. 0 (see result), or -1 with err for setup errors. */
int check_explore(const struct check_config *cfg, struct check_result *res, char *err,
		  size_t errlen);

/* Join a run shared through `sh` (themis explore --worker): boot, work
 * until no work is left, and fill res with this worker's part. */
int check_work(const struct check_config *cfg, struct share *sh, struct check_result *res,
	       char *err, size_t errlen);

#endif
