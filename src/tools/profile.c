/* profile.c - see profile.h. One machine holds every filesystem's disk;
 * the agent applies each operation to all of them at once, and each
 * disk's request log tells what that filesystem asked of its disk. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../util/clock.h"
#include "../util/array.h"
#include "profile.h"

/* The populated state every measure starts from (see profile.h), which
 * the operation table's examples (op_table.h) are written against; the
 * measures run each operation with the agent's `run` (no tree walk after
 * it) and unmount and mount with `umount` and `mount` (no walk either),
 * so a disk's log holds the operation's own requests only. */
static const char *const populate_ops[] = {
    "op mkdir d0 0755",		  "op mkdir e0 0755",
    "op create f0 0644 -",	  "op write f0 0 8192 1 -",
    "op create d0/f1 0644 -",	  "op write d0/f1 0 65536 2 -",
    "op setxattr f0 user.a 16 3", "op sync",
};

static int add_op(struct op *ops, int n, int max, const char *text)
{
	if (n < max)
		check_op_of_text(text, &ops[n++]);
	return n;
}

int profile_ops(uint32_t mask, const unsigned long *sizes, int nsizes, struct op *ops, int max)
{
	int n = 0;
	char text[OP_TEXT_MAX];
	for (int k = 0; k < OP_NKINDS; k++) {
		if (!(mask >> k & 1))
			continue;
		if (k == OP_WRITE) {
			for (int i = 0; i < (nsizes ? nsizes : 21); i++) {
				snprintf(text, sizeof(text), "op write f0 0 %lu 9 -",
					 nsizes ? sizes[i] : 1ul << i);
				n = add_op(ops, n, max, text);
			}
			continue;
		}
		snprintf(text, sizeof(text), "op %s", op_example((enum op_kind)k));
		n = add_op(ops, n, max, text);
		if (k == OP_READ) /* a small cat and a 64 KiB one */
			n = add_op(ops, n, max, "op read d0/f1 0 65536");
	}
	return n;
}

/* ---- the log since a mark, as named ranges ---- */

struct span {
	uint64_t lba, count;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lba < y->lba ? -1 : x->lba > y->lba;
}

/* The first range of the map starting after lba, or the disk's end. */
static uint64_t next_start(const struct layout *map, uint64_t lba)
{
	size_t lo = 0, hi = map->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (map->r[mid].lba <= lba)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < map->n ? map->r[lo].lba : UINT64_MAX;
}

static void add_run(struct profile_io *io, uint64_t lba, uint64_t count, const char *name)
{
	struct profile_run *last = io->nruns ? &io->runs[io->nruns - 1] : NULL;
	if (last && last->lba + last->count == lba && !strcmp(last->structure, name)) {
		last->count += count;
		return;
	}
	if (io->nruns == PROFILE_MAX_RUNS) {
		io->truncated = true;
		return;
	}
	struct profile_run *r = &io->runs[io->nruns++];
	r->lba = lba, r->count = count;
	snprintf(r->structure, sizeof(r->structure), "%s", name);
}

/* Cut [lba, lba + n) at the map's structure boundaries. */
static void name_span(struct profile_io *io, const struct layout *map, uint64_t lba, uint64_t n)
{
	for (uint64_t end = lba + n; lba < end;) {
		const struct layout_range *r = map ? layout_find(map, lba) : NULL;
		uint64_t stop = r ? r->lba + r->count : map ? next_start(map, lba) : end;
		stop = stop < end ? stop : end;
		add_run(io, lba, stop - lba, r ? r->structure : map ? "free" : "unknown");
		lba = stop;
	}
}

/* Requests of `kind` in the log from `from`: their sectors summed, and the
 * sectors they cover merged into ranges named by map (NULL: "unknown"). */
