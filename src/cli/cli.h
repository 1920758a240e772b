/* cli.h - what the verbs of the `themis` command share: argument parsing
 * helpers and the exit statuses. Each verb lives in its own cmd_*.c. */
#ifndef THEMIS_CLI_H
#define THEMIS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_FINDING 1 /* the guest or program misbehaved */
#define EXIT_USAGE   2 /* bad usage or bad input */
#define EXIT_INCOMPLETE                                                                            \
	3 /* explore: no finding, but the scope was not covered                                    \
	     (interrupted, or cut by --time-budget/--max-states) */
#define EXIT_BUDGET   124
#define EXIT_DEADLOCK 125

/* Print "themis: <fmt with arg>" and, under it, "Try 'themis help VERB'."
 * to stderr; returns EXIT_USAGE. Every verb's bad input goes through here,
 * so that all say it in one form. */
int usage_error(const char *fmt, const char *arg);
/* usage_error's "unknown option 'ARG' for 'VERB'": what every verb says of
 * an option it does not have, checked before whether a value follows. */
int unknown_option(const char *arg);
/* usage_error's "option 'OPT' needs a value". */
int missing_value(const char *opt);
/* The verb the hint names (main.c, before it dispatches). */
void cli_set_verb(const char *verb);
/* Write the file `path` ("-": standard output) with write(obj, f): 0, or
 * EXIT_USAGE, said on stderr, when it cannot be created or written. Every
 * verb's --json goes through here. */
int write_out(const char *path, void (*write)(const void *obj, FILE *f), const void *obj);
/* A whole non-negative decimal number. */
bool parse_u64(const char *s, uint64_t *out);
/* A size such as 4096, 64K, 128M, 2G. */
bool parse_size(const char *s, uint64_t *out);
/* 2026-01-01T00:00:00Z (UTC), SECONDS or @SECONDS, as ns since the epoch,
 * from 1970 to CLOCK_MAX_SECONDS: the guest kernel keeps its clock in
 * signed 64-bit ns (KTIME_SEC_MAX, 2262-04-11T23:47:16Z) and cannot start
 * later. */
#define CLOCK_MAX_SECONDS 9223372036ULL
#define CLOCK_FORMS	  "YYYY-MM-DDTHH:MM:SSZ or SECONDS (1970 to 2262-04-11)"
bool parse_clock(const char *s, uint64_t *ns);
/* DIR/SUB/NAME, DIR the folder of this executable (build/): where the
 * guest kernel, initramfs and images are found by default. */
void beside_exe(const char *sub, const char *name, char *out, size_t outlen);
/* The kernel a verb boots when no --kernel is given: $THEMIS_KERNEL when
 * set (how `make test-612` runs the tests on Linux 6.12), else
 * BUILD/guest/Image. */
void default_kernel(char *out, size_t outlen);
/* A --kernel as given (in place, cap bytes): a path, or a name for
 * BUILD/guest/Image-NAME (ext4-link3, 6.12, 6.12-all; 6.1 is Image).
 * 0 when it can be read; else EXIT_USAGE, after saying on stderr which
 * command builds it. */
int resolve_kernel(char *kernel, size_t cap);
/* The image of filesystem `fs`: `given` (a --disk), else BUILD/images/FS.img
 * (built with scripts/mkimages.sh if missing), into out. 0 when it is
 * readable and holds fs; else EXIT_USAGE, said on stderr. */
int resolve_image(const char *fs, const char *given, char *out, size_t cap);

/* usage_error's "unknown filesystem 'NAME' (known: ...)": what every verb
 * says of a name src/fs has no descriptor for. */
int unknown_fs(const char *name);

struct rules;
/* Load the rules of fs[0..nfs) from dir (NULL: the build's rules/,
 * rules_default_dir) into r. 0, or EXIT_USAGE after saying why on stderr
 * (the file and line of a bad rule). */
int load_rules(struct rules *r, const char *dir, const char *const *fs, int nfs);

/* True when argv asks for help (--help or -h anywhere): every verb then
 * prints its help to stdout and exits 0. */
bool wants_help(int argc, char **argv);

/* The verbs, one line each: X(name, function, one-line summary). main.c
 * dispatches and lists them from here; a new verb is one line and one
 * cmd_*.c file. */
#define THEMIS_VERBS(X)                                                                            \
	X(bare, cmd_bare, "run a bare-metal RV64GC ELF in M-mode until it writes tohost")          \
	X(boot, cmd_boot, "boot Linux on the emulated board to the guest agent")                   \
	X(clock, cmd_clock,                                                                        \
	  "what each filesystem stores of time: ranges, granularity, raw fields")                  \
	X(corrupt, cmd_corrupt,                                                                    \
	  "flip one bit of an on-disk structure and measure the blast radius")                     \
	X(diff, cmd_diff, "the sectors and fields two disk images differ in")                      \
	X(explore, cmd_explore, "the differential model checker over filesystem operations")       \
	X(fs, cmd_fs, "what Themis knows of each filesystem: image, time, crash, checker")         \
	X(layout, cmd_layout, "name every sector of a filesystem image by its on-disk structure")  \
	X(profile, cmd_profile, "per-operation I/O below each filesystem: sectors, structures")    \
	X(replay, cmd_replay, "re-run a discrepancy's trace")                                      \
	X(report, cmd_report, "an explore run's folder as one self-contained HTML page")           \
	X(repro, cmd_repro, "write a trace's reproducer: repro.c and repro.sh, no Themis needed")

#define THEMIS_VERB_DECL(name, fn, summary) int fn(int argc, char **argv);
THEMIS_VERBS(THEMIS_VERB_DECL)
#undef THEMIS_VERB_DECL

#endif
