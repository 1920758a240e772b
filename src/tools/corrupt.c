/* corrupt.c - see corrupt.h. One machine per filesystem, booted and
 * populated as the profile's (profile_machine), unmounted clean, and a
 * fork per flip; the checker runs on the host beside the guest. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fs/fs.h"
#include "../machine/kline.h"
#include "../util/array.h"
#include "../util/clock.h"
#include "../util/json.h"
#include "../util/rng.h"
#include "corrupt.h"
#include "profile.h"

#define CORRUPT_MAX_CLASSES 64
#define CORRUPT_MAX_INOS    16

const char *corrupt_outcome_name(enum corrupt_outcome o)
{
	static const char *const names[] = {
#define CORRUPT_OUTCOME_NAME(name, text) text,
	    CORRUPT_OUTCOMES(CORRUPT_OUTCOME_NAME)
#undef CORRUPT_OUTCOME_NAME
	};
	return (unsigned)o < CORRUPT_NOUTCOMES ? names[o] : "?";
}

bool corrupt_checksummed(const char *fs, bool fields_csum)
{
	const struct fs_desc *d = fs_find(fs);
	return d && (d->csum == FS_CSUM_ALWAYS || (d->csum == FS_CSUM_IF_FIELDS && fields_csum));
}

bool corrupt_kernel_line(const char *line)
{
	/* A report that opens (splat.h: oops, BUG, KASAN, UBSAN, WARNING,
	 * hung task, RCU stall...), or the panic and stack dump that follow
	 * one the console cut off. */
	return splat_opens(line) != SPLAT_NONE || strstr(line, "Kernel panic") ||
	       strstr(line, "Call Trace:");
}

/* ---- comparing the trees ---- */

struct entry {
	const char *path, *rec;
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* The "e 0 PATH RECORD" lines of a dump, split in place in text (a copy
 * the caller frees), sorted by path. How many; -1 out of memory. */
static int parse_dump(char *text, struct entry **out)
{
	int n = 0, cap = 0;
	*out = NULL;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(l, "e 0 ", 4) && strcmp(l + 4, "unmounted")) {
			char *sp = strchr(l + 4, ' ');
			struct entry *e = array_grow((void **)out, &n, &cap, sizeof(**out), 1);
			if (!e)
				return free(*out), *out = NULL, -1;
			e->path = l + 4;
			e->rec = sp ? sp + 1 : "";
			if (sp)
				*sp = 0;
		}
		l = nl ? nl + 1 : NULL;
	}
	if (n)
		qsort(*out, (size_t)n, sizeof(**out), entry_cmp);
	return n;
}

/* The first field of two records that differs: "content=AB.. -> !EIO". */
static void first_diff(const char *path, const char *a, const char *b, char *out, size_t cap)
{
	while (*a && *b) {
		size_t la = strcspn(a, " "), lb = strcspn(b, " ");
		if (la != lb || memcmp(a, b, la)) {
			snprintf(out, cap, "%s: %.*s -> %.*s", path, (int)(la < 60 ? la : 60), a,
				 (int)(lb < 60 ? lb : 60), b);
			return;
		}
		a += la + (a[la] == ' ');
		b += lb + (b[lb] == ' ');
	}
	snprintf(out, cap, "%s: record differs", path);
}