static int collect(const struct disk *d, uint64_t from, enum disk_req_kind kind,
		   const struct layout *map, struct profile_io *io)
{
	const struct disk_req *log;
	uint64_t n = disk_log(d, &log), ns = 0;
	memset(io, 0, sizeof(*io));
	struct span *sp = malloc(sizeof(*sp) * (n > from ? n - from : 1));
	if (!sp)
		return -1;
	for (uint64_t e = from; e < n; e++)
		if (log[e].kind == kind && log[e].count) {
			io->sectors += log[e].count;
			sp[ns++] = (struct span){log[e].sector, log[e].count};
		}
	qsort(sp, ns, sizeof(*sp), span_cmp);
	for (uint64_t i = 0; i < ns;) {
		uint64_t a = sp[i].lba, b = sp[i].lba + sp[i].count;
		for (i++; i < ns && sp[i].lba <= b; i++)
			b = sp[i].lba + sp[i].count > b ? sp[i].lba + sp[i].count : b;
		name_span(io, map, a, b - a);
	}
	free(sp);
	return 0;
}

/* ---- measuring ---- */

/* Run an operation with the agent's `run`: its results, and no walk of
 * the tree after it, so the disks see the operation's own requests. */
static int run_op(struct virt *v, const struct check_machine *m, const struct op *op,
		  struct check_step *st, char *err, size_t errlen)
{
	char cmd[OP_TEXT_MAX + 8];
	snprintf(cmd, sizeof(cmd), AGENT_WORD(run, " %s"), op->text + 3);
	if (check_apply(v, m->nfs, cmd, st, err, errlen))
		return -1;
	return check_parse_reply(v->log, m->nfs, CHECK_REPLY_R, st, err, errlen);
}

static void log_marks(struct virt *v, int nfs, uint64_t *mark)
{
	const struct disk_req *log;
	for (int i = 0; i < nfs; i++)
		mark[i] = disk_log(&v->disks[i], &log);
}

static struct profile_entry *new_entries(struct profile_result *r, int nfs)
{
	return array_grow((void **)&r->e, &r->n, &r->cap, sizeof(*r->e), nfs);
}

/* What the operation and a sync wrote, named by each disk's layout after. */
static int measure_writes(struct virt *v, const struct check_machine *m, const struct op *op,
			  struct profile_entry *e, char *err, size_t errlen)
{
	uint64_t mark[CHECK_MAX_FS];
	struct check_step st;
	log_marks(v, m->nfs, mark);
	if (virt_fork(v))
		return snprintf(err, errlen, "cannot fork the machine"), -1;
	int rc = run_op(v, m, op, &st, err, errlen);
	for (int i = 0; i < m->nfs && !rc; i++) {
		e[i].ret = st.ret[i];
		snprintf(e[i].err, sizeof(e[i].err), "%s", st.err[i]);
	}
	struct check_step sy;
	struct op sync_op;
	check_op_of_text("op sync", &sync_op);
	if (!rc)
		rc = run_op(v, m, &sync_op, &sy, err, errlen);
	for (int i = 0; i < m->nfs && !rc; i++) {
		struct layout after;
		char why[256];
		struct disk *d = &v->disks[i];
		bool mapped =
		    layout_parse(&after, disk_read_bytes, d, d->size, why, sizeof(why)) == 0;
		rc = collect(d, mark[i], DISK_REQ_WRITE, mapped ? &after : NULL, &e[i].written);
		layout_free(&after);
	}
	virt_release(v);
	return rc;
}

/* What the operation read cold, after an unmount and a mount. */
static int measure_reads(struct virt *v, const struct check_machine *m, const struct op *op,
			 struct profile_result *r, struct profile_entry *e, char *err,
			 size_t errlen)
{
	uint64_t mark[CHECK_MAX_FS];
	struct check_step st;
	if (virt_fork(v))
		return snprintf(err, errlen, "cannot fork the machine"), -1;
	log_marks(v, m->nfs, mark);
	int rc = check_apply(v, m->nfs, AGENT_WORD(umount), &st, err, errlen);
	if (!rc)
		rc = check_apply(v, m->nfs, AGENT_WORD(mount), &st, err, errlen);
	for (int i = 0; i < m->nfs && !rc; i++) {
		struct profile_io base;
		rc = collect(&v->disks[i], mark[i], DISK_REQ_READ, NULL, &base);
		r->mount_baseline[i] = base.sectors;
	}
	log_marks(v, m->nfs, mark);
	if (!rc)
		rc = run_op(v, m, op, &st, err, errlen);
	for (int i = 0; i < m->nfs && !rc; i++)
		rc = collect(&v->disks[i], mark[i], DISK_REQ_READ, &r->map[i], &e[i].read);
	virt_release(v);
	return rc;
}

