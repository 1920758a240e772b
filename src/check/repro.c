/* repro.c - writes a trace's reproducer (repro.h). repro.c is a generated
 * head (the trace's operations), the host-guest contract the agent
 * compiles too (src/proto: op_table.h, op_grammar.h's parser, op_run.h's
 * operations, verbatim) and the fixed program repro_prog.inc. repro.sh is
 * a generated head (the filesystems, durability, signature and the mkfs
 * commands of their descriptors, src/fs; for a crash, its point, promise,
 * checker and log replay) and the fixed scripts repro_sh_setup.inc and
 * repro_sh.inc (a state) or repro_crash_sh.inc (a crash). The fixed parts
 * are built into themis (.incbin), so the generator needs no file at run
 * time and cannot drift from the files in the tree. */
#include "../proto/op_grammar.h"
#include "repro.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lens/corrupt_fsck.h"
#include "../lens/lens_crash.h"
#include "../lens/crash.h"
#include "../lens/crash_replay.h"
#include "../fs/fs.h"
#include "../util/embed.h"
#include "ops.h"
#include "trace.h"

/* The fixed parts, as bytes [start, end). */
EMBED_FILE(proto_table, "src/proto/op_table.h");
EMBED_FILE(proto_grammar, "src/proto/op_grammar.h");
EMBED_FILE(proto_run, "src/proto/op_run.h");
EMBED_FILE(repro_prog, "src/check/repro_prog.inc");
EMBED_FILE(repro_sh, "src/check/repro_sh.inc");
EMBED_FILE(repro_setup, "src/check/repro_sh_setup.inc");
EMBED_FILE(repro_crash, "src/check/repro_crash_sh.inc");
EMBED_FILE(mkfs_fixed, "src/mkfs/fixed_host.c");

/* ---- what a reproducer cannot do ---- */

static bool time_field(const char *sig)
{
	const char *f = strchr(sig, ':');
	return f && (!strcmp(f, ":atime") || !strcmp(f, ":mtime") || !strcmp(f, ":ctime"));
}

/* A crash trace's crash point as its reproducer rebuilds it, from the
 * trace's `crash-point` lines (lens_crash.c): the filesystem the finding
 * is on, its point ("drop R" or "subset R C RANGES") and the recovery's
 * ("recovery-drop R"; "" for none). */
struct crash_point {
	char fs[16], point[CHECK_DETAIL_MAX / 2], rpoint[64];
};

static bool crash_point_of(const struct trace *t, struct crash_point *cp)
{
	static const char mark[] = "\n" CRASH_POINT_WORD " ";
	memset(cp, 0, sizeof(*cp));
	for (const char *l = strstr(t->detail, mark); l; l = strstr(l + 1, mark)) {
		char fs[16], rest[sizeof(cp->point)];
		if (sscanf(l + strlen(mark), "%15s %[^\n]", fs, rest) != 2)
			return false;
		if (!strncmp(rest, "recovery-drop ", 14))
			snprintf(cp->rpoint, sizeof(cp->rpoint), "%.63s", rest);
		else
			snprintf(cp->point, sizeof(cp->point), "%s", rest);
		snprintf(cp->fs, sizeof(cp->fs), "%s", fs);
	}
	return cp->point[0] != 0;
}

/* The crash findings a reproducer judges (lens_crash.c's kinds): the
 * promise kinds, the checker, a disk that does not mount, a recovery that
 * does not repeat. */
static bool crash_kind_judged(const char *sig)
{
	static const char *const kinds[] = {"crash:lost-fsync",	 "crash:lost-sync",
					    "crash:atomicity",	 "crash:fsck",
					    "crash:unmountable", "crash:recovery-crash"};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(sig, kinds[i]))
			return true;
	return false;
}

static int refuse_crash(const char *path, const struct trace *t, char *err, size_t errlen)
{
	struct crash_point cp;
	if (!crash_kind_judged(t->sig)) {
		snprintf(err, errlen,
			 "%s: a crash finding of kind %s (the guest failed, or the trace's step "
			 "named no point) is no state a program judges: replay it with themis "
			 "replay",
			 path, t->sig);
		return -1;
	}
	if (!crash_point_of(t, &cp)) {
		snprintf(err, errlen,
			 "%s: the trace has no 'show crash-point' line (an older Themis wrote "
			 "it): replay it with this one's explore --crash to record the point in "
			 "a reproducer's terms",
			 path);
		return -1;
	}
	if (!fs_known(cp.fs)) {
		snprintf(err, errlen, "%s: filesystem %s has no descriptor (src/fs)", path, cp.fs);
		return -1;
	}
	return 0;
}

