/* clock.c - see clock.h: make each variant's image, run its instants in
 * the guest, read back stat and the disk, and judge the result against
 * what the kernel declares. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/json.h"
#include "../fs/fs.h"
#include "../util/clock.h"
#include "../util/epoch.h"
#include "clock.h"

#define CLOCK_MAX_VARIANTS 64

/* The variants, made from the descriptors on first use (the same every
 * time: a function of the descriptors alone). */
static struct clock_variant variants[CLOCK_MAX_VARIANTS];
static int nvariants = -1;

static void load_variants(void)
{
	nvariants = 0;
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		for (size_t k = 0; k < d->nclock && nvariants < CLOCK_MAX_VARIANTS; k++) {
			const struct fs_clock_variant *c = &d->clock[k];
			struct clock_variant *v = &variants[nvariants];
			*v = (struct clock_variant){c->name,	c->driver, "",	   d->image_mib,
						    c->gran_ns, c->tmin,   c->tmax};
			if (!fs_mkfs_command(d, c->options, NULL, v->mkfs, sizeof(v->mkfs)))
				nvariants++;
		}
	}
}

int clock_variant_count(void)
{
	if (nvariants < 0)
		load_variants();
	return nvariants;
}

const struct clock_variant *clock_variant_at(int i)
{
	return i >= 0 && i < clock_variant_count() ? &variants[i] : NULL;
}

const struct clock_instant clock_instants[] = {
#define CLOCK_INSTANT(name, arg, flags) {#name, arg},
    INSTANT_TABLE(CLOCK_INSTANT)
#undef CLOCK_INSTANT
};
const int clock_ninstants = sizeof(clock_instants) / sizeof(clock_instants[0]);

#define CLOCK_BASE	   "@" THEMIS_EPOCH_STR /* the machine's clock base */
#define CLOCK_BASE_SECONDS ((long long)THEMIS_EPOCH)
#define NS		   1000000000LL

int clock_select(char **names, int nnames, bool *selected, char *err, size_t errlen)
{
	int n = clock_variant_count();
	for (int i = 0; i < n; i++)
		selected[i] = nnames == 0;
	for (int k = 0; k < nnames; k++) {
		bool any = false;
		for (int i = 0; i < n; i++)
			if (!strcmp(names[k], clock_variant_at(i)->name) ||
			    !strcmp(names[k], clock_variant_at(i)->driver))
				selected[i] = any = true;
		if (!any) {
			snprintf(err, errlen, "unknown variant or driver '%s'", names[k]);
			return -1;
		}
	}
	return 0;
}

/* An absolute instant's seconds and ns ("@-1.5" is -2 s + 0.5 s, as the
 * agent reads it); false for a relative one. */
static bool absolute(const char *arg, int64_t *sec, uint32_t *nsec)
{
	long long s;
	char frac[16] = "";
	if (arg[0] != '@' || sscanf(arg + 1, "%lld.%15[0-9]", &s, frac) < 1)
		return false;
	uint32_t ns = 0;
	size_t digits = strlen(frac);
	for (size_t i = 0; i < 9; i++)
		ns = ns * 10 + (uint32_t)(i < digits ? frac[i] - '0' : 0);
	bool neg = arg[1] == '-';
	*sec = neg && ns ? (int64_t)s - 1 : (int64_t)s;
	*nsec = neg && ns ? (uint32_t)(NS - ns) : ns;
	return true;
}

/* ---- the guest side ---- */

/* "mtime=SEC.NSEC" at p into t. */
static void parse_time(const char *line, const char *key, struct clock_time *t)
{
	const char *p = strstr(line, key);
	long long s;
	unsigned ns;
	memset(t, 0, sizeof(*t));
	if (p && sscanf(p + strlen(key), "%lld.%u", &s, &ns) == 2) {
		t->ok = true;
		t->sec = s;
		t->nsec = ns;
	}
}