static uint64_t write_bytes(const struct op *op)
{
	char path[64];
	unsigned long long off, size;
	if (op->kind != OP_WRITE ||
	    sscanf(op->text, "op write %63s %llu %llu", path, &off, &size) != 3)
		return 0;
	return size;
}

static int populate(struct virt *v, const struct check_machine *m, char *err, size_t errlen)
{
	uint32_t common = OP_ALL_MASK;
	for (int i = 0; i < m->nfs; i++)
		common &= ~rules_unsupported(m->rules, m->fs[i]);
	for (size_t i = 0; i < sizeof(populate_ops) / sizeof(populate_ops[0]); i++) {
		struct check_step st;
		if (op_kind_of_text(populate_ops[i]) == OP_SETXATTR && !(common & OPB(SETXATTR)))
			continue;
		if (check_apply(v, m->nfs, populate_ops[i], &st, err, errlen))
			return -1;
		for (int d = 0; d < m->nfs; d++)
			if (strcmp(st.err[d], "0")) {
				snprintf(err, errlen, "populating: '%s' failed on %s: %s",
					 populate_ops[i], m->fs[d], st.err[d]);
				return -1;
			}
	}
	/* A second passes before the operations measured, as it would between
	 * making a tree and using it: the guest's clock stands still through
	 * each operation (virt_hold_time), so without it a write would stamp
	 * the mtime already there and never dirty its inode. */
	struct check_step st;
	return check_apply(v, m->nfs, AGENT_WORD(sleep, " 1"), &st, err, errlen);
}

struct virt *profile_machine(const struct check_machine *m, char *err, size_t errlen)
{
	struct virt *v = calloc(1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (check_boot(v, m, err, errlen)) { /* it freed what it built */
		free(v);
		return NULL;
	}
	if (populate(v, m, err, errlen)) {
		virt_free(v);
		free(v);
		return NULL;
	}
	return v;
}

int profile_run(const struct check_machine *m, const struct op *ops, int nops,
		struct profile_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->nfs = m->nfs;
	for (int i = 0; i < m->nfs; i++)
		snprintf(r->fs[i], sizeof(r->fs[i]), "%s", m->fs[i]);
	struct virt *v = profile_machine(m, err, errlen);
	if (!v)
		return -1;
	for (int i = 0; i < m->nfs; i++) {
		struct disk *d = &v->disks[i];
		char why[256];
		if (layout_parse(&r->map[i], disk_read_bytes, d, d->size, why, sizeof(why)))
			fprintf(stderr, "themis: profile: %s: no layout map (%s): ranges unnamed\n",
				m->fs[i], why);
	}
	int rc = 0;
	double t0 = host_seconds();
	for (int k = 0; k < nops && !rc; k++) {
		struct profile_entry *e = new_entries(r, m->nfs);
		if (!e) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		for (int i = 0; i < m->nfs; i++) {
			snprintf(e[i].fs, sizeof(e[i].fs), "%s", m->fs[i]);
			snprintf(e[i].op, sizeof(e[i].op), "%s", ops[k].text + 3);
			e[i].kind = ops[k].kind;
			e[i].bytes = write_bytes(&ops[k]);
		}
		rc = measure_writes(v, m, &ops[k], e, err, errlen);
		if (!rc)
			rc = measure_reads(v, m, &ops[k], r, e, err, errlen);
	}
	r->seconds = host_seconds() - t0;
	virt_free(v);
	free(v);
	return rc;
}

void profile_free(struct profile_result *r)
{
	for (int i = 0; i < r->nfs; i++)
		layout_free(&r->map[i]);
	free(r->e);
	memset(r, 0, sizeof(*r));
}

/* ---- output ---- */

static double amplification(const struct profile_entry *e)
{
	return e->bytes ? (double)e->written.sectors * DISK_SECTOR_SIZE / (double)e->bytes : 0;
}

/* "12+2 inode-table, 300+2 block-bitmap" into out. */
static void runs_text(const struct profile_io *io, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < io->nruns && used < cap; i++)
		used +=
		    (size_t)snprintf(out + used, cap - used, "%s%llu+%llu %s", i ? ", " : "",
				     (unsigned long long)io->runs[i].lba,
				     (unsigned long long)io->runs[i].count, io->runs[i].structure);
	if (io->truncated && used < cap)
		snprintf(out + used, cap - used, ", ...");
}