/* 0 when a plain program can reproduce the trace; -1 with err saying why not. */
static int refuse(const char *path, const struct trace *t, char *err, size_t errlen)
{
	if (!strncmp(t->sig, "kernel:", 7)) {
		snprintf(err, errlen,
			 "%s: a kernel report (%s) is read from the machine's console, which a "
			 "reproducer does not compare: replay it with themis replay (the kernel "
			 "prints it again, on a kernel built with the same debug options)",
			 path, t->sig);
		return -1;
	}
	if (strspn(t->sig, "abcdefghijklmnopqrstuvwxyz:_-") != strlen(t->sig)) {
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
	for (int i = 0; i < t->nops; i++) {
		int k = op_kind_of_text(t->ops[i]);
		if (k >= 0 && (op_flags((enum op_kind)k) & OPF_CLOCK)) {
			snprintf(err, errlen,
				 "%s: operation %d '%s': it sets the machine's wall clock, "
				 "which a reproducer must not do on someone's machine",
				 path, i + 1, t->ops[i] + 3);
			return -1;
		}
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
	if (t->crash[0])
		return refuse_crash(path, t, err, errlen);
	for (int i = 0; i < t->m.nfs; i++) {
		if (!fs_known(t->m.fs[i])) {
			snprintf(err, errlen, "%s: filesystem %s has no descriptor (src/fs)", path,
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
	fprintf(f, "#define _GNU_SOURCE /* fallocate, syncfs, O_PATH, SEEK_DATA, renameat2 */\n"
		   "\n/* The trace's operations, in order. */\n"
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

static void write_mkfs(FILE *f);

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
	write_mkfs(f);
}

/* Themis's mkfs commands as shell functions, and how they are run. */
static void write_mkfs(FILE *f)
{
	fprintf(f,
		"\n# Themis's mkfs commands (`themis fs --mkfs`), run with MKFS_ENV on\n"
		"# the constant host (mkfs-fixed.c, MKFS_HOST), or under faketime at\n"
		"# MKFS_FAKETIME where that cannot be built.\nMKFS_UUID=%s\n"
		"MKFS_FAKETIME=\"%s\"\nMKFS_ENV=\"%s\"\nMKFS_HOST=\"%s\"\n",
		FS_MKFS_UUID, FS_MKFS_FAKETIME, FS_MKFS_ENV, FS_MKFS_HOST);
	/* Each filesystem's mkfs tool (not always mkfs.FS: mkntfs, mkudffs,
	 * mkreiserfs), for the check that it is installed and for
	 * repro-qemu.sh's initramfs. */
	fprintf(f, "MKFS_TOOLS=\"");
	for (size_t i = 0; i < fs_count(); i++)
		fprintf(f, "%s%s:%.*s", i ? " " : "", fs_at(i)->name,
			(int)strcspn(fs_at(i)->mkfs, " "), fs_at(i)->mkfs);
	fprintf(f, "\"\n");
	fprintf(f, "mkfs_size() {\n\tcase $1 in\n");
	for (size_t i = 0; i < fs_count(); i++)
		fprintf(f, "\t%s) echo %u ;;\n", fs_at(i)->name, fs_at(i)->image_mib);
	fprintf(f, "\tesac\n}\n# mkfs_cmd FS IMG [WRAPPER...]\nmkfs_cmd() {\n\tfs=$1 img=$2\n"
		   "\tshift 2\n\tcase $fs in\n");
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		size_t n = strlen(d->mkfs) - strlen(" IMG");
		fprintf(f, "\t%s) \"$@\" %.*s \"$img\" ;;\n", d->name, (int)n, d->mkfs);
	}
	fprintf(f, "\tesac\n}\n");
}

/* The tools a crash reproducer runs besides the mkfs tools (for
 * repro-qemu.sh's initramfs): dmsetup, the checker's and the log replay's
 * programs (the first word of each command; jfs_fsck once). */
static void crash_tools(const char *checker, const char *replayer, char *out, size_t cap)
{
	int c = (int)strcspn(checker, " "), r = (int)strcspn(replayer, " ");
	bool same = c == r && !strncmp(checker, replayer, (size_t)c);
	snprintf(out, cap, "dmsetup%s%.*s%s%.*s", c ? " " : "", c, checker, r && !same ? " " : "",
		 same ? 0 : r, replayer);
}

/* A crash trace's head: the filesystem the finding is on, the point, what
 * the last operation promised, its checker and log replay, the tools. */
static void write_crash_head(FILE *f, const char *path, const struct trace *t)
{
	struct crash_point cp;
	char promise[256] = "", tools[300];
	(void)crash_point_of(t, &cp);
	lens_crash_promise(t->ops[t->nops - 1], promise, sizeof(promise));
	const char *check = corrupt_fsck_command(cp.fs), *replay = crash_replay_command(cp.fs);
	char checker[128], replayer[128];
	snprintf(checker, sizeof(checker), "%s", check ? check : "");
	snprintf(replayer, sizeof(replayer), "%s", replay ? replay : "");
	crash_tools(checker, replayer, tools, sizeof(tools));
	fprintf(f,
		"#!/bin/sh\n# repro.sh - reproducer of a Themis crash trace, generated by "
		"`themis repro`.\n# Trace: %s\n# Discrepancy: %s ",
		path, t->sig);
	comment_text(f, t->detail);
	fprintf(f, "\n# Operations, then `%s`:\n", t->crash);
	for (int i = 0; i < t->nops; i++)
		fprintf(f, "#   %s\n", t->ops[i] + 3);
	fprintf(f,
		"FSLIST=\"%s\"\nTOOLS=\"%s\"\nSIG=%s\nNOPS=%d\n"
		"# The crash point in runs of writes between flushes (repro.c's crash_image).\n"
		"POINT=\"%s\"\nRPOINT=\"%s\"\n"
		"# What the last operation promised: sync, file|data[-range] PATH END, or none.\n"
		"PROMISE=\"%s\"\nCHECKER=\"%s\"\nREPLAY=\"%s\"\n",
		cp.fs, tools, t->sig, t->nops, cp.point, cp.rpoint, promise, checker, replayer);
	write_mkfs(f);
}

/* The constant host's library (src/mkfs/fixed_host.c, verbatim), which
 * repro.sh builds to make the images byte for byte as Themis made its own. */
static void write_shim_head(FILE *f, const char *path, const struct trace *t)
{
	(void)path, (void)t;
	fprintf(f, "/* mkfs-fixed.c: Themis's src/mkfs/fixed_host.c, for repro.sh's mkfs. */\n");
}

/* Write the file dir/name: the head, then the fixed parts. */
static int write_file(const char *dir, const char *name, const char *trace_path,
		      const struct trace *t,
		      void (*head)(FILE *, const char *, const struct trace *),
		      const char *const body[][2], int nbodies, mode_t mode, char *err,
		      size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	head(f, trace_path, t);
	bool ok = true;
	for (int i = 0; i < nbodies; i++) {
		size_t len = (size_t)(body[i][1] - body[i][0]);
		ok &= fwrite(body[i][0], 1, len, f) == len;
	}
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
	const char *const prog[][2] = {{proto_table_start, proto_table_end},
				       {proto_grammar_start, proto_grammar_end},
				       {proto_run_start, proto_run_end},
				       {repro_prog_start, repro_prog_end}};
	const char *const state[][2] = {{repro_setup_start, repro_setup_end},
					{repro_sh_start, repro_sh_end}};
	const char *const crash[][2] = {{repro_setup_start, repro_setup_end},
					{repro_crash_start, repro_crash_end}};
	bool crashed = t->crash[0] != 0;
	const char *const shim[][2] = {{mkfs_fixed_start, mkfs_fixed_end}};
	if (write_file(dir, "repro.c", trace_path, t, write_c_head, prog,
		       (int)(sizeof(prog) / sizeof(prog[0])), 0644, err, errlen) ||
	    write_file(dir, "mkfs-fixed.c", trace_path, t, write_shim_head, shim, 1, 0644, err,
		       errlen) ||
	    write_file(dir, "repro.sh", trace_path, t, crashed ? write_crash_head : write_sh_head,
		       crashed ? crash : state, 2, 0755, err, errlen))
		goto out;
	rc = 0;
out:
	free(t);
	return rc;
}