/* stat (the agent's times) of every try's file, into before or after. */
static int read_stats(struct virt *v, struct clock_result *r, bool after, char *why, size_t whylen)
{
	for (int i = 0; i < r->n; i += 4) {
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "%s", AGENT_WORD(times));
		for (int k = i; k < r->n && k < i + 4; k++)
			snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", r->t[k].file);
		struct check_step st;
		if (check_apply(v, 1, cmd, &st, why, whylen))
			return -1;
		for (int k = i; k < r->n && k < i + 4; k++) {
			struct clock_try *t = &r->t[k];
			struct clock_time *out = after ? &t->after : &t->before;
			char pfx[16];
			int pn = snprintf(pfx, sizeof(pfx), "t 0 %s ", t->file);
			const char *l = v->log;
			while (l && strncmp(l, pfx, (size_t)pn))
				l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
			memset(out, 0, sizeof(*out));
			if (!l)
				snprintf(out->err, sizeof(out->err), "no answer");
			else if (l[pn] == '!')
				snprintf(out->err, sizeof(out->err), "%.*s",
					 (int)strcspn(l + pn + 1, "\n"), l + pn + 1);
			else
				parse_time(l, "mtime=", out);
			const char *ino = l ? strstr(l, "ino=") : NULL;
			if (ino && (!strchr(l, '\n') || ino < strchr(l, '\n')))
				t->ino = strtoull(ino + 4, NULL, 10);
		}
	}
	return 0;
}

/* The RTC as the guest kernel reads it, into t. */
static int read_rtc(struct virt *v, struct clock_try *t, char *why, size_t whylen)
{
	struct check_step st;
	long long secs;
	if (check_apply(v, 1, AGENT_WORD(rtc), &st, why, whylen))
		return -1;
	t->rtc_ok = v->log && sscanf(v->log, "rtc %lld", &secs) == 1;
	t->rtc = t->rtc_ok ? secs : 0;
	return 0;
}

/* Table 9: for each gap, a new file written CLOCK_RAPID_WRITES times with
 * that sleep between; the distinct mtimes stat showed after each write. */
static int rapid_writes(struct virt *v, struct clock_result *r, char *why, size_t whylen)
{
	static const char *const gaps[] = CLOCK_GAPS;
	char cmd[64], err[24];
	int64_t ret;
	/* From a whole second, so that 4 ms of writes cross none. */
	if (check_agent_result(v, "op settime " CLOCK_BASE, &ret, err, why, whylen))
		return -1;
	for (int g = 0; g < 4; g++) {
		int64_t seen[CLOCK_RAPID_WRITES];
		int distinct = 0;
		snprintf(cmd, sizeof(cmd), "op create r%d 0644 -", g);
		if (check_agent_result(v, cmd, &ret, err, why, whylen))
			return -1;
		for (int k = 0; k < CLOCK_RAPID_WRITES; k++) {
			struct check_step st;
			struct clock_time t;
			snprintf(cmd, sizeof(cmd), "op write r%d 0 1 %d -", g, k);
			if (check_agent_result(v, cmd, &ret, err, why, whylen))
				return -1;
			snprintf(cmd, sizeof(cmd), AGENT_WORD(times, " r%d"), g);
			if (check_apply(v, 1, cmd, &st, why, whylen))
				return -1;
			parse_time(v->log ? v->log : "", "mtime=", &t);
			r->rapid_t[g][k] = t;
			int64_t ns = t.sec * NS + t.nsec;
			bool fresh = t.ok;
			for (int j = 0; j < distinct && fresh; j++)
				fresh = seen[j] != ns;
			if (fresh)
				seen[distinct++] = ns;
			snprintf(cmd, sizeof(cmd), AGENT_WORD(sleep, " %s"), gaps[g]);
			if (strcmp(gaps[g], "0") && check_apply(v, 1, cmd, &st, why, whylen))
				return -1;
		}
		r->rapid[g] = distinct;
	}
	return 0;
}

/* How many distinct times of n (those not ok are left out). */
static int distinct(const struct clock_time *t, int n)
{
	int d = 0;
	for (int i = 0; i < n; i++) {
		bool fresh = t[i].ok;
		for (int j = 0; j < i && fresh; j++)
			fresh = !(t[j].ok && t[j].sec == t[i].sec && t[j].nsec == t[i].nsec);
		d += fresh;
	}
	return d;
}

