/* repro.c - writes a trace's reproducer (repro.h): repro.c is a generated
 * head (the trace's operations, the operation grammar from op_table.h) and
 * the fixed program repro_prog.inc; repro.sh a generated head (the
 * filesystems, durability, signature and the mkfs commands of
 * mkfs_table.h) and the fixed script repro_sh.inc. Both fixed parts are
 * built into themis (.incbin), so the generator needs no file at run time
 * and cannot drift from the files in the tree. */
#include "op_grammar.h"
#include "repro.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mkfs_table.h"
#include "ops.h"
#include "trace.h"

/* The fixed parts, as bytes [start, end). */
#define REPRO_EMBED(sym, file)                                                                     \
	__asm__(".pushsection .rodata\n.globl " #sym "_start\n.globl " #sym "_end\n" #sym          \
		"_start:\n.incbin \"" file "\"\n" #sym "_end:\n.popsection\n");                    \
	extern const char sym##_start[] __attribute__((visibility("hidden")));                     \
	extern const char sym##_end[] __attribute__((visibility("hidden")))
REPRO_EMBED(repro_prog, "src/check/repro_prog.inc");
REPRO_EMBED(repro_sh, "src/check/repro_sh.inc");

static const struct {
	const char *name, *mib, *cmd;
} mkfs[] = {
#define MKFS_ROW(name, mib, cmd) {#name, #mib, cmd},
    MKFS_TABLE(MKFS_ROW)
#undef MKFS_ROW
};
#define NMKFS (sizeof(mkfs) / sizeof(mkfs[0]))

static int find_mkfs(const char *fs)
{
	for (size_t i = 0; i < NMKFS; i++)
		if (!strcmp(mkfs[i].name, fs))
			return (int)i;
	return -1;
}

/* ---- what a reproducer cannot do ---- */

static bool time_field(const char *sig)
{
	const char *f = strchr(sig, ':');
	return f && (!strcmp(f, ":atime") || !strcmp(f, ":mtime") || !strcmp(f, ":ctime"));
}

/* Whether the fixed program runs the operation of text "NAME ARGS...":
 * its body is the one list of what it runs (each as `"NAME")` in a
 * strcmp), so a new operation of op_table.h is refused here until the
 * program learns it, never skipped. */
static bool program_runs(const char *op)
{
	char needle[40];
	int n = snprintf(needle, sizeof(needle), "\"%.*s\")", (int)strcspn(op, " "), op);
	return n > 0 && (size_t)n < sizeof(needle) &&
	       memmem(repro_prog_start, (size_t)(repro_prog_end - repro_prog_start), needle,
		      (size_t)n) != NULL;
}

/* 0 when a plain program can reproduce the trace; -1 with err saying why not. */
static int refuse(const char *path, const struct trace *t, char *err, size_t errlen)
{
	if (strspn(t->sig, "abcdefghijklmnopqrstuvwxyz:_") != strlen(t->sig)) {
		snprintf(err, errlen, "%s: malformed trace: signature '%s'", path, t->sig);
		return -1;
	}
	if (!strcmp(t->sig, "finding")) {
		snprintf(err, errlen,
			 "%s: a finding (the guest panicked or hung) is no state to compare: "
			 "replay it with themis replay",
			 path);
		return -1;
	}
	if (time_field(t->sig)) {
		snprintf(err, errlen,
			 "%s: a time discrepancy (%s): Themis pins one clock instant for every "
			 "filesystem, which a program cannot without setting the machine's clock",
			 path, t->sig);
		return -1;
	}
	if (t->crash[0]) {
		snprintf(err, errlen,
			 "%s: a crash state (%s): the power cut between two of the disk's writes "
			 "needs Themis's machine; replay it with themis replay",
			 path, t->crash);
		return -1;
	}
	for (int i = 0; i < t->nops; i++)
		if (op_kind_of_text(t->ops[i]) == OP_SETTIME) {
			snprintf(err, errlen,
				 "%s: operation %d '%s': settime sets the machine's wall clock, "
				 "which a reproducer must not do on someone's machine",
				 path, i + 1, t->ops[i] + 3);
			return -1;
		}
	for (int i = 0; i < t->nops; i++)
		if (!program_runs(t->ops[i] + 3)) {
			snprintf(
			    err, errlen,
			    "%s: operation %d '%s': the reproducer has no plain syscall for it",
			    path, i + 1, t->ops[i] + 3);
			return -1;
		}
	if (t->kernel_b.known) {
		snprintf(err, errlen,
			 "%s: the trace compares %s across two kernels (kernel-b): a reproducer "
			 "runs one filesystem set on the kernel it boots, and cannot tell the two "
			 "apart; replay the trace, or run one filesystem's reproducer under each "
			 "kernel",
			 path, t->m.fs[0]);
		return -1;
	}
	for (int i = 0; i < t->m.nfs; i++) {
		if (find_mkfs(t->m.fs[i]) < 0) {
			snprintf(err, errlen,
				 "%s: filesystem %s has no mkfs command (mkfs_table.h)", path,
				 t->m.fs[i]);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(t->m.fs[i], t->m.fs[j])) {
				snprintf(err, errlen,
					 "%s: %s is compared with itself: a reproducer tells the "
					 "filesystems apart by name",
					 path, t->m.fs[i]);
				return -1;
			}
	}
	return 0;
}

/* ---- writing ---- */

/* s as a C string literal's contents. */
static void c_string(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
}

/* The first line of the discrepancy's detail, for a comment: no "* /". */
static void comment_text(FILE *f, const char *s)
{
	for (; *s && *s != '\n'; s++)
		fputc(*s == '*' && s[1] == '/' ? '+' : *s, f);
}

static void write_c_head(FILE *f, const char *path, const struct trace *t)
{
	fprintf(f,
		"/* repro.c - reproducer of a Themis trace, generated by `themis repro`.\n"
		" * Trace: %s\n * Filesystems:",
		path);
	for (int i = 0; i < t->m.nfs; i++)
		fprintf(f, " %s", t->m.fs[i]);
	fprintf(f, "\n * Discrepancy: %s ", t->sig);
	comment_text(f, t->detail);
	fprintf(f, "\n * Build: cc -O2 -o repro repro.c; run it through repro.sh. */\n\n");
	fprintf(f, "/* The operation grammar (Themis's op_table.h): name, argument letters. */\n"
		   "static const struct {\n\tconst char *name, *letters;\n} repro_optable[] = {\n");
#define OP_ROW(e, name, letters, args, flags, example)                                             \
	fprintf(f, "    {\"%s\", \"%s\"},\n", #name, letters);
	OP_TABLE(OP_ROW)
#undef OP_ROW
	fprintf(f, "};\n\n/* The flag words (Themis's op_grammar.h): letter, word, value. */\n"
		   "#define REPRO_FLAG_WORDS(X) \\\n");
#define FLAG_ROW(letter, word, value)                                                              \
	fprintf(f, "    X('%c', \"%s\", %s) \\\n", letter, #word, #value);
	OP_FLAG_WORDS(FLAG_ROW)
#undef FLAG_ROW
	fprintf(f, "\n/* The trace's operations, in order. */\n"
		   "static const char *const repro_ops[] = {\n");
	for (int i = 0; i < t->nops; i++) {
		fprintf(f, "    \"");
		c_string(f, t->ops[i] + 3); /* without "op " */
		fprintf(f, "\",\n");
	}
	const char *field = strchr(t->sig, ':');
	fprintf(f, "    0,\n};\n#define REPRO_NOPS  %d\n", t->nops);
	fprintf(f,
		"/* Rows of bytes too: the discrepancy is about content. */\n"
		"#define REPRO_BYTES %d\n",
		field && !strcmp(field, ":content"));
}

static void write_sh_head(FILE *f, const char *path, const struct trace *t)
{
	fprintf(f,
		"#!/bin/sh\n# repro.sh - reproducer of a Themis trace, generated by "
		"`themis repro`.\n# Trace: %s\n# Discrepancy: %s ",
		path, t->sig);
	comment_text(f, t->detail);
	fprintf(f, "\n# Operations:\n");
	for (int i = 0; i < t->nops; i++)
		fprintf(f, "#   %s\n", t->ops[i] + 3);
	fprintf(f, "FSLIST=\"");
	for (int i = 0; i < t->m.nfs; i++)
		fprintf(f, "%s%s", i ? " " : "", t->m.fs[i]);
	fprintf(f, "\"\nDURABILITY=%s\nSIG=%s\n", check_durability_name(t->m.durability), t->sig);
	fprintf(f,
		"\n# Themis's mkfs commands (src/check/mkfs_table.h), run with MKFS_ENV\n"
		"# and the clock at MKFS_FAKETIME.\nMKFS_UUID=%s\nMKFS_FAKETIME=\"%s\"\n"
		"MKFS_ENV=\"%s\"\n",
		MKFS_UUID, MKFS_FAKETIME, MKFS_ENV);
	fprintf(f, "mkfs_size() {\n\tcase $1 in\n");
	for (size_t i = 0; i < NMKFS; i++)
		fprintf(f, "\t%s) echo %s ;;\n", mkfs[i].name, mkfs[i].mib);
	fprintf(f, "\tesac\n}\n# mkfs_cmd FS IMG [WRAPPER...]\nmkfs_cmd() {\n\tfs=$1 img=$2\n"
		   "\tshift 2\n\tcase $fs in\n");
	for (size_t i = 0; i < NMKFS; i++) {
		size_t n = strlen(mkfs[i].cmd) - strlen(" IMG");
		fprintf(f, "\t%s) \"$@\" %.*s \"$img\" ;;\n", mkfs[i].name, (int)n, mkfs[i].cmd);
	}
	fprintf(f, "\tesac\n}\n");
}

/* Write the file dir/name: the head, then the fixed part. */
static int write_file(const char *dir, const char *name, const char *trace_path,
		      const struct trace *t,
		      void (*head)(FILE *, const char *, const struct trace *), const char *body,
		      size_t bodylen, mode_t mode, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	head(f, trace_path, t);
	bool ok = fwrite(body, 1, bodylen, f) == bodylen;
	if (fclose(f) != 0 || !ok || chmod(path, mode) != 0) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void repro_default_dir(const char *trace_path, char *out, size_t cap)
{
	const char *slash = strrchr(trace_path, '/');
	const char *base = slash ? slash + 1 : trace_path;
	size_t n = strlen(base);
	if (n > 6 && !strcmp(base + n - 6, ".trace"))
		n -= 6;
	snprintf(out, cap, "%.*s%.*s.repro", (int)(base - trace_path), trace_path, (int)n, base);
}

int repro_write(const char *trace_path, const char *dir, char *err, size_t errlen)
{
	struct trace *t = malloc(sizeof(*t));
	char where[4096];
	int rc = -1;
	if (!t) {
		snprintf(err, errlen, "%s: out of memory", trace_path);
		return -1;
	}
	if (trace_parse(trace_path, t, err, errlen) || refuse(trace_path, t, err, errlen))
		goto out;
	if (!dir) {
		repro_default_dir(trace_path, where, sizeof(where));
		dir = where;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot make the folder: %s", dir, strerror(errno));
		goto out;
	}
	if (write_file(dir, "repro.c", trace_path, t, write_c_head, repro_prog_start,
		       (size_t)(repro_prog_end - repro_prog_start), 0644, err, errlen) ||
	    write_file(dir, "repro.sh", trace_path, t, write_sh_head, repro_sh_start,
		       (size_t)(repro_sh_end - repro_sh_start), 0755, err, errlen))
		goto out;
	rc = 0;
out:
	free(t);
	return rc;
}
