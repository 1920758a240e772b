/* crash.c - see crash.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../machine/virt.h"
#include "../util/clock.h"
#include "crash.h"

void crash_arm(struct virt *v, int nfs)
{
	for (int i = 0; i < nfs; i++)
		disk_wlog_enable(&v->disks[i]);
}

void crash_point_now(struct virt *v, int nfs, struct crash_disk *pts)
{
	for (int i = 0; i < nfs; i++) {
		const struct disk_wentry *e;
		uint64_t first, n = disk_wlog(&v->disks[i], &e, &first);
		pts[i] = (struct crash_disk){.upto = first + n};
	}
}

static void power(struct virt *v, int nfs, const struct crash_disk *pts, bool on)
{
	for (int i = 0; i < nfs; i++)
		if (!pts[i].live)
			disk_power(&v->disks[i], on);
}

/* "umount I..." or "mount I...": the crashing disks. */
static void mount_command(const char *verb, int nfs, const struct crash_disk *pts, char *cmd,
			  size_t cap)
{
	size_t n = (size_t)snprintf(cmd, cap, "%s", verb);
	for (int i = 0; i < nfs && n < cap; i++)
		if (!pts[i].live)
			n += (size_t)snprintf(cmd + n, cap - n, " %d", i);
}

/* The mount's "r I RET ERR" lines into r; every disk must answer. */
static int parse_mounts(const struct virt *v, int nfs, struct crash_result *r, char *why,
			size_t whylen)
{
	int seen = 0;
	r->mounted = true;
	for (const char *l = v->log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int i;
		long long ret;
		char err[24];
		if (sscanf(l, "r %d %lld %23s", &i, &ret, err) != 3 || i < 0 || i >= nfs)
			continue;
		r->mount_ret[i] = ret == 0 ? 0 : -1;
		snprintf(r->mount_err[i], sizeof(r->mount_err[i]), "%s", err);
		r->mounted &= ret == 0;
		seen |= 1 << i;
	}
	if (seen != (1 << nfs) - 1) {
		snprintf(why, whylen, "the agent's mount did not answer for every disk");
		return -1;
	}
	return 0;
}

/* Close the phase that began at *t0 (when timed) and begin the next. */
static void lap(const struct crash_ask *ask, double *phase, double *t0)
{
	if (!ask->times)
		return;
	double t = host_seconds();
	*phase += t - *t0;
	*t0 = t;
}

/* Cut the power of the crashing disks, unmount them, make each its crash
 * content and mount it: the guest's recovery. The mount's answers in r. */
static int cut_and_recover(struct virt *v, int nfs, const struct crash_disk *pts,
			   const struct crash_ask *ask, struct crash_result *r, char *why,
			   size_t whylen, double *t0)
{
	struct check_step st;
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	char umount[64], mount[64];
	mount_command("umount", nfs, pts, umount, sizeof(umount));
	mount_command("mount", nfs, pts, mount, sizeof(mount));
	power(v, nfs, pts, false);
	int rc = check_apply(v, nfs, umount, &st, why, whylen);
	power(v, nfs, pts, true);
	lap(ask, &t->unmount, t0);
	if (rc)
		return -1;
	for (int i = 0; i < nfs; i++)
		if (!pts[i].live &&
		    disk_crash_assemble(&v->disks[i], pts[i].upto, pts[i].extra, pts[i].nextra)) {
			snprintf(why, whylen, "disk %d: no crash disk at write %llu", i,
				 (unsigned long long)pts[i].upto);
			return -1;
		}
	lap(ask, &t->assemble, t0);
	rc = check_apply(v, nfs, mount, &st, why, whylen) || parse_mounts(v, nfs, r, why, whylen);
	lap(ask, &t->recover, t0);
	return rc ? -1 : 0;
}

/* One crash of disk i's recovery, before its write `upto`: in a fork, the
 * power cut again and the disk recovered again. 0 when it mounts to the
 * state the whole recovery reached (r), else 1 with what in r. */
static int crash_one_recovery(struct virt *v, int nfs, int i, uint64_t upto,
			      const struct crash_ask *ask, struct crash_result *r, char *why,
			      size_t whylen)
{
	struct crash_disk p[CHECK_MAX_FS];
	struct crash_result again = {0};
	struct crash_ask plain = {.times = ask->times};
	double t0 = 0;
	for (int o = 0; o < nfs; o++)
		p[o] = (struct crash_disk){.upto = disk_wlog_end(&v->disks[o]), .live = o != i};
	p[i].upto = upto;
	r->nested++;
	if (virt_fork(v)) {
		snprintf(why, whylen, "cannot fork the machine for a crash during recovery");
		return -1;
	}
	int rc = cut_and_recover(v, nfs, p, &plain, &again, why, whylen, &t0);
	struct check_step st;
	if (!rc && again.mounted)
		rc = check_apply(v, nfs, "fp", &st, why, whylen);
	bool same = !rc && again.mounted && !memcmp(st.fp[i], r->fp.fp[i], 16);
	if (!rc && again.mounted && !same &&
	    !(r->nested_again = check_dump(v, nfs, "dump", why, whylen)))
		rc = -1;
	virt_release(v);
	if (rc)
		return -1;
	if (same)
		return 0;
	/* The machine is back at the whole recovery's state. */
	if (again.mounted && !(r->nested_first = check_dump(v, nfs, "dump", why, whylen)))
		return -1;
	r->nested_disk = i;
	r->nested_upto = upto;
	snprintf(r->nested_what, sizeof(r->nested_what), "%s",
		 again.mounted ? "recovers to another state than the uninterrupted recovery"
			       : again.mount_err[i]);
	return 1;
}