/* Table 10: chmod a file CLOCK_RAPID_WRITES times 10 ms apart, each time
 * reading ctime from stat and, after a remount put it on the disk, from
 * the stored fields. */
static int changes(struct virt *v, const char *fs, struct clock_result *r, char *why, size_t whylen)
{
	char cmd[64], err[24];
	int64_t ret;
	struct check_step st;
	if (check_agent_result(v, "op settime " CLOCK_BASE, &ret, err, why, whylen) ||
	    check_agent_result(v, "op create k0 0644 -", &ret, err, why, whylen))
		return -1;
	for (int k = 0; k < CLOCK_RAPID_WRITES; k++) {
		snprintf(cmd, sizeof(cmd), "op chmod k0 %s", k % 2 ? "0644" : "0600");
		if (check_apply(v, 1, AGENT_WORD(sleep, " 0.01"), &st, why, whylen) ||
		    check_agent_result(v, cmd, &ret, err, why, whylen) ||
		    check_agent_result(v, "op remount", &ret, err, why, whylen) ||
		    check_apply(v, 1, AGENT_WORD(times, " k0"), &st, why, whylen))
			return -1;
		const char *log = v->log ? v->log : "";
		const char *ino = strstr(log, "ino=");
		parse_time(log, "ctime=", &r->change_stat[k]);
		struct rawtime rt;
		char rerr[160];
		struct disk *d = &v->disks[0];
		int rc = ino ? rawtime_mtime(fs, disk_read_bytes, d, d->size, "k0",
					     strtoull(ino + 4, NULL, 10), &rt, rerr, sizeof(rerr))
			     : -1;
		if (rc == 0 && rt.have_ctime)
			r->change_raw[k] =
			    (struct clock_time){.ok = true, .sec = rt.csec, .nsec = rt.cnsec};
		else
			r->change_raw_why = rc > 0 ? "no raw parser for the disk"
					    : rc == 0
						? "the format stores no ctime (stat shows the "
						  "mtime)"
						: "the stored ctime could not be read";
	}
	r->change_stat_distinct = distinct(r->change_stat, CLOCK_RAPID_WRITES);
	r->change_raw_distinct = distinct(r->change_raw, CLOCK_RAPID_WRITES);
	return 0;
}

/* Try instant i both ways: utimensat on a new file, and the clock set
 * (from the base, so a rollback is one from 2026) before creating one. */
static int try_instant(struct virt *v, struct clock_result *r, int i, char *why, size_t whylen)
{
	char cmd[96], err[24];
	int64_t ret;
	if (r->n + 2 > CLOCK_MAX_TRIES)
		return 0;
	struct clock_try *u = &r->t[r->n++], *c = &r->t[r->n++];
	*u = (struct clock_try){.instant = i, .how = 'u'};
	*c = (struct clock_try){.instant = i, .how = 'c'};
	snprintf(u->file, sizeof(u->file), "u%02u", (unsigned)i % 100);
	snprintf(c->file, sizeof(c->file), "c%02u", (unsigned)i % 100);
	snprintf(cmd, sizeof(cmd), "op create %s 0644 -", u->file);
	if (check_agent_result(v, cmd, &ret, err, why, whylen))
		return -1;
	snprintf(cmd, sizeof(cmd), "op utimes %s %s", u->file, clock_instants[i].arg);
	if (check_agent_result(v, cmd, &u->ret, u->err, why, whylen))
		return -1;
	if (check_agent_result(v, "op settime " CLOCK_BASE, &ret, err, why, whylen))
		return -1;
	snprintf(cmd, sizeof(cmd), "op settime %s", clock_instants[i].arg);
	if (check_agent_result(v, cmd, &c->ret, c->err, why, whylen))
		return -1;
	if (!strcmp(c->err, "0") && read_rtc(v, c, why, whylen))
		return -1;
	snprintf(cmd, sizeof(cmd), "op create %s 0644 -", c->file);
	return check_agent_result(v, cmd, &ret, err, why, whylen);
}

