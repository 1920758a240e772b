/* splat.h - the kernel's own reports on its console: a KASAN or KFENCE
 * report, a lockdep splat, a UBSAN report, a WARNING, a BUG, an Oops, a
 * hung task, an RCU stall. Which console line opens one and of which
 * kind (SPLAT_OPENINGS, the one list), and a log of the reports since a
 * mark: how many opened, and the first one's kind and lines. The machine
 * feeds it every console line (virt.c); the kernel lens makes each report
 * a finding `kernel:KIND` (src/lens/lens_kernel.c). Plain data: a log is
 * the checker's bookkeeping beside the machine, never forked state. */
#ifndef THEMIS_SPLAT_H
#define THEMIS_SPLAT_H

#include <stdbool.h>
#include <stddef.h>

/* The kinds, in the order a finding names them: X(NAME, SYMBOLS, CONFIG).
 * A kernel can print NAME's reports when its System.map has one of the
 * text SYMBOLS (space-separated; NULL: every kernel can), which the
 * CONFIG options bring (scripts/build-kernel.sh --debug sets them). */
#define SPLAT_KINDS(X)                                                                             \
	X(kasan, "kasan_report", "KASAN")                                                          \
	X(kfence, "kfence_init", "KFENCE")                                                         \
	X(ubsan, "__ubsan_handle_out_of_bounds __ubsan_handle_shift_out_of_bounds",                \
	  "UBSAN_BOUNDS or UBSAN_SHIFT")                                                           \
	X(lockdep, "lockdep_init", "PROVE_LOCKING")                                                \
	X(atomic, "__might_resched __might_sleep", "DEBUG_ATOMIC_SLEEP")                           \
	X(list, "__list_add_valid __list_add_valid_or_report", "DEBUG_LIST")                       \
	X(warning, "report_bug", "BUG")                                                            \
	X(bug, "report_bug", "BUG")                                                                \
	X(oops, NULL, "")                                                                          \
	X(hung, "check_hung_uninterruptible_tasks", "DETECT_HUNG_TASK")                            \
	X(rcu, "rcu_cpu_stall_reset", "TREE_RCU (its stall warnings)")

enum splat_kind {
	SPLAT_NONE,
#define SPLAT_KIND_ENUM(name, symbols, config) SPLAT_##name,
	SPLAT_KINDS(SPLAT_KIND_ENUM)
#undef SPLAT_KIND_ENUM
	    SPLAT_NKINDS
};

/* The console lines that open a report, first match wins (so the specific
 * before the general: a KASAN report's line starts "BUG: KASAN:"):
 * X(KIND, TEXT), TEXT the start of the message after printk's timestamp.
 * "INFO: task " opens one only with "blocked for more than" in the line. */
#define SPLAT_OPENINGS(X)                                                                          \
	X(kasan, "BUG: KASAN: ")                                                                   \
	X(kfence, "BUG: KFENCE: ")                                                                 \
	X(ubsan, "UBSAN: ")                                                                        \
	X(lockdep, "WARNING: possible circular locking dependency detected")                       \
	X(lockdep, "WARNING: possible recursive locking detected")                                 \
	X(lockdep, "WARNING: inconsistent lock state")                                             \
	X(lockdep, "WARNING: bad unlock balance detected!")                                        \
	X(lockdep, "WARNING: suspicious RCU usage")                                                \
	X(lockdep, "WARNING: held lock freed!")                                                    \
	X(lockdep, "WARNING: lock held when returning to user space!")                             \
	X(atomic, "BUG: sleeping function called from invalid context")                            \
	X(atomic, "BUG: scheduling while atomic")                                                  \
	X(list, "list_add corruption")                                                             \
	X(list, "list_del corruption")                                                             \
	X(warning, "WARNING: CPU: ")                                                               \
	X(bug, "kernel BUG at ")                                                                   \
	X(bug, "BUG: ")                                                                            \
	X(oops, "Unable to handle kernel ")                                                        \
	X(oops, "Oops")                                                                            \
	X(hung, "INFO: task ")                                                                     \
	X(rcu, "rcu: INFO: ")

#define SPLAT_TEXT_MAX	4096 /* bytes of the first report kept */
#define SPLAT_LINES_MAX 48   /* its lines kept */

struct splat_log {
	unsigned opened;	   /* reports opened since the mark */
	enum splat_kind kind;	   /* the first one's, SPLAT_NONE before */
	bool open;		   /* its lines are still being kept */
	unsigned lines;		   /* lines kept */
	size_t len;		   /* bytes of text */
	char text[SPLAT_TEXT_MAX]; /* its lines, each ended by '\n' */
};

/* Forget the reports seen: the log counts from here. */
void splat_mark(struct splat_log *l);
/* One console line (without its newline). */
void splat_line(struct splat_log *l, const char *line);
/* The kind that `line` opens, or SPLAT_NONE. */
enum splat_kind splat_opens(const char *line);
/* "warning", ...; "none" for SPLAT_NONE. */
const char *splat_kind_name(enum splat_kind k);
/* The kind called name, or SPLAT_NONE. */
enum splat_kind splat_kind_by_name(const char *name);
/* The kernel config options a kind's reports need ("" none). */
const char *splat_kind_config(enum splat_kind k);

struct kmap;
/* Whether the kernel whose text symbols map holds (its System.map) can
 * print kind k's reports: the kinds a base kernel cannot see. */
bool splat_printable(const struct kmap *map, enum splat_kind k);
/* Where a report (text: its lines, each ended by '\n') happened: the
 * first function its lines name ("at FILE:LINE FUNC+", "in FUNC+", "epc :
 * FUNC+", a frame "] FUNC+") that is not the reporting machinery's own
 * (dump_stack, __warn, the sanitizers' handlers...), into out as
 * [a-z0-9_] (other bytes as '_'); "" when it names none. */
void splat_site(const char *text, char *out, size_t cap);
/* Append a report's lines (text, each ended by '\n': a log's text, or
 * it with its frames' source lines, kline.h) to out (its string of n
 * bytes, cap in all), each as "\nkernel LINE" (a trace shows them as
 * "show kernel ..."): the new length, or cap and more when cut. */
size_t splat_append_lines(const char *text, char *out, size_t n, size_t cap);
/* How many frames inside a filesystem sign a report. */
#define SPLAT_SITE_FRAMES 2
/* A report's finding signature, "kernel:KIND:SITE", for grouping: one bug
 * met at many states is one group. SITE is the first SPLAT_SITE_FRAMES
 * functions, in the report's order and each once, whose frames lie inside
 * a filesystem ("f1,f2": a source line under a folder of fs/, which only
 * a report with its frames' source lines has, kline.h), else splat_site
 * (":SITE" left out when that names none). The kernel lens's and the
 * crash lens's. */
void splat_signature(enum splat_kind kind, const char *text, char *out, size_t cap);

#endif