enum corrupt_outcome corrupt_classify_tree(const char *base, const char *flipped, char *detail,
					   size_t detaillen)
{
	char *bt = strdup(base ? base : ""), *ft = strdup(flipped ? flipped : "");
	struct entry *be = NULL, *fe = NULL;
	int nb = bt ? parse_dump(bt, &be) : -1, nf = ft ? parse_dump(ft, &fe) : -1;
	detail[0] = 0;
	enum corrupt_outcome o = CORRUPT_NONE;
	if (nb < 0 || nf < 0) {
		snprintf(detail, detaillen, "out of memory comparing the trees");
		o = CORRUPT_ERROR;
		goto out;
	}
	char d[3][CORRUPT_DETAIL_MAX] = {"", "", ""}; /* error, lost, wrong */
	int i = 0, k = 0, lost = 0;
	while (i < nb || k < nf) {
		int c = i == nb ? 1 : k == nf ? -1 : strcmp(be[i].path, fe[k].path);
		if (c < 0) {
			lost++;
			if (!d[1][0])
				snprintf(d[1], sizeof(d[1]), "%s: missing", be[i].path);
			i++;
		} else if (c > 0) {
			if (strstr(fe[k].rec, "=!") && !d[0][0])
				first_diff(fe[k].path, "(none)", fe[k].rec, d[0], sizeof(d[0]));
			else if (!d[2][0])
				snprintf(d[2], sizeof(d[2]), "%s: appeared", fe[k].path);
			k++;
		} else {
			if (strcmp(be[i].rec, fe[k].rec)) {
				int which = strstr(fe[k].rec, "=!") ? 0 : 2;
				if (!d[which][0])
					first_diff(fe[k].path, be[i].rec, fe[k].rec, d[which],
						   sizeof(d[which]));
			}
			i++, k++;
		}
	}
	static const enum corrupt_outcome by[3] = {CORRUPT_ERROR, CORRUPT_LOST, CORRUPT_SILENT};
	for (int w = 0; w < 3; w++)
		if (d[w][0]) {
			o = by[w];
			snprintf(detail, detaillen, "%s", d[w]);
			break;
		}
	if (lost > 1 && o == CORRUPT_LOST) {
		size_t len = strlen(detail);
		snprintf(detail + len, detaillen - len, " (%d of %d entries lost)", lost, nb);
	}
out:
	free(be);
	free(fe);
	free(bt);
	free(ft);
	return o;
}

/* ---- one filesystem's machine ---- */

struct fs_run {
	const struct corrupt_config *cfg;
	const char *fs;
	int index; /* in the result's filesystems */
	struct virt *v;
	struct layout map;
	struct field_map fields;
	uint64_t inos[CORRUPT_MAX_INOS];
	int ninos;
	struct corrupt_image im;
	char *base_dump;
	char image[4096], out[4200]; /* the checker's scratch image and output */
	int image_fd;
	struct timespec image_mtime;
	bool base_clean; /* the checker found the counterfactual clean */
	char base_kernel[VIRT_CONSOLE_KEEP][CORRUPT_DETAIL_MAX]; /* what its mount printed */
	int nbase_kernel;
	struct kline *lines; /* the kernel's line tables (NULL: frames as printed) */
};

/* cmd (mount or umount) on the machine's one disk: 0 done; 1 refused,
 * the errno's name in why; -1 the guest failed (why). */
static int mount_cmd(struct virt *v, const char *cmd, char *why, size_t whylen)
{
	int64_t ret;
	char err[24];
	if (check_agent_result(v, cmd, &ret, err, why, whylen))
		return -1;
	if (ret == 0)
		return 0;
	snprintf(why, whylen, "%s", err);
	return 1;
}

/* The populated entries' inode numbers, from the agent's `times`. */
static void read_inos(struct fs_run *s)
{
	char why[256];
	s->ninos = 0;
	if (check_agent(s->v, 1, AGENT_WORD(times, " f0 d0/f1 d0 e0"), why, sizeof(why)))
		return;
	for (const char *l = s->v->log; l && (l = strstr(l, "ino=")) && s->ninos < CORRUPT_MAX_INOS;
	     l += 4) {
		unsigned long long ino;
		if (sscanf(l + 4, "%llu", &ino) == 1)
			s->inos[s->ninos++] = ino;
	}
}

static int stat_mtime(int fd, struct timespec *t)
{
	struct stat st;
	if (fstat(fd, &st))
		return -1;
	*t = st.st_mtim;
	return 0;
}

/* The scratch image the checker reads: the clean state, exported once,
 * into $TMPDIR, else /dev/shm (the checkers fsync the image they close,
 * which costs a tmpfs nothing), else /tmp. */
static int export_image(struct fs_run *s, char *err, size_t errlen)
{
	snprintf(s->image, sizeof(s->image), "%s/themis-flip-XXXXXX", corrupt_fsck_scratch_dir());
	s->image_fd = mkstemp(s->image);
	if (s->image_fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", s->image, strerror(errno));
		s->image[0] = 0;
		return -1;
	}
	snprintf(s->out, sizeof(s->out), "%s.fsck", s->image);
	char why[512];
	if (disk_save(&s->v->disks[0], s->image, why, sizeof(why)) ||
	    stat_mtime(s->image_fd, &s->image_mtime)) {
		snprintf(err, errlen, "exporting the %s disk: %s", s->fs, why);
		return -1;
	}
	return 0;
}

