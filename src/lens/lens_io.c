/* lens_io.c - the io lens (explore --lens io): each operation's own disk
 * requests, read from the disk's request log (disk.h) between before() and
 * after(), per filesystem: sectors read and written, flushes, and the set
 * of structures they touched, named by the layout map of each disk's base
 * image (layout.h). A sector the base image leaves free was allocated
 * during the run: it is named "new" (data, directory or tree blocks the
 * operations made; `themis profile` names them from the disk's current
 * layout instead, which costs a parse per operation).
 *
 * Words, per operation kind: calls, sectors read, sectors written,
 * flushes (summed), and the sets of structures read and written (OR-ed
 * bits of io_names below). Every discrepancy gets the operation's
 * signature as a note: "io: ext4 r 2 w 16 [inode-table,new]; xfs ...". */
#include <string.h>

#include "../check/check.h"
#include "../format/layout.h"
#include "../report/report_lens.h"
#include "lens.h"

enum { IO_CALLS, IO_READ, IO_WRITTEN, IO_FLUSHES, IO_RSET, IO_WSET, IO_WORDS };

/* The structures a set can name; anything else is "other". */
static const char *const io_names[] = {"superblock",
				       "superblock-backup",
				       "group-descriptors",
				       "block-bitmap",
				       "inode-bitmap",
				       "inode-table",
				       "directory",
				       "extent-tree",
				       "indirect",
				       "journal",
				       "xattr",
				       "data",
				       "symlink",
				       "log",
				       "new",
				       "other"};
#define IO_NNAMES (int)(sizeof(io_names) / sizeof(io_names[0]))
#define IO_NEW	  (IO_NNAMES - 2)
#define IO_OTHER  (IO_NNAMES - 1)

/* The last operation's requests on one disk. */
struct io_last {
	uint64_t read, written, flushes, rset, wset;
};

struct io_state {
	int nfs;
	const char *fs[CHECK_MAX_FS];
	struct layout map[CHECK_MAX_FS];
	bool mapped[CHECK_MAX_FS];  /* the base image parsed */
	uint64_t pos[CHECK_MAX_FS]; /* log length at before() */
	struct io_last last[CHECK_MAX_FS];
};

static void io_kinds(char *out)
{
	for (int k = 0; k < OP_NKINDS; k++)
		memcpy(out + k * IO_WORDS, "ssssoo", IO_WORDS);
}

static int io_attach(void *state, const struct check_config *cfg, const struct check_machine *m,
		     char *err, size_t errlen)
{
	(void)cfg, (void)err, (void)errlen;
	struct io_state *io = state;
	io->nfs = m->nfs;
	for (int i = 0; i < m->nfs; i++) {
		char why[256];
		io->fs[i] = m->fs[i];
		/* An image the map cannot parse still gets counts, named "other". */
		io->mapped[i] = m->images[i] &&
				layout_parse_file(&io->map[i], m->images[i], why, sizeof(why)) == 0;
	}
	return 0;
}

static void io_detach(void *state)
{
	struct io_state *io = state;
	for (int i = 0; i < io->nfs; i++)
		layout_free(&io->map[i]);
}

static void io_before(void *state, struct virt *v, const struct op *op)
{
	(void)op;
	struct io_state *io = state;
	const struct disk_req *log;
	for (int i = 0; i < io->nfs && i < v->ndisks; i++)
		io->pos[i] = disk_log(&v->disks[i], &log);
}

static int name_bit(const struct io_state *io, int disk, uint64_t lba)
{
	if (!io->mapped[disk])
		return IO_OTHER;
	const char *n = layout_name(&io->map[disk], lba);
	if (!strcmp(n, "free"))
		return IO_NEW;
	for (int b = 0; b < IO_NEW; b++)
		if (!strcmp(n, io_names[b]))
			return b;
	return IO_OTHER;
}

/* The structures of sectors [lba, lba + n), as a set of name bits. Long
 * runs are sampled per block-sized step: a structure is at least that. */
static uint64_t names_of(const struct io_state *io, int disk, uint64_t lba, uint64_t n)
{
	uint64_t set = 0, step = 8;
	for (uint64_t s = 0; s < n; s += step)
		set |= 1ull << name_bit(io, disk, lba + s);
	return set | 1ull << name_bit(io, disk, lba + n - 1);
}

static void set_text(uint64_t set, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = 0;
	for (int b = 0; b < IO_NNAMES && used < cap; b++)
		if (set >> b & 1)
			used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "",
						 io_names[b]);
}