void profile_print(const struct profile_result *r, FILE *f)
{
	fprintf(f, "mount baseline (sectors read by unmount + mount):");
	for (int i = 0; i < r->nfs; i++)
		fprintf(f, " %s %llu", r->fs[i], (unsigned long long)r->mount_baseline[i]);
	fprintf(f, "\n%-8s %-34s %8s %8s %9s  %s\n", "fs", "operation", "written", "read",
		"amplif.", "sectors written (lba+count structure)");
	for (int k = 0; k < r->n; k++) {
		const struct profile_entry *e = &r->e[k];
		char runs[512], amp[16] = "-";
		runs_text(&e->written, runs, sizeof(runs));
		if (e->bytes)
			snprintf(amp, sizeof(amp), "%.1fx", amplification(e));
		fprintf(f, "%-8s %-34.34s %8llu %8llu %9s  %s%s%s\n", e->fs, e->op,
			(unsigned long long)e->written.sectors, (unsigned long long)e->read.sectors,
			amp, runs, strcmp(e->err, "0") ? "  result " : "",
			strcmp(e->err, "0") ? e->err : "");
	}
	fprintf(f, "%d measures (each a write fork and a cold-read fork) in %.2f s: %.1f ms each\n",
		r->n, r->seconds, r->n ? 1000 * r->seconds / r->n : 0.0);
}

static void json_runs(const struct profile_io *io, FILE *f)
{
	fprintf(f, "[");
	for (int i = 0; i < io->nruns; i++)
		fprintf(f, "%s{\"lba\": %llu, \"count\": %llu, \"structure\": \"%s\"}",
			i ? ", " : "", (unsigned long long)io->runs[i].lba,
			(unsigned long long)io->runs[i].count, io->runs[i].structure);
	fprintf(f, "]");
}

void profile_json(const struct profile_result *r, FILE *f)
{
	fprintf(f, "{\n");
	profile_json_members(r, f);
	fprintf(f, "\n}\n");
}

void profile_json_members(const struct profile_result *r, FILE *f)
{
	fprintf(f, "  \"mount_baseline\": {");
	for (int i = 0; i < r->nfs; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", r->fs[i],
			(unsigned long long)r->mount_baseline[i]);
	fprintf(f, "},\n  \"profile\": [");
	for (int k = 0; k < r->n; k++) {
		const struct profile_entry *e = &r->e[k];
		fprintf(f,
			"%s\n    {\"fs\": \"%s\", \"op\": \"%s\", \"command\": \"%s\", \"bytes\": "
			"%llu, \"result\": \"%s\", \"sectors_written\": %llu, \"sectors_read\": "
			"%llu, \"amplification\": %.3f,\n     \"written\": ",
			k ? "," : "", e->fs, op_name(e->kind), e->op, (unsigned long long)e->bytes,
			e->err, (unsigned long long)e->written.sectors,
			(unsigned long long)e->read.sectors, amplification(e));
		json_runs(&e->written, f);
		fprintf(f, ",\n     \"read\": ");
		json_runs(&e->read, f);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]");
}