static int put_byte(struct fs_run *s, uint64_t off, uint8_t b)
{
	return pwrite(s->image_fd, &b, 1, (off_t)off) == 1 ? 0 : -1;
}

/* The kernel's console lines printed since `from`, those printk stamps
 * with its time ("[    1.234567] "; the agent's replies are echoed there
 * too), unstamped, into out: how many (the last VIRT_CONSOLE_KEEP at most). */
static int console_since(struct virt *v, unsigned from, char (*out)[CORRUPT_DETAIL_MAX])
{
	int n = 0;
	unsigned first =
	    v->nlines - from > VIRT_CONSOLE_KEEP ? v->nlines - VIRT_CONSOLE_KEEP : from;
	for (unsigned i = first; i < v->nlines; i++) {
		const char *l = v->lines[i % VIRT_CONSOLE_KEEP], *end = strchr(l, ']');
		if (l[0] != '[' || !end)
			continue;
		for (end++; *end == ' '; end++)
			;
		snprintf(out[n++], CORRUPT_DETAIL_MAX, "%s", end);
	}
	return n;
}

/* The kernel's lines since `from` that the counterfactual's mount and walk
 * did not print: the first into f->kernel (the first failing, if one
 * does), and whether one is the kernel failing. */
static bool kernel_lines(const struct fs_run *s, unsigned from, struct corrupt_flip *f)
{
	char lines[VIRT_CONSOLE_KEEP][CORRUPT_DETAIL_MAX];
	int n = console_since(s->v, from, lines);
	for (int i = 0; i < n; i++) {
		bool known = false;
		for (int k = 0; k < s->nbase_kernel && !known; k++)
			known = !strcmp(lines[i], s->base_kernel[k]);
		if (known)
			continue;
		if (corrupt_kernel_line(lines[i])) {
			snprintf(f->kernel, sizeof(f->kernel), "%.199s", lines[i]);
			return true;
		}
		if (!f->kernel[0])
			snprintf(f->kernel, sizeof(f->kernel), "%.199s", lines[i]);
	}
	return false;
}

/* Beyond the profile's tree: CORRUPT_SMALL_FILES empty files in e0, so
 * its directory blocks and the inode table hold more than a few live
 * records (empty: no data block with slack past the end of a file, where
 * a flip changes nothing and "data" would dilute), and, where the
 * filesystem has them, a symlink l0 to f0; then a sync. 0, or -1 with err. */
#define CORRUPT_SMALL_FILES 24
static int populate_more(struct fs_run *s, char *err, size_t errlen)
{
	char why[512] = "", cmd[64];
	bool links = !(rules_unsupported(s->cfg->m.rules, s->fs) & OPB(SYMLINK));
	for (int i = 0; i < CORRUPT_SMALL_FILES + 2; i++) {
		if (i < CORRUPT_SMALL_FILES)
			snprintf(cmd, sizeof(cmd), "op create e0/g%02d 0644 -", i);
		else if (i == CORRUPT_SMALL_FILES && links)
			snprintf(cmd, sizeof(cmd), "op symlink f0 l0");
		else
			snprintf(cmd, sizeof(cmd), "op sync");
		struct check_step st;
		if (check_apply(s->v, 1, cmd, &st, why, sizeof(why)) || strcmp(st.err[0], "0")) {
			snprintf(err, errlen, "%s: populating: '%s' failed: %.200s", s->fs, cmd,
				 why[0] ? why : st.err[0]);
			return -1;
		}
	}
	return 0;
}

/* The machine: booted, populated, unmounted clean; its maps; the
 * counterfactual's dump and checker verdict. */