/* The stored fields of every file, from the disk after the remount. */
static void read_raw(struct virt *v, const char *fs, struct clock_result *r)
{
	struct disk *d = &v->disks[0];
	for (int k = 0; k < r->n; k++) {
		struct clock_try *t = &r->t[k];
		struct rawtime rt;
		char err[160];
		int rc = t->after.ok ? rawtime_mtime(fs, disk_read_bytes, d, d->size, t->file,
						     t->ino, &rt, err, sizeof(err))
				     : -1;
		if (rc == 0) {
			t->raw = (struct clock_time){.ok = true, .sec = rt.sec, .nsec = rt.nsec};
			snprintf(t->fields, sizeof(t->fields), "%s", rt.fields);
		} else {
			snprintf(t->raw.err, sizeof(t->raw.err), "%s",
				 rc > 0	       ? "no parser"
				 : t->after.ok ? "unreadable"
					       : "no file");
			snprintf(t->fields, sizeof(t->fields), "%s",
				 rc > 0	       ? ""
				 : t->after.ok ? err
					       : "");
		}
	}
}

/* The console lines that speak of time ("supports timestamps until..."). */
static void keep_warnings(const char *console, char *out, size_t cap)
{
	out[0] = 0;
	for (const char *l = console; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		const char *body = memchr(l, ']', n); /* after the "[ 1.23]" stamp */
		body = body ? body + 1 + (body[1] == ' ') : l;
		size_t bn = n - (size_t)(body - l);
		char line[256];
		snprintf(line, sizeof(line), "%.*s", (int)bn, body);
		if ((strstr(line, "timestamp") || strstr(line, "2038")) && !strstr(out, line))
			snprintf(out + strlen(out), cap - strlen(out), "%s%s", *out ? "\n" : "",
				 line);
	}
}

/* ---- judging ---- */

/* What a filesystem with v's declarations should keep of (sec, nsec). */
static struct clock_time expected(const struct clock_variant *v, int64_t sec, uint32_t nsec)
{
	struct clock_time e = {.ok = true};
	if (sec < v->tmin || sec > v->tmax) {
		e.sec = sec < v->tmin ? v->tmin : v->tmax;
		return e; /* timestamp_truncate: an edge has no ns */
	}
	if (v->gran_ns >= (uint64_t)NS) {
		int64_t g = (int64_t)(v->gran_ns / NS);
		e.sec = sec - ((sec % g) + g) % g;
	} else {
		e.sec = sec;
		e.nsec = nsec - (uint32_t)(nsec % v->gran_ns);
	}
	return e;
}

static bool same_time(const struct clock_time *a, const struct clock_time *b)
{
	return a->ok && b->ok && a->sec == b->sec && a->nsec == b->nsec;
}

/* One word for the outcome of an instant past an end (edge: the last
 * second stored exactly on that side): clamp (a second at or beyond the
 * edge, short of the instant), wrap (the instant modulo 2^32), error (the
 * call failed), lost or other. */
static const char *outcome(const struct clock_try *t, int64_t sec, int64_t edge)
{
	int64_t got = t->after.sec;
	if (strcmp(t->err, "0"))
		return "error";
	if (!t->after.ok)
		return "lost";
	if (sec > edge ? got >= edge && got < sec : got <= edge && got > sec)
		return "clamp";
	if ((uint32_t)got == (uint32_t)sec)
		return "wrap";
	return "other";
}

/* Add the word w to the '+'-separated list acc, once. */
static void merge_word(char *acc, size_t cap, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = acc; *p; p += strcspn(p, "+"), p += *p == '+')
		if (strcspn(p, "+") == n && !strncmp(p, w, n))
			return;
	snprintf(acc + strlen(acc), cap - strlen(acc), "%s%s", *acc ? "+" : "", w);
}

