/* trace.h - a discrepancy written out so it can be re-run: the machine
 * (filesystems; the identity of identity.h: the build, kernel, initrd and
 * base images with their content hashes; RAM, clock, seeds) and the
 * operations from the root, in order, then the discrepancy they lead to. A
 * plain text file, one item a line. */
#ifndef THEMIS_TRACE_H
#define THEMIS_TRACE_H

#include <stddef.h>

#include "../machine/identity.h"
#include "check.h"

#define TRACE_MAX_OPS 256

/* How the build that recorded a trace compares with this one. */
enum trace_build {
	TRACE_BUILD_SAME,
	TRACE_BUILD_OTHER,   /* another build of themis recorded it */
	TRACE_BUILD_UNKNOWN, /* recorded before traces named their build */
};

struct trace {
	struct check_machine m; /* its paths point into id */
	struct identity id;	/* as recorded */
	enum trace_build build;
	char fsnames[CHECK_MAX_FS][16];
	char ops[TRACE_MAX_OPS][OP_TEXT_MAX];
	int nops;
	char crash[OP_TEXT_MAX]; /* the crash step after them ("crash POINT"; "": none) */
	char sig[64];		 /* the discrepancy's signature */
	char detail[CHECK_DETAIL_MAX];
	int version;		  /* the format's */
	char kernel_version[512]; /* the kernel's banner as recorded ("": none) */
	/* The second kernel of a run of two (m.kernel_b points into it; not
	 * known: one kernel), and its banner. */
	struct identity_file kernel_b;
	char kernel_b_version[512];
	char options[1024]; /* the exploring run's options as recorded */
	/* The rules in force when it was recorded (rules.h): their hash and
	 * folder ("": a trace from before rules were files). */
	char rules_dir[1024];
	uint64_t rules_hash;
	/* Files found elsewhere than recorded (beside the trace, or by
	 * content in the build), in words for the caller to say; "" if none. */
	char notes[4 * IDENTITY_PATH_MAX];
};

/* The kernel's banner ("Linux version 6.1.192 (...) #1 ..."), read from
 * the Image's bytes, into out ("" when it has none: another kind of file). */
void trace_kernel_version(const char *path, char *out, size_t cap);

/* The lines a trace begins with, before its operations: the machine's
 * identity (its files' hashes), the kernels' banners and its settings, a
 * function of the check_machine alone. Taking them reads the kernel,
 * initramfs and images whole, hundreds of MB: a run's traces share one
 * head, taken by the first trace_write given it. {0}: not taken yet. */
struct trace_head {
	char *text;
};

void trace_head_free(struct trace_head *h);

/* Write a trace, its head from `head` (taken first if it is not yet;
 * NULL: taken for this trace alone); 0 or -1 with err. */
int trace_write(const char *path, struct trace_head *head, const struct check_machine *m,
		char ops[][OP_TEXT_MAX], int nops, const char *sig, const char *detail, char *err,
		size_t errlen);

/* Read a trace's text alone: its lines well formed and complete, the
 * files it names not looked at (m's paths are not set). 0 or -1 with err
 * naming the file and line. */
int trace_parse(const char *path, struct trace *t, char *err, size_t errlen);

/* Read a trace and check that its kernel, initrd and images are the ones
 * it was recorded with (each found at its recorded path, beside the trace,
 * or by content among the build's files: t->notes says which moved) (the kernel only if
 * check_kernel: a replay may run the operations on another kernel on purpose). 0 or -1 with err
 * (damaged, naming the file and line, or another setup). Another build is not refused: t->build
 * says, and the caller warns (the operations replay the same, the run may not be bit for bit the
 * recorded one). */
int trace_read(const char *path, struct trace *t, bool check_kernel, char *err, size_t errlen);

#endif