static int setup(struct fs_run *s, struct corrupt_result *r, char *err, size_t errlen)
{
	struct check_machine m = s->cfg->m;
	m.nfs = 1;
	m.fs[0] = s->cfg->m.fs[s->index];
	m.images[0] = s->cfg->m.images[s->index];
	if (kline_open(&s->lines, m.kernel) < 0)
		return snprintf(err, errlen, "out of memory"), -1;
	s->v = profile_machine(&m, err, errlen);
	if (!s->v || populate_more(s, err, errlen))
		return -1;
	read_inos(s);
	char why[512];
	if (mount_cmd(s->v, AGENT_WORD(umount), why, sizeof(why))) {
		snprintf(err, errlen, "%s: unmounting the populated disk: %s", s->fs, why);
		return -1;
	}
	struct disk *d = &s->v->disks[0];
	if (layout_parse(&s->map, disk_read_bytes, d, d->size, why, sizeof(why))) {
		snprintf(err, errlen, "%s: no layout map of the populated disk: %s", s->fs, why);
		return -1;
	}
	if (field_map_build(&s->fields, disk_read_bytes, d, d->size, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: no field map of the populated disk: %s", s->fs, why);
		return -1;
	}
	s->im = (struct corrupt_image){s->fs,	 &s->map,	  &s->fields, s->inos,
				       s->ninos, disk_read_bytes, d,	      d->size};
	r->csum[s->index] = corrupt_checksummed(s->fs, s->fields.csum);
	if (export_image(s, err, errlen))
		return -1;
	struct corrupt_fsck fc;
	int status;
	corrupt_fsck_start(&fc, s->fs, s->image, s->out);
	if (virt_fork(s->v))
		return snprintf(err, errlen, "cannot fork the machine"), -1;
	unsigned from = s->v->nlines;
	int rc = mount_cmd(s->v, AGENT_WORD(mount), why, sizeof(why)) ? -1 : 0;
	if (!rc)
		rc = check_agent(s->v, 1, AGENT_WORD(dump), why, sizeof(why));
	if (!rc && !(s->base_dump = strdup(s->v->log ? s->v->log : "")))
		snprintf(why, sizeof(why), "out of memory"), rc = -1;
	s->nbase_kernel = console_since(s->v, from, s->base_kernel);
	virt_release(s->v);
	r->base_fsck[s->index] =
	    corrupt_fsck_wait(&fc, s->cfg->fsck_timeout, &status, r->base_said[s->index],
			      sizeof(r->base_said[s->index]));
	s->base_clean = r->base_fsck[s->index] == CORRUPT_FSCK_CLEAN;
	if (rc) {
		snprintf(err, errlen, "%s: the unflipped counterfactual: %s", s->fs, why);
		return -1;
	}
	return 0;
}

static void teardown(struct fs_run *s)
{
	kline_close(s->lines);
	if (s->v) {
		virt_free(s->v);
		free(s->v);
	}
	layout_free(&s->map);
	field_map_free(&s->fields);
	free(s->base_dump);
	if (s->image[0]) {
		close(s->image_fd);
		unlink(s->image);
		unlink(s->out);
	}
}

/* The report the flip's mount and walk made the kernel print, whole and
 * symbolized, into f->report (none opened: left NULL). 0, or -1 with err. */
static int keep_report(struct fs_run *s, struct corrupt_flip *f, char *err, size_t errlen)
{
	const struct splat_log *l = &s->v->splat;
	if (!l->opened)
		return 0;
	size_t cap = 2 * SPLAT_TEXT_MAX; /* the text and each frame's source line */
	if (!(f->report = malloc(cap)))
		return snprintf(err, errlen, "out of memory"), -1;
	kline_annotate(s->lines, l->text, f->report, cap);
	return 0;
}

/* In a fork: flip, mount, dump, compare. */
static int flip_in_fork(struct fs_run *s, struct corrupt_flip *f, char *err, size_t errlen)
{
	struct virt *v = s->v;
	struct disk *d = &v->disks[0];
	uint8_t sec[DISK_SECTOR_SIZE];
	char why[512];
	unsigned from = v->nlines;
	if (disk_read(d, f->lba, sec, 1))
		return snprintf(err, errlen, "%s: sector %llu is past the disk's end", s->fs,
				(unsigned long long)f->lba),
		       -1;
	sec[f->byte] ^= (uint8_t)(1u << f->bit);
	splat_mark(&v->splat);
	if (disk_write(d, f->lba, sec, 1)) /* the overlay: the base is read-only */
		return snprintf(err, errlen, "%s: cannot write the disk's overlay", s->fs), -1;
	if (s->cfg->save && disk_save(d, s->cfg->save, why, sizeof(why)))
		return snprintf(err, errlen, "--save: %s", why), -1;
	uint64_t budget = v->op_budget;
	v->op_budget = s->cfg->budget ? s->cfg->budget : budget; /* a hang is an outcome */
	int mounted = mount_cmd(v, AGENT_WORD(mount), why, sizeof(why)), rc = mounted < 0 ? -1 : 0;
	if (mounted > 0) {
		f->outcome = CORRUPT_UNMOUNTABLE;
		snprintf(f->detail, sizeof(f->detail), "mount: %.180s", why);
	} else if (!rc) {
		rc = check_agent(v, 1, AGENT_WORD(dump), why, sizeof(why));
		if (!rc)
			f->outcome = corrupt_classify_tree(s->base_dump, v->log, f->detail,
							   sizeof(f->detail));
	}
	v->op_budget = budget;
	bool oops = kernel_lines(s, from, f);
	if (rc) {
		f->outcome = CORRUPT_KERNEL;
		snprintf(f->detail, sizeof(f->detail), "%.190s", why);
		/* No report opened (a hang, a panic without one): the failure's
		 * whole line, where the hart spun included, is the report. */
		if (!v->splat.opened && !(f->report = strdup(why)))
			return snprintf(err, errlen, "out of memory"), -1;
	} else if (oops) {
		f->outcome = CORRUPT_KERNEL;
		snprintf(f->detail, sizeof(f->detail), "the kernel: %.180s", f->kernel);
	}
	return f->outcome == CORRUPT_KERNEL ? keep_report(s, f, err, errlen) : 0;
}

static int flip(struct fs_run *s, struct corrupt_flip *f, char *err, size_t errlen)
{
	uint64_t off = f->lba * DISK_SECTOR_SIZE + f->byte;
	uint8_t orig;
	if (disk_read_bytes(&s->v->disks[0], off, &orig, 1))
		return snprintf(err, errlen, "%s: byte %llu is past the disk's end", s->fs,
				(unsigned long long)off),
		       -1;
	struct corrupt_fsck fc;
	struct timespec before;
	if (put_byte(s, off, (uint8_t)(orig ^ (1u << f->bit))) || stat_mtime(s->image_fd, &before))
		return snprintf(err, errlen, "%s: %s", s->image, strerror(errno)), -1;
	corrupt_fsck_start(&fc, s->fs, s->image, s->out);
	if (virt_fork(s->v)) {
		corrupt_fsck_wait(&fc, 0, &f->fsck_status, f->fsck_said, sizeof(f->fsck_said));
		return snprintf(err, errlen, "cannot fork the machine"), -1;
	}
	int rc = flip_in_fork(s, f, err, errlen);
	virt_release(s->v);
	f->fsck = corrupt_fsck_wait(&fc, s->cfg->fsck_timeout, &f->fsck_status, f->fsck_said,
				    sizeof(f->fsck_said));
	struct timespec after;
	if (put_byte(s, off, orig) || stat_mtime(s->image_fd, &after))
		return snprintf(err, errlen, "%s: %s", s->image, strerror(errno)), -1;
	/* A checker that wrote the scratch image despite its read-only flag:
	 * export the clean state again. */
	if (after.tv_sec != before.tv_sec || after.tv_nsec != before.tv_nsec) {
		char why[512];
		if (disk_save(&s->v->disks[0], s->image, why, sizeof(why)))
			return snprintf(err, errlen, "%s", why), -1;
	}
	if (rc)
		return -1;
	if (f->outcome == CORRUPT_NONE && f->fsck == CORRUPT_FSCK_ERRORS && s->base_clean)
		f->outcome = CORRUPT_FSCK_ONLY;
	return 0;
}

/* ---- planning the flips ---- */

static struct corrupt_flip *new_flip(struct corrupt_result *r, const struct fs_run *s, uint64_t off,
				     unsigned bit, const char *structure)
{
	struct corrupt_flip *f = array_grow((void **)&r->f, &r->n, &r->cap, sizeof(*r->f), 1);
	if (!f)
		return NULL;
	snprintf(f->fs, sizeof(f->fs), "%s", s->fs);
	char layout_name[CORRUPT_NAME_MAX];
	corrupt_target_name(&s->im, off, layout_name, f->field, sizeof(f->field));
	snprintf(f->structure, sizeof(f->structure), "%s", structure ? structure : layout_name);
	f->lba = off / DISK_SECTOR_SIZE;
	f->byte = (unsigned)(off % DISK_SECTOR_SIZE);
	f->bit = bit;
	f->outcome = CORRUPT_NONE;
	f->fsck_status = -1;
	return f;
}

static int run_one(struct fs_run *s, struct corrupt_result *r, uint64_t off, unsigned bit,
		   const char *structure, char *err, size_t errlen)
{
	struct corrupt_flip *f = new_flip(r, s, off, bit, structure);
	if (!f)
		return snprintf(err, errlen, "out of memory"), -1;
	if (flip(s, f, err, errlen))
		return -1;
	if (s->cfg->progress)
		fprintf(stderr, "themis: corrupt: %s %s%s%s %llu:%u:%u -> %s (fsck %s) %s\n", f->fs,
			f->structure, f->field[0] ? ":" : "", f->field, (unsigned long long)f->lba,
			f->byte, f->bit, corrupt_outcome_name(f->outcome),
			corrupt_fsck_name(f->fsck), f->detail);
	for (const char *l = f->report; s->cfg->progress && l && *l; l += strcspn(l, "\n") + 1)
		fprintf(stderr, "themis: corrupt:     %.*s\n", (int)strcspn(l, "\n"), l);
	return 0;
}

/* cfg->bits flips at bits of the target drawn from rng. */
static int run_target(struct fs_run *s, struct corrupt_result *r, const char *structure,
		      const char *field, uint64_t *rng, char *err, size_t errlen)
{
	struct corrupt_target t;
	if (corrupt_target_resolve(&s->im, structure, field, &t, err, errlen))
		return -1;
	int rc = 0;
	for (const char *p = structure; *p; p++) /* each target its own draws */
		*rng = (*rng ^ (uint8_t)*p) * 0x100000001b3ULL;
	for (int k = 0; k < s->cfg->bits && !rc; k++) {
		uint64_t b = splitmix64(rng) % (t.bytes * 8);
		rc = run_one(s, r, corrupt_target_byte(&t, b), (unsigned)(b % 8), structure, err,
			     errlen);
	}
	corrupt_target_free(&t);
	return rc;
}

static int run_fs(struct fs_run *s, struct corrupt_result *r, char *err, size_t errlen)
{
	const struct corrupt_config *cfg = s->cfg;
	double t0 = host_seconds();
	if (setup(s, r, err, errlen))
		return -1;
	double t1 = host_seconds();
	r->setup_seconds += t1 - t0;
	uint64_t rng = cfg->seed;
	for (const char *p = s->fs; *p; p++) /* each filesystem its own sequence */
		rng = (rng ^ (uint8_t)*p) * 0x100000001b3ULL;
	int rc = 0;
	if (cfg->at) {
		rc = run_one(s, r, cfg->at_lba * DISK_SECTOR_SIZE + cfg->at_byte, cfg->at_bit, NULL,
			     err, errlen);
	} else if (cfg->target) {
		char structure[CORRUPT_NAME_MAX], field[CORRUPT_NAME_MAX];
		rc = corrupt_target_split(s->fs, cfg->target, structure, field, err, errlen);
		if (!rc)
			rc = run_target(s, r, structure, field, &rng, err, errlen);
	} else {
		char names[CORRUPT_MAX_CLASSES][CORRUPT_NAME_MAX];
		int n = corrupt_target_classes(&s->im, names, CORRUPT_MAX_CLASSES);
		for (int i = 0; i < n && !rc; i++) {
			char why[256];
			if (run_target(s, r, names[i], "", &rng, why, sizeof(why)))
				fprintf(stderr, "themis: corrupt: %s: %s skipped: %s\n", s->fs,
					names[i], why);
		}
	}
	r->seconds += host_seconds() - t1;
	return rc;
}

int corrupt_validate(const struct corrupt_config *cfg, char *err, size_t errlen)
{
	if (!cfg->target)
		return 0;
	for (int i = 0; i < cfg->m.nfs; i++) {
		char structure[CORRUPT_NAME_MAX], field[CORRUPT_NAME_MAX], why[256];
		struct layout base;
		bool mapped = !layout_parse_file(&base, cfg->m.images[i], why, sizeof(why));
		int rc =
		    corrupt_target_split(cfg->m.fs[i], cfg->target, structure, field, err, errlen);
		if (!rc)
			rc = corrupt_target_check(cfg->m.fs[i], structure, field,
						  mapped ? &base : NULL, err, errlen);
		layout_free(&base);
		if (rc)
			return -1;
	}
	return 0;
}

int corrupt_run(const struct corrupt_config *cfg, struct corrupt_result *r, char *err,
		size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->nfs = cfg->m.nfs;
	r->budget = cfg->budget;
	int rc = 0;
	for (int i = 0; i < cfg->m.nfs && !rc; i++) {
		snprintf(r->fs[i], sizeof(r->fs[i]), "%s", cfg->m.fs[i]);
		struct fs_run s = {.cfg = cfg, .fs = cfg->m.fs[i], .index = i, .image_fd = -1};
		rc = run_fs(&s, r, err, errlen);
		teardown(&s);
	}
	return rc;
}

void corrupt_free(struct corrupt_result *r)
{
	for (int k = 0; k < r->n; k++)
		free(r->f[k].report);
	free(r->f);
	memset(r, 0, sizeof(*r));
}

/* ---- output ---- */

/* Whether the flip was told to someone: an error returned, a refused
 * mount, or the checker (its verdict on the counterfactual clean). A
 * warning in the kernel's log alone is not: it is counted apart. */
static bool detected(const struct corrupt_result *r, const struct corrupt_flip *f, int fs)
{
	return f->outcome == CORRUPT_ERROR || f->outcome == CORRUPT_UNMOUNTABLE ||
	       f->outcome == CORRUPT_FSCK_ONLY ||
	       (f->fsck == CORRUPT_FSCK_ERRORS && r->base_fsck[fs] == CORRUPT_FSCK_CLEAN);
}

static int fs_index(const struct corrupt_result *r, const char *fs)
{
	for (int i = 0; i < r->nfs; i++)
		if (!strcmp(r->fs[i], fs))
			return i;
	return 0;
}

struct tally {
	int n, detected, silent, none, kernel;
	int logged; /* of the silent and the none, those the kernel's log named */
	/* The kernel failures by the report they opened with (SPLAT_NONE: a
	 * panic or hang with no report before it). */
	int by_kind[SPLAT_NKINDS];
};

static void tally_add(struct tally *t, const struct corrupt_result *r, const struct corrupt_flip *f)
{
	bool det = detected(r, f, fs_index(r, f->fs));
	t->n++;
	if (f->outcome == CORRUPT_KERNEL) {
		t->kernel++;
		t->by_kind[splat_opens(f->kernel)]++;
	} else if (det)
		t->detected++;
	else if (f->outcome == CORRUPT_SILENT || f->outcome == CORRUPT_LOST)
		t->silent++;
	else
		t->none++;
	if (f->outcome != CORRUPT_KERNEL && !det && f->kernel[0])
		t->logged++;
}

static void tally_print(FILE *f, const char *name, const struct tally *t)
{
	int eff = t->detected + t->silent + t->kernel;
	fprintf(f, "  %-34s %4d flips: detected %3d, silent %3d, no effect %3d, kernel-failure %d",
		name, t->n, t->detected, t->silent, t->none, t->kernel);
	/* Which reports: a KASAN report is a memory bug, a hang is not. */
	for (int k = 0, first = 1; k < SPLAT_NKINDS; k++)
		if (t->by_kind[k]) {
			fprintf(f, "%s%s %d", first ? " [" : ", ",
				k ? splat_kind_name((enum splat_kind)k) : "panic or hang",
				t->by_kind[k]);
			first = 0;
		}
	fprintf(f,
		"%s (in the kernel's log only: %d); with an effect: %.0f%% detected, %.0f%% "
		"silent\n",
		t->kernel ? "]" : "", t->logged, eff ? 100.0 * t->detected / eff : 0.0,
		eff ? 100.0 * t->silent / eff : 0.0);
}

void corrupt_print(const struct corrupt_result *r, FILE *f)
{
	fprintf(f, "%-6s %-26s %-10s %-6s  %-17s %-7s %s\n", "fs", "structure:field", "lba:byte",
		"bit", "outcome", "fsck", "detail");
	for (int k = 0; k < r->n; k++) {
		const struct corrupt_flip *x = &r->f[k];
		char sf[80], at[40];
		snprintf(sf, sizeof(sf), "%s%s%s", x->structure, x->field[0] ? ":" : "", x->field);
		snprintf(at, sizeof(at), "%llu:%u", (unsigned long long)x->lba, x->byte);
		fprintf(f, "%-6s %-26.26s %-10s %-6u  %-17s %-7s %.90s\n", x->fs, sf, at, x->bit,
			corrupt_outcome_name(x->outcome), corrupt_fsck_name(x->fsck), x->detail);
		if (x->outcome == CORRUPT_KERNEL)
			fprintf(f,
				"       finding: replay with: themis corrupt %s --at %llu:%u:%u "
				"--budget %llu\n",
				x->fs, (unsigned long long)x->lba, x->byte, x->bit,
				(unsigned long long)r->budget);
	}
	/* The spectrum: structure x outcome counts. */
	fprintf(f, "\nspectrum (flips per structure and outcome)\n%-6s %-20s", "fs", "structure");
	for (int o = 0; o < CORRUPT_NOUTCOMES; o++)
		fprintf(f, " %8.8s", corrupt_outcome_name((enum corrupt_outcome)o));
	fprintf(f, "\n");
	for (int k = 0; k < r->n; k++) {
		bool first = true;
		for (int j = 0; j < k && first; j++)
			first = strcmp(r->f[j].fs, r->f[k].fs) ||
				strcmp(r->f[j].structure, r->f[k].structure);
		if (!first)
			continue;
		int count[CORRUPT_NOUTCOMES] = {0};
		for (int j = k; j < r->n; j++)
			if (!strcmp(r->f[j].fs, r->f[k].fs) &&
			    !strcmp(r->f[j].structure, r->f[k].structure))
				count[r->f[j].outcome]++;
		fprintf(f, "%-6s %-20.20s", r->f[k].fs, r->f[k].structure);
		for (int o = 0; o < CORRUPT_NOUTCOMES; o++)
			fprintf(f, " %8d", count[o]);
		fprintf(f, "\n");
	}
	/* Checksummed layouts against the others. */
	fprintf(f, "\ndetection (detected: an error returned, a refused mount, or the checker;\n"
		   "           silent: wrong data or lost entries, unreported)\n");
	struct tally group[2] = {{0}, {0}};
	for (int i = 0; i < r->nfs; i++) {
		struct tally t = {0};
		for (int k = 0; k < r->n; k++)
			if (!strcmp(r->f[k].fs, r->fs[i])) {
				tally_add(&t, r, &r->f[k]);
				tally_add(&group[r->csum[i]], r, &r->f[k]);
			}
		char name[96];
		snprintf(name, sizeof(name), "%s (%s, fsck %s)", r->fs[i],
			 r->csum[i] ? "checksummed" : "no checksums",
			 corrupt_fsck_name(r->base_fsck[i]));
		tally_print(f, name, &t);
		if (r->base_fsck[i] != CORRUPT_FSCK_CLEAN && r->base_fsck[i] != CORRUPT_FSCK_NONE &&
		    r->base_fsck[i] != CORRUPT_FSCK_MISSING)
			fprintf(f,
				"    the checker was not clean on the unflipped disk (%s): its "
				"verdicts are not counted\n",
				r->base_said[i][0] ? r->base_said[i] : "exit status not 0");
	}
	if (group[1].n)
		tally_print(f, "checksummed layouts", &group[1]);
	if (group[0].n)
		tally_print(f, "layouts without checksums", &group[0]);
	fprintf(f, "%d flips in %.2f s: %.2f flips/s (boot, populate and export: %.2f s)\n", r->n,
		r->seconds, r->seconds > 0 ? r->n / r->seconds : 0.0, r->setup_seconds);
}

void corrupt_json(const struct corrupt_result *r, FILE *f)
{
	fprintf(f, "[");
	for (int k = 0; k < r->n; k++) {
		const struct corrupt_flip *x = &r->f[k];
		fprintf(f, "%s\n  {\"fs\": ", k ? "," : "");
		json_string(f, x->fs);
		fprintf(f, ", \"structure\": ");
		json_string(f, x->structure);
		fprintf(f, ", \"field\": ");
		json_string(f, x->field);
		fprintf(f, ", \"lba\": %llu, \"byte\": %u, \"bit\": %u, \"outcome\": \"%s\", ",
			(unsigned long long)x->lba, x->byte, x->bit,
			corrupt_outcome_name(x->outcome));
		fprintf(f, "\"fsck\": \"%s\", \"fsck_status\": %d, \"fsck_said\": ",
			corrupt_fsck_name(x->fsck), x->fsck_status);
		json_string(f, x->fsck_said);
		fprintf(f, ", \"checksummed\": %s, \"detail\": ",
			r->csum[fs_index(r, x->fs)] ? "true" : "false");
		json_string(f, x->detail);
		fprintf(f, ", \"kernel\": ");
		json_string(f, x->kernel);
		fprintf(f, ", \"report\": ");
		if (x->report)
			json_string(f, x->report);
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "%s]\n", r->n ? "\n" : "");
}