static void judge(struct clock_result *r)
{
	const struct clock_variant *v = r->v;
	r->consistent = true;
	for (int k = 0; k < r->n; k++) {
		struct clock_try *t = &r->t[k];
		int64_t sec;
		uint32_t nsec;
		if (t->after.ok && t->before.ok && !same_time(&t->before, &t->after))
			r->remount_changes++;
		r->raw_read += t->raw.ok;
		if (t->raw.ok && !same_time(&t->raw, &t->after))
			r->raw_differs++;
		if (t->how == 'c' && strcmp(t->err, "0"))
			merge_word(r->clock_refused, sizeof(r->clock_refused),
				   clock_instants[t->instant].name);
		if (t->how == 'c' && !strcmp(t->err, "0") && k > 0 &&
		    !same_time(&t->after, &r->t[k - 1].after))
			r->clock_differs++;
		if (t->rtc_ok) { /* the RTC holds the second the clock was set to */
			int64_t want;
			uint32_t ns;
			const char *arg = clock_instants[t->instant].arg;
			if (!absolute(arg, &want, &ns))
				want = CLOCK_BASE_SECONDS + strtoll(arg, NULL, 10);
			r->rtc_checked++;
			r->rtc_differs += t->rtc != want;
		}
		if (t->how != 'u' || !absolute(clock_instants[t->instant].arg, &sec, &nsec))
			continue;
		if (!r->tried_any || sec < r->tried_min)
			r->tried_min = sec;
		if (!r->tried_any || sec > r->tried_max)
			r->tried_max = sec;
		r->tried_any = true;
		bool exact = !strcmp(t->err, "0") && t->after.ok && t->after.sec == sec;
		if (exact && (!r->have_range || sec < r->min_s))
			r->min_s = sec;
		if (exact && (!r->have_range || sec > r->max_s))
			r->max_s = sec;
		r->have_range |= exact;
		if (!strcmp(clock_instants[t->instant].name, "gran_probe") && t->after.ok) {
			int64_t diff = (sec - t->after.sec) * NS + (int64_t)nsec - t->after.nsec;
			r->gran_ns = diff >= 0 ? (uint64_t)diff + 1 : 0;
		}
		struct clock_time e = expected(v, sec, nsec);
		if (r->consistent && !same_time(&e, &t->after)) {
			r->consistent = false;
			snprintf(r->mismatch, sizeof(r->mismatch),
				 "%s (%s): stored %s%lld.%09u, the declared limits give %lld.%09u",
				 clock_instants[t->instant].name, clock_instants[t->instant].arg,
				 t->after.ok ? "" : "nothing: ", (long long)t->after.sec,
				 t->after.nsec, (long long)e.sec, e.nsec);
		}
	}
	for (int k = 0; k < r->n && r->have_range; k++) {
		struct clock_try *t = &r->t[k];
		int64_t sec;
		uint32_t nsec;
		if (t->how != 'u' || !absolute(clock_instants[t->instant].arg, &sec, &nsec))
			continue;
		if (sec > r->max_s)
			merge_word(r->above, sizeof(r->above), outcome(t, sec, r->max_s));
		if (sec < r->min_s)
			merge_word(r->below, sizeof(r->below), outcome(t, sec, r->min_s));
	}
}

/* ---- one variant ---- */

static int make_image(const struct clock_variant *v, const char *path, char *why, size_t whylen)
{
	char cmd[2048];
	bool ft = system("command -v faketime >/dev/null 2>&1") == 0;
	snprintf(cmd, sizeof(cmd),
		 "rm -f '%s' && truncate -s %uM '%s' && %s %s%s%s %s '%s' >/dev/null 2>&1 "
		 "</dev/null",
		 path, v->mib, path, FS_MKFS_ENV, ft ? "faketime -f '" : "",
		 ft ? FS_MKFS_FAKETIME : "", ft ? "'" : "", v->mkfs, path);
	if (strchr(path, '\'') || system(cmd) != 0) {
		snprintf(why, whylen, "%.*s failed (is it installed? scripts/deps.sh)",
			 (int)strcspn(v->mkfs, " "), v->mkfs);
		return -1;
	}
	return 0;
}