/* Crash the recoveries themselves (nesting depth 2): each crashed disk's
 * recovery, before any of its writes landed and after each flush it
 * completed. A recovery must be repeatable: recovering again from where
 * the cut left it reaches the state the whole recovery reached. 0, 1
 * with r->nested_* set at the first that does not, -1 a guest failure. */
static int crash_recoveries(struct virt *v, int nfs, const struct crash_disk *pts,
			    const uint64_t *start, const struct crash_ask *ask,
			    struct crash_result *r, char *why, size_t whylen)
{
	for (int i = 0; i < nfs; i++) {
		if (pts[i].live)
			continue;
		const struct disk_wentry *e;
		uint64_t first, n = disk_wlog(&v->disks[i], &e, &first);
		for (uint64_t k = start[i] - first; k <= n; k++) {
			bool point =
			    k == start[i] - first || (k < n && e[k].epoch != e[k - 1].epoch);
			if (!point)
				continue;
			int rc = crash_one_recovery(v, nfs, i, first + k, ask, r, why, whylen);
			if (rc)
				return rc;
			(void)disk_wlog(&v->disks[i], &e, &first); /* the fork moved nothing */
		}
	}
	return 0;
}

/* The crash and the recovery, inside the caller's fork level. */
static int crash_in_fork(struct virt *v, const struct check_machine *m,
			 const struct crash_disk *pts, const struct crash_ask *ask,
			 struct crash_result *r, char *why, size_t whylen, double *t0)
{
	struct check_step st;
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	int nfs = m->nfs;
	uint64_t start[CHECK_MAX_FS];
	if (ask->dumps && !(r->live = check_dump(v, nfs, "dump", why, whylen)))
		return -1;
	lap(ask, &t->read, t0);
	for (int i = 0; i < nfs; i++)
		start[i] = disk_wlog_end(&v->disks[i]);
	if (cut_and_recover(v, nfs, pts, ask, r, why, whylen, t0))
		return -1;
	if (!r->mounted)
		return 0;
	if (check_apply(v, nfs, "fp", &r->fp, why, whylen))
		return -1;
	if (ask->dumps && !(r->recovered = check_dump(v, nfs, "dump", why, whylen)))
		return -1;
	lap(ask, &t->read, t0);
	if (ask->nested) {
		int rc = crash_recoveries(v, nfs, pts, start, ask, r, why, whylen);
		lap(ask, &t->nested, t0);
		if (rc < 0)
			return -1;
		if (rc)
			return 0;
	}
	if (!ask->fsck || !ask->fsck_disks)
		return 0;
	char umount[64];
	mount_command("umount", nfs, pts, umount, sizeof(umount));
	if (check_apply(v, nfs, umount, &st, why, whylen))
		return -1;
	for (int i = 0; i < nfs; i++)
		if (ask->fsck_disks >> i & 1 && !pts[i].live)
			r->fsck[i] = crash_fsck_disk(ask->fsck, &v->disks[i], i, m->fs[i],
						     r->fsck_said[i], sizeof(r->fsck_said[i]));
	lap(ask, &t->fsck, t0);
	return 0;
}

void crash_result_free(struct crash_result *r)
{
	free(r->live);
	free(r->recovered);
	free(r->nested_first);
	free(r->nested_again);
	r->live = r->recovered = r->nested_first = r->nested_again = NULL;
}

int crash_recover(struct virt *v, const struct check_machine *m, const struct crash_disk *pts,
		  const struct crash_ask *ask, struct crash_result *r, char *why, size_t whylen)
{
	memset(r, 0, sizeof(*r));
	r->nested_disk = -1;
	double t0 = ask->times ? host_seconds() : 0;
	if (virt_fork(v)) {
		snprintf(why, whylen, "cannot fork the machine for a crash");
		return -1;
	}
	double forked = ask->times ? host_seconds() : 0;
	if (ask->times)
		ask->times->fork += forked - t0;
	int rc = crash_in_fork(v, m, pts, ask, r, why, whylen, &forked);
	virt_release(v);
	lap(ask, ask->times ? &ask->times->fork : &t0, &forked);
	if (rc)
		crash_result_free(r);
	return rc;
}

bool crash_step_of(const char *why, char *out, size_t cap)
{
	const char *p = strstr(why, CRASH_STEP_MARK);
	if (!p)
		return false;
	p += strlen(CRASH_STEP_MARK) - strlen("crash ");
	snprintf(out, cap, "%.*s", (int)strcspn(p, "`\n"), p);
	return true;
}

int crash_step_parse(const char *point, struct crash_step *out)
{
	static const char digits[] = CRASH_ORDER_DIGITS;
	int n = 0;
	unsigned long long at = 0;
	char order[80];
	*out = (struct crash_step){.kind = CRASH_STEP_END};
	if (!strcmp(point, "end"))
		return 0;
	if (sscanf(point, "flush %d %llu%n", &out->disk, &at, &n) == 2 && !point[n])
		out->kind = CRASH_STEP_FLUSH;
	else if (sscanf(point, "subset %d %llu %79s%n", &out->disk, &at, order, &n) == 3 &&
		 !point[n] && (!strcmp(order, ".") || strlen(order) <= sizeof(out->extra) / 8))
		out->kind = CRASH_STEP_SUBSET;
	else
		return -1;
	out->at = at;
	for (size_t k = 0; out->kind == CRASH_STEP_SUBSET && strcmp(order, ".") && order[k]; k++) {
		const char *d = strchr(digits, order[k]);
		if (!d)
			return -1;
		out->extra[out->nextra++] = at + (uint64_t)(d - digits);
	}
	return out->disk >= 0 && out->disk < CHECK_MAX_FS ? 0 : -1;
}
