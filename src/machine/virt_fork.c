/* virt_fork.c - the epsilon-copy fork of the whole machine, in lockstep:
 * RAM and every disk open a level together (each keeps its own undo list),
 * and the level saves the hart and the device block (plain data, copied
 * whole). Invariant, checked at every transition: RAM, every disk and the
 * board are at the same depth. A restore reverts the pages and chunks the
 * level dirtied and puts the hart and the devices back as they were. */
#include <assert.h>
#include <errno.h>

#include "virt_internal.h"

static void forget_page(void *opaque, const uint8_t *page)
{
	struct virt *v = opaque;
	cpu_forget_page(&v->cpu, page);
}

static bool depths_agree(const struct virt *v)
{
	for (int i = 0; i < v->ndisks; i++)
		if (disk_depth(&v->disks[i]) != v->depth)
			return false;
	return ram_depth(&v->ram) == v->depth;
}

static int one_fork(struct virt *v)
{
	if (v->depth == VIRT_MAX_LEVELS)
		return -EOVERFLOW;
	int rc = ram_fork(&v->ram);
	for (int i = 0; rc == 0 && i < v->ndisks; i++)
		if ((rc = disk_fork(&v->disks[i])) != 0) {
			while (i--)
				disk_release(&v->disks[i]);
			ram_release(&v->ram, forget_page, v);
		}
	if (rc)
		return rc;
	struct virt_level *l = &v->levels[v->depth++];
	cpu_state_save(&v->cpu, l->cpu);
	l->dev = v->dev;
	l->stop = v->stop;
	/* Every page now belongs to an older level: no write may bypass
	 * ram_page_w through a cached pointer. Reads and fetches may. */
	cpu_flush_writable(&v->cpu);
	cpu_tlb_save(&v->cpu, &l->tlb);
	assert(depths_agree(v));
	return 0;
}

static int one_restore(struct virt *v)
{
	if (v->depth == 0)
		return -EINVAL;
	struct virt_level *l = &v->levels[v->depth - 1];
	int rc = ram_restore(&v->ram, forget_page, v);
	for (int i = 0; rc == 0 && i < v->ndisks; i++)
		rc = disk_restore(&v->disks[i]);
	if (rc)
		return rc;		 /* cannot happen with depths in lockstep */
	cpu_state_load(&v->cpu, l->cpu); /* drops the TLB: pages moved */
	cpu_tlb_load(&v->cpu, &l->tlb);	 /* but what still holds of the fork's */
	v->dev = l->dev;
	v->stop = (enum virt_stop)l->stop;
	v->cmd_pending = false;
	assert(depths_agree(v));
	return 0;
}

static int one_release(struct virt *v)
{
	int rc = one_restore(v);
	if (rc)
		return rc;
	ram_release(&v->ram, forget_page, v);
	for (int i = 0; i < v->ndisks; i++)
		disk_release(&v->disks[i]);
	v->depth--;
	assert(depths_agree(v));
	return 0;
}

/* A machine and its peer (virt.h) open, restore and close their levels
 * together, so a search that forks one forks both. */
int virt_fork(struct virt *v)
{
	int rc = one_fork(v);
	if (rc == 0 && v->peer && (rc = one_fork(v->peer)) != 0)
		(void)one_release(v);
	return rc;
}

int virt_restore(struct virt *v)
{
	int rc = one_restore(v);
	return rc == 0 && v->peer ? one_restore(v->peer) : rc;
}

int virt_release(struct virt *v)
{
	int rc = one_release(v);
	return rc == 0 && v->peer ? one_release(v->peer) : rc;
}