/* The mount's errno from the agent's ready report ("disks=vda:ext4:0"). */
static int mount_errno(const struct virt *v, char *name, size_t cap)
{
	const char *d = strstr(v->ready_report, "disks=vda:");
	const char *colon = d ? strchr(d + 10, ':') : NULL;
	snprintf(name, cap, "%.*s", colon ? (int)strcspn(colon + 1, " ,\n") : 0,
		 colon ? colon + 1 : "");
	return colon && strcmp(name, "0");
}

int clock_run(const struct check_machine *base, const struct clock_variant *v, const bool *instants,
	      const char *tmpdir, struct clock_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->v = v;
	double t0 = host_seconds();
	char img[512], *console = NULL;
	size_t console_len = 0;
	snprintf(img, sizeof(img), "%s/%s.img", tmpdir, v->name);
	if (make_image(v, img, r->refused, sizeof(r->refused)))
		return 0;
	const char *format = fs_detect(img);
	FILE *cf = open_memstream(&console, &console_len);
	struct virt *vm = calloc(1, sizeof(*vm));
	if (!cf || !vm) {
		if (cf)
			fclose(cf);
		free(vm);
		free(console);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct check_machine m = *base;
	m.nfs = 1;
	m.fs[0] = v->driver;
	m.images[0] = img;
	m.console = cf;
	m.warnings = true;
	m.time = false;
	char why[CHECK_DETAIL_MAX] = "", mnt[24];
	int rc = check_boot(vm, &m, why, sizeof(why));
	if (rc) {
		snprintf(r->refused, sizeof(r->refused), "did not boot: %.100s", why);
		free(vm);
		vm = NULL;
	} else if (mount_errno(vm, mnt, sizeof(mnt))) {
		snprintf(r->refused, sizeof(r->refused), "the %s driver refuses the image: %s",
			 v->driver, mnt);
	} else {
		r->mounted = true;
		for (int i = 0; i < clock_ninstants && !rc; i++)
			if (!instants || instants[i])
				rc = try_instant(vm, r, i, why, sizeof(why));
		if (!rc)
			rc = rapid_writes(vm, r, why, sizeof(why));
		if (!rc)
			rc = changes(vm, format ? format : v->driver, r, why, sizeof(why));
		if (!rc)
			rc = read_stats(vm, r, false, why, sizeof(why));
		int64_t ret;
		char e[24];
		if (!rc)
			rc = check_agent_result(vm, "op remount", &ret, e, why, sizeof(why));
		if (!rc)
			rc = read_stats(vm, r, true, why, sizeof(why));
		if (!rc)
			read_raw(vm, format ? format : v->driver, r);
		if (rc)
			snprintf(r->refused, sizeof(r->refused), "the guest failed: %.100s", why);
		else
			judge(r);
	}
	fflush(cf);
	keep_warnings(console, r->warnings, sizeof(r->warnings));
	fclose(cf);
	free(console);
	if (vm) {
		virt_free(vm);
		free(vm);
	}
	unlink(img);
	r->seconds = host_seconds() - t0;
	return 0;
}

/* ---- output ---- */

/* "2038-01-19T03:14:07Z" or, out of gmtime's reach, the seconds. */
static void iso(int64_t sec, char *out, size_t cap)
{
	struct tm tm;
	time_t t = (time_t)sec;
	if (sec > -67767976233316800LL && sec < 67767976233316800LL && gmtime_r(&t, &tm) &&
	    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return;
	snprintf(out, cap, "%lld", (long long)sec);
}

static void gran_text(uint64_t ns, char *out, size_t cap)
{
	if (!ns)
		snprintf(out, cap, "?");
	else if (ns >= (uint64_t)NS)
		snprintf(out, cap, "%llu s", (unsigned long long)(ns / NS));
	else if (ns >= 1000000)
		snprintf(out, cap, "%llu ms", (unsigned long long)(ns / 1000000));
	else
		snprintf(out, cap, "%llu ns", (unsigned long long)ns);
}

void clock_markdown(const struct clock_result *r, int n, FILE *f)
{
	fprintf(f, "| variant | driver | mkfs | smallest second | largest second | granularity "
		   "| past the largest | before the smallest | remount | raw = stat | "
		   "as declared (6.1) |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		const struct clock_result *x = &r[i];
		fprintf(f, "| %s | %s | `%s` | ", x->v->name, x->v->driver, x->v->mkfs);
		if (!x->mounted || !x->have_range) {
			fprintf(f, "%s | | | | | | | |\n",
				x->refused[0] ? x->refused : "nothing stored exactly");
			continue;
		}
		char lo[32], hi[32], g[16];
		iso(x->min_s, lo, sizeof(lo));
		iso(x->max_s, hi, sizeof(hi));
		gran_text(x->gran_ns, g, sizeof(g));
		char raw[32];
		if (!x->raw_read)
			snprintf(raw, sizeof(raw), "no parser");
		else
			snprintf(raw, sizeof(raw), "%s (%d of %d)",
				 x->raw_differs ? "DIFFERS" : "yes", x->raw_read - x->raw_differs,
				 x->raw_read);
		fprintf(f, "%s%s | %s%s | %s | %s | %s | %s | %s | %s |\n", lo,
			x->min_s == x->tried_min ? " (the smallest tried)" : "", hi,
			x->max_s == x->tried_max ? " (the largest tried)" : "", g,
			x->above[0] ? x->above : "-", x->below[0] ? x->below : "-",
			x->remount_changes ? "CHANGES" : "kept", raw,
			x->consistent ? "yes" : x->mismatch);
	}
	const struct clock_result *first = NULL;
	for (int i = 0; i < n && !first; i++)
		first = r[i].mounted ? &r[i] : NULL;
	if (first)
		fprintf(
		    f,
		    "\nThe clock (settime, on %s): refused with EINVAL at %s (Linux refuses a "
		    "wall clock before the machine's boot or past 2262-04-11, KTIME_SEC_MAX).\n",
		    first->v->name, first->clock_refused[0] ? first->clock_refused : "no instant");
	for (int i = 0; i < n; i++) {
		const struct clock_result *x = &r[i];
		if (!x->mounted)
			continue;
		if (strcmp(x->clock_refused, first->clock_refused))
			fprintf(f, "- %s: settime refused at %s\n", x->v->name, x->clock_refused);
		fprintf(f,
			"- %s: %d writes in a row stored %d/%d/%d/%d distinct mtimes with 0/1 "
			"ms/10 ms/1 s "
			"between them; the RTC read back %s after %d settimes\n",
			x->v->name, CLOCK_RAPID_WRITES, x->rapid[0], x->rapid[1], x->rapid[2],
			x->rapid[3], x->rtc_differs ? "OTHERWISE" : "the instant set",
			x->rtc_checked);
		fprintf(f, "- %s: %d chmods 10 ms apart: %d distinct ctimes in stat, ", x->v->name,
			CLOCK_RAPID_WRITES, x->change_stat_distinct);
		if (x->change_raw[0].ok)
			fprintf(f, "%d on the disk (%s)\n", x->change_raw_distinct,
				x->change_raw_distinct == x->change_stat_distinct
				    ? "alike"
				    : "the disk keeps what stat does not show");
		else
			fprintf(f, "%s\n",
				x->change_raw_why ? x->change_raw_why
						  : "no raw parser for the disk");
		if (x->clock_differs)
			fprintf(f,
				"- %s: %d files created after a settime store otherwise than "
				"utimensat to the same instant\n",
				x->v->name, x->clock_differs);
		if (x->warnings[0])
			fprintf(f, "- %s: the kernel says: %s\n", x->v->name, x->warnings);
	}
}

static void json_time(FILE *f, const char *key, const struct clock_time *t)
{
	fprintf(f, ", \"%s\": ", key);
	if (t->ok)
		fprintf(f, "\"%lld.%09u\"", (long long)t->sec, t->nsec);
	else
		json_string(f, t->err[0] ? t->err : "none");
}

static void json_try(FILE *f, const struct clock_try *t)
{
	fprintf(f, "{\"instant\": ");
	json_string(f, clock_instants[t->instant].name);
	fprintf(f, ", \"set\": ");
	json_string(f, clock_instants[t->instant].arg);
	fprintf(f,
		", \"how\": \"%s\", \"ret\": %lld, \"errno\": ", t->how == 'u' ? "utimes" : "clock",
		(long long)t->ret);
	json_string(f, t->err);
	json_time(f, "stat", &t->before);
	json_time(f, "stat_after_remount", &t->after);
	json_time(f, "raw", &t->raw);
	if (t->rtc_ok)
		fprintf(f, ", \"rtc\": %lld", (long long)t->rtc);
	fprintf(f, ", \"raw_fields\": ");
	json_string(f, t->fields);
	fprintf(f, "}");
}

void clock_json(const struct clock_result *r, int n, FILE *f)
{
	fprintf(f, "[");
	for (int i = 0; i < n; i++) {
		const struct clock_result *x = &r[i];
		fprintf(f, "%s\n {\"variant\": ", i ? "," : "");
		json_string(f, x->v->name);
		fprintf(f, ", \"driver\": ");
		json_string(f, x->v->driver);
		fprintf(f, ", \"mkfs\": ");
		json_string(f, x->v->mkfs);
		if (x->have_range)
			fprintf(f, ", \"max_seconds\": %lld, \"min_seconds\": %lld",
				(long long)x->max_s, (long long)x->min_s);
		else
			fprintf(f, ", \"max_seconds\": null, \"min_seconds\": null");
		fprintf(f, ", \"granularity_ns\": %llu, \"behaviour\": ",
			(unsigned long long)x->gran_ns);
		json_string(f, !x->mounted ? "refused" : x->above[0] ? x->above : "none seen");
		fprintf(f, ", \"behaviour_below\": ");
		json_string(f, x->below[0] ? x->below : "none seen");
		fprintf(f, ", \"refused\": ");
		json_string(f, x->refused);
		fprintf(f,
			", \"declared\": {\"granularity_ns\": %llu, \"min_seconds\": %lld, "
			"\"max_seconds\": %lld}, \"consistent\": %s, \"mismatch\": ",
			(unsigned long long)x->v->gran_ns, (long long)x->v->tmin,
			(long long)x->v->tmax, x->mounted && x->consistent ? "true" : "false");
		json_string(f, x->mismatch);
		fprintf(f, ", \"remount_changes\": %d, \"raw_differs\": %d, \"warnings\": ",
			x->remount_changes, x->raw_differs);
		json_string(f, x->warnings);
		fprintf(f,
			", \"rapid_distinct\": [%d, %d, %d, %d], \"rtc_checked\": %d, "
			"\"rtc_differs\": %d",
			x->rapid[0], x->rapid[1], x->rapid[2], x->rapid[3], x->rtc_checked,
			x->rtc_differs);
		fprintf(f, ", \"change_ctimes\": {\"stat\": [");
		for (int k = 0; k < CLOCK_RAPID_WRITES; k++)
			fprintf(f, "%s\"%lld.%09u\"", k ? ", " : "",
				(long long)x->change_stat[k].sec, x->change_stat[k].nsec);
		fprintf(f, "], \"raw\": [");
		for (int k = 0; k < CLOCK_RAPID_WRITES; k++)
			if (x->change_raw[k].ok)
				fprintf(f, "%s\"%lld.%09u\"", k ? ", " : "",
					(long long)x->change_raw[k].sec, x->change_raw[k].nsec);
			else
				fprintf(f, "%snull", k ? ", " : "");
		fprintf(f, "]}");
		fprintf(f, ", \"rapid_mtimes\": [");
		for (int g = 0; g < 4; g++)
			for (int k = 0; k < CLOCK_RAPID_WRITES; k++)
				fprintf(f, "%s\"%lld.%09u\"", g || k ? ", " : "",
					(long long)x->rapid_t[g][k].sec, x->rapid_t[g][k].nsec);
		fprintf(f, "]");
		fprintf(f, ", \"seconds\": %.3f, \"stored\": [", x->seconds);
		for (int k = 0; k < x->n; k++) {
			fprintf(f, "%s\n   ", k ? "," : "");
			json_try(f, &x->t[k]);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n]\n");
}
