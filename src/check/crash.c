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

/* The crash and the recovery, inside the caller's fork level. */
static int crash_in_fork(struct virt *v, const struct check_machine *m,
			 const struct crash_disk *pts, const struct crash_ask *ask,
			 struct crash_result *r, char *why, size_t whylen, double *t0)
{
	struct check_step st;
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	int nfs = m->nfs;
	if (ask->dumps && !(r->live = check_dump(v, nfs, "dump", why, whylen)))
		return -1;
	lap(ask, &t->read, t0);
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
	if (rc || !r->mounted)
		return rc ? -1 : 0;
	if (check_apply(v, nfs, "fp", &r->fp, why, whylen))
		return -1;
	if (ask->dumps && !(r->recovered = check_dump(v, nfs, "dump", why, whylen)))
		return -1;
	lap(ask, &t->read, t0);
	if (!ask->fsck || !ask->fsck_disks)
		return 0;
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
	r->live = r->recovered = NULL;
}

int crash_recover(struct virt *v, const struct check_machine *m, const struct crash_disk *pts,
		  const struct crash_ask *ask, struct crash_result *r, char *why, size_t whylen)
{
	memset(r, 0, sizeof(*r));
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