static int io_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		    const struct op *op, const struct check_step *parent, struct check_step *s,
		    struct lens_out *out)
{
	(void)m, (void)parent, (void)s, (void)out;
	struct io_state *io = state;
	for (int i = 0; i < io->nfs && i < v->ndisks; i++) {
		const struct disk_req *log;
		uint64_t n = disk_log(&v->disks[i], &log);
		struct io_last *l = &io->last[i];
		*l = (struct io_last){0};
		for (uint64_t e = io->pos[i]; e < n; e++) {
			const struct disk_req *q = &log[e];
			if (q->kind == DISK_REQ_FLUSH) {
				l->flushes++;
			} else if (q->kind == DISK_REQ_READ) {
				l->read += q->count;
				l->rset |= names_of(io, i, q->sector, q->count);
			} else {
				l->written += q->count;
				l->wset |= names_of(io, i, q->sector, q->count);
			}
		}
	}
	if (io->nfs && (unsigned)op->kind < OP_NKINDS) { /* the first filesystem's */
		uint64_t *k = words + op->kind * IO_WORDS;
		const struct io_last *l = &io->last[0];
		k[IO_CALLS]++;
		k[IO_READ] += l->read;
		k[IO_WRITTEN] += l->written;
		k[IO_FLUSHES] += l->flushes;
		k[IO_RSET] |= l->rset;
		k[IO_WSET] |= l->wset;
	}
	return 0;
}

/* "io: ext4 r 2 w 16 f 1 [inode-table,new]; xfs r 0 w 0 f 0 []" */
static void io_note(const void *state, char *out, size_t cap)
{
	const struct io_state *io = state;
	size_t used = (size_t)snprintf(out, cap, "io:");
	for (int i = 0; i < io->nfs && used < cap; i++) {
		const struct io_last *l = &io->last[i];
		char names[160];
		set_text(l->wset, names, sizeof(names));
		used += (size_t)snprintf(out + used, cap - used, "%s %s r %llu w %llu f %llu [%s]",
					 i ? ";" : "", io->fs[i], (unsigned long long)l->read,
					 (unsigned long long)l->written,
					 (unsigned long long)l->flushes, names);
	}
}

static void io_report(const void *state, const uint64_t *words, FILE *f, bool json)
{
	(void)state;
	bool first = true;
	if (json)
		fprintf(f, "{");
	else
		fprintf(f, "io (first filesystem; sectors per call, structures written):\n");
	for (int k = 0; k < OP_NKINDS; k++) {
		const uint64_t *w = words + k * IO_WORDS;
		if (!w[IO_CALLS])
			continue;
		char rn[200], wn[200];
		set_text(w[IO_RSET], rn, sizeof(rn));
		set_text(w[IO_WSET], wn, sizeof(wn));
		double c = (double)w[IO_CALLS];
		if (json)
			fprintf(f,
				"%s\n      \"%s\": {\"calls\": %llu, \"sectors_read\": %llu, "
				"\"sectors_written\": %llu, \"flushes\": %llu, \"read\": \"%s\", "
				"\"written\": \"%s\"}",
				first ? "" : ",", op_name((enum op_kind)k),
				(unsigned long long)w[IO_CALLS], (unsigned long long)w[IO_READ],
				(unsigned long long)w[IO_WRITTEN],
				(unsigned long long)w[IO_FLUSHES], rn, wn);
		else
			fprintf(
			    f,
			    "  %-12s calls %-6llu read %6.1f  written %6.1f  flushes %4.2f  %s\n",
			    op_name((enum op_kind)k), (unsigned long long)w[IO_CALLS],
			    (double)w[IO_READ] / c, (double)w[IO_WRITTEN] / c,
			    (double)w[IO_FLUSHES] / c, wn);
		first = false;
	}
	if (json)
		fprintf(f, "\n    }");
}

static const struct lens_def io_lens = {
    .name = "io",
    .help = "each operation's disk requests: sectors read and written, flushes, structures",
    .order = 20,
    .one_machine = true,
    .words = OP_NKINDS * IO_WORDS,
    .state_size = sizeof(struct io_state),
    .kinds = io_kinds,
    .attach = io_attach,
    .before = io_before,
    .after = io_after,
    .note = io_note,
    .report = io_report,
    .detach = io_detach,
    .html = report_io,
};
LENS_REGISTER(io_lens);
