/* trace.c - see trace.h. Format:
 *   themis-trace 2
 *   fs ext4 xfs
 *   build HASH                (the machine's identity, identity.h: XXH3-128
 *   kernel PATH HASH           of each file's content)
 *   initrd PATH HASH
 *   image FS PATH HASH        (one per filesystem, in disk order)
 *   mem BYTES
 *   clock NS
 *   machine-seed N
 *   time 0|1
 *   durability off|drop-caches|remount   (absent: off)
 *   op ...                    (the operations from the root, in order; none:
 *                              the discrepancy is at the root)
 *   discrepancy SIG DETAIL    (what they lead to)
 *   end
 * A file that breaks the format, lacks `end`, or names files whose content
 * changed since is refused. Format 1 is format 2 without the build line,
 * and is read as such. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

#define TRACE_MAGIC    "themis-trace 2"
#define TRACE_MAGIC_V1 "themis-trace 1"
#define TRACE_ID_MAX   (16u << 10)

int trace_write(const char *path, const struct check_machine *m, char ops[][OP_TEXT_MAX], int nops,
		const char *sig, const char *detail, char *err, size_t errlen)
{
	struct identity *id = malloc(sizeof(*id));
	char *text = malloc(TRACE_ID_MAX);
	int rc = id && text ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "%s: cannot write the trace: out of memory", path);
	if (!rc && identity_take(id, m->kernel, m->initrd, m->images, m->fs, m->nfs, err, errlen))
		rc = -1;
	if (!rc && (text[0] = 0, identity_to_text(id, true, text, TRACE_ID_MAX) < 0)) {
		snprintf(err, errlen, "%s: cannot write the trace: paths too long", path);
		rc = -1;
	}
	FILE *f = rc ? NULL : fopen(path, "w");
	if (!rc && !f) {
		snprintf(err, errlen, "%s: cannot write the trace: %s", path, strerror(errno));
		rc = -1;
	}
	free(id);
	if (rc) {
		free(text);
		return -1;
	}
	fprintf(f, "%s\nfs", TRACE_MAGIC);
	for (int i = 0; i < m->nfs; i++)
		fprintf(f, " %s", m->fs[i]);
	fprintf(f, "\n%s", text);
	free(text);
	fprintf(f, "mem %llu\nclock %llu\nmachine-seed %llu\ntime %d\n", (unsigned long long)m->mem,
		(unsigned long long)m->clock_ns, (unsigned long long)m->machine_seed, m->time);
	fprintf(f, "durability %s\n", check_durability_name(m->durability));
	if (m->op_budget) /* a hang must replay as a hang */
		fprintf(f, "op-budget %llu\n", (unsigned long long)m->op_budget);
	for (int i = 0; i < nops; i++)
		fprintf(f, "%s\n", ops[i]);
	fprintf(f, "discrepancy %s %s\nend\n", sig, detail);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_line(struct trace *t, char *line, bool *done)
{
	struct check_machine *m = &t->m;
	char b[64];
	unsigned long long u;
	int n, id = identity_parse_line(&t->id, line);
	if (id)
		return id < 0 ? -1 : 0;
	if (!strncmp(line, "op ", 3)) {
		if (t->nops == TRACE_MAX_OPS || strlen(line) >= OP_TEXT_MAX ||
		    op_kind_of_text(line) < 0)
			return -1;
		strcpy(t->ops[t->nops++], line);
	} else if (!strncmp(line, "fs ", 3)) {
		char *p = line + 3;
		while (m->nfs < CHECK_MAX_FS && sscanf(p, "%15s%n", t->fsnames[m->nfs], &n) == 1) {
			m->fs[m->nfs] = t->fsnames[m->nfs];
			m->nfs++;
			p += n;
		}
	} else if (sscanf(line, "mem %llu", &u) == 1) {
		m->mem = u;
	} else if (sscanf(line, "clock %llu", &u) == 1) {
		m->clock_ns = u;
	} else if (sscanf(line, "machine-seed %llu", &u) == 1) {
		m->machine_seed = u;
	} else if (sscanf(line, "op-budget %llu", &u) == 1) {
		m->op_budget = u;
	} else if (sscanf(line, "time %llu", &u) == 1) {
		m->time = u != 0;
	} else if (sscanf(line, "durability %63s", b) == 1) {
		int d = check_durability_by_name(b);
		if (d < 0)
			return -1;
		m->durability = (enum check_durability)d;
	} else if (sscanf(line, "discrepancy %63s %n", t->sig, &n) == 1) {
		snprintf(t->detail, sizeof(t->detail), "%s", line + n);
	} else if (!strcmp(line, "end")) {
		*done = true;
	} else {
		return -1;
	}
	return 0;
}

/* The files the trace names, as they are now, against its record. */
static int check_files(const char *path, struct trace *t, bool check_kernel, char *err,
		       size_t errlen)
{
	struct check_machine *m = &t->m;
	struct identity *now = malloc(sizeof(*now));
	char why[1100];
	unsigned parts = IDENTITY_INITRD | IDENTITY_IMAGES | (check_kernel ? IDENTITY_KERNEL : 0);
	int rc = now ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "%s: out of memory", path);
	if (!rc && identity_take(now, check_kernel ? m->kernel : NULL, m->initrd, m->images, m->fs,
				 m->nfs, why, sizeof(why))) {
		snprintf(err, errlen, "the trace names a file that cannot be read: %s", why);
		rc = -1;
	}
	if (!rc && identity_diff(&t->id, now, parts, why, sizeof(why))) {
		snprintf(err, errlen,
			 "%s changed since the trace was recorded (another configuration: "
			 "rebuild it as it was, or record the trace again)",
			 why);
		rc = -1;
	}
	if (!rc)
		t->build = !t->id.build.known ? TRACE_BUILD_UNKNOWN
			   : identity_diff(&t->id, now, IDENTITY_BUILD, why, sizeof(why))
			       ? TRACE_BUILD_OTHER
			       : TRACE_BUILD_SAME;
	free(now);
	return rc;
}

int trace_read(const char *path, struct trace *t, bool check_kernel, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048];
	int lineno = 0, rc = 0;
	bool done = false;
	if (!fgets(line, sizeof(line), f) ||
	    (strcmp(line, TRACE_MAGIC "\n") && strcmp(line, TRACE_MAGIC_V1 "\n"))) {
		fclose(f);
		snprintf(err, errlen, "%s: not a Themis trace (no '%s' header)", path, TRACE_MAGIC);
		return -1;
	}
	while (rc == 0 && !done && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		rc = parse_line(t, line, &done);
	}
	fclose(f);
	struct check_machine *m = &t->m;
	if (rc || !done) {
		snprintf(err, errlen, "%s: damaged trace (%s line %d)", path,
			 rc ? "bad" : "no 'end' after", lineno + 1);
		return -1;
	}
	const struct identity *id = &t->id;
	if (m->nfs < 1 || id->nimages != m->nfs || !id->kernel.known || !id->kernel.path[0] ||
	    !id->initrd.known || !id->initrd.path[0] || !m->mem || !t->sig[0]) {
		snprintf(err, errlen, "%s: damaged trace (incomplete header)", path);
		return -1;
	}
	m->kernel = id->kernel.path;
	m->initrd = id->initrd.path;
	for (int i = 0; i < m->nfs; i++) {
		if (!id->images[i].path[0]) {
			snprintf(err, errlen, "%s: damaged trace (image %d has no path)", path, i);
			return -1;
		}
		m->images[i] = id->images[i].path;
	}
	return check_files(path, t, check_kernel, err, errlen);
}
