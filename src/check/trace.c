/* trace.c - see trace.h. Format:
 *   themis-trace 1
 *   fs ext4 xfs
 *   kernel PATH HASH          (XXH3-128 of the file's content)
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
 * changed since is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../machine/snapshot.h"
#include "trace.h"

#define TRACE_MAGIC "themis-trace 1"

/* The file's content hash as 32 hex digits. */
static bool file_hash(const char *path, char out[33])
{
	uint8_t h[16];
	if (!virt_file_hash(path, h))
		return false;
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
	return true;
}

int trace_write(const char *path, const struct check_machine *m, char ops[][OP_TEXT_MAX], int nops,
		const char *sig, const char *detail, char *err, size_t errlen)
{
	char hk[33], hi[33], himg[CHECK_MAX_FS][33];
	bool ok = file_hash(m->kernel, hk) && file_hash(m->initrd, hi);
	for (int i = 0; ok && i < m->nfs; i++)
		ok = file_hash(m->images[i], himg[i]);
	FILE *f = ok ? fopen(path, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "%s: cannot write the trace: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "%s\nfs", TRACE_MAGIC);
	for (int i = 0; i < m->nfs; i++)
		fprintf(f, " %s", m->fs[i]);
	fprintf(f, "\nkernel %s %s\ninitrd %s %s\n", m->kernel, hk, m->initrd, hi);
	for (int i = 0; i < m->nfs; i++)
		fprintf(f, "image %s %s %s\n", m->fs[i], m->images[i], himg[i]);
	fprintf(f, "mem %llu\nclock %llu\nmachine-seed %llu\ntime %d\n", (unsigned long long)m->mem,
		(unsigned long long)m->clock_ns, (unsigned long long)m->machine_seed, m->time);
	fprintf(f, "durability %s\n", check_durability_name(m->durability));
	for (int i = 0; i < nops; i++)
		fprintf(f, "%s\n", ops[i]);
	fprintf(f, "discrepancy %s %s\nend\n", sig, detail);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Check a recorded file against the one on disk now. */
static int check_file(const char *what, const char *path, const char *hash, char *err,
		      size_t errlen)
{
	char now[33];
	if (!file_hash(path, now)) {
		snprintf(err, errlen, "the trace's %s %.300s cannot be read", what, path);
		return -1;
	}
	if (strcmp(now, hash)) {
		snprintf(err, errlen,
			 "the trace's %s %.300s changed since it was recorded (another "
			 "configuration: rebuild it as it was, or record the trace again)",
			 what, path);
		return -1;
	}
	return 0;
}

static int parse_line(struct trace *t, char *line, int *nimg, bool *done, bool check_kernel,
		      char *err, size_t errlen)
{
	struct check_machine *m = &t->m;
	char a[1024], b[64], c[64];
	unsigned long long u;
	int n;
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
	} else if (sscanf(line, "kernel %1023s %63s", a, b) == 2) {
		strcpy(t->paths[0], a);
		m->kernel = t->paths[0];
		return check_kernel && check_file("kernel", a, b, err, errlen) ? -2 : 0;
	} else if (sscanf(line, "initrd %1023s %63s", a, b) == 2) {
		strcpy(t->paths[1], a);
		m->initrd = t->paths[1];
		return check_file("initrd", a, b, err, errlen) ? -2 : 0;
	} else if (sscanf(line, "image %63s %1023s %63s", c, a, b) == 3 && *nimg < CHECK_MAX_FS) {
		int k = (*nimg)++;
		strcpy(t->paths[2 + k], a);
		m->images[k] = t->paths[2 + k];
		return check_file("image", a, b, err, errlen) ? -2 : 0;
	} else if (sscanf(line, "mem %llu", &u) == 1) {
		m->mem = u;
	} else if (sscanf(line, "clock %llu", &u) == 1) {
		m->clock_ns = u;
	} else if (sscanf(line, "machine-seed %llu", &u) == 1) {
		m->machine_seed = u;
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

int trace_read(const char *path, struct trace *t, bool check_kernel, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048];
	int lineno = 0, nimg = 0, rc = 0;
	bool done = false;
	if (!fgets(line, sizeof(line), f) || strncmp(line, TRACE_MAGIC, strlen(TRACE_MAGIC))) {
		fclose(f);
		snprintf(err, errlen, "%s: not a Themis trace (no '%s' header)", path, TRACE_MAGIC);
		return -1;
	}
	while (rc == 0 && !done && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		rc = parse_line(t, line, &nimg, &done, check_kernel, err, errlen);
	}
	fclose(f);
	if (rc == -1 || (rc == 0 && !done))
		snprintf(err, errlen, "%s: damaged trace (%s line %d)", path,
			 done ? "bad"
			 : rc ? "bad"
			      : "no 'end' after",
			 lineno + 1);
	if (rc == 0 && done &&
	    (t->m.nfs < 1 || nimg != t->m.nfs || !t->m.kernel || !t->m.initrd || !t->m.mem ||
	     !t->sig[0])) {
		snprintf(err, errlen, "%s: damaged trace (incomplete header)", path);
		return -1;
	}
	return rc == 0 && done ? 0 : -1;
}
