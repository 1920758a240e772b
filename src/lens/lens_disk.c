/* lens_disk.c - the on-disk view as a lens (always on): after every
 * operation, the state read back from the disk after sync, with caches
 * dropped or through a remount (--durability), compared across the
 * filesystems and with each one's live view. The view itself is
 * check_disk_view (src/check/step.c), which the checker's signatures
 * ("disk:", "durability:") come from. It runs after the io lens, whose
 * observation of the operation's own requests its sync must not blur. */
#include "../check/check.h"
#include "../check/phase.h"
#include "lens.h"

static int disk_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		      const struct op *op, const struct check_step *parent, struct check_step *s,
		      struct lens_out *out)
{
	(void)state, (void)words, (void)op;
	return check_disk_view(v, m, parent, s, out->why, out->whylen, out->sig, out->siglen);
}

static const struct lens_def disk_lens = {
    .name = "disk",
    .help = "the on-disk view: sync, drop caches or remount, read back (--durability)",
    .order = 50,
    .phase = CHECK_PHASE_DISK,
    .always = true,
    .after = disk_after,
};
LENS_REGISTER(disk_lens);
