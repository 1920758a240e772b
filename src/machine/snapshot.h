/* snapshot.h - saving a whole machine (at the agent's command loop) to a
 * file and loading it back, refused with a clear reason when the file is
 * damaged, was made by another build, or the disks are not the same base
 * images (the machine's identity, identity.h). See snapshot.c for the
 * layout. */
#ifndef THEMIS_SNAPSHOT_H
#define THEMIS_SNAPSHOT_H

#include "virt.h"

/* Save v (built from cfg, no fork level open) to path. 0, or -1 with err. */
int virt_save(const struct virt *v, const struct virt_config *cfg, const char *path, char *err,
	      size_t errlen);

/* Build a machine from the snapshot at path. cfg brings the host-side
 * options (console, what to do at the doorbell) and, optionally, the disks
 * (which must be the snapshot's base images); the rest comes from the file.
 * On success the machine waits at the doorbell (VIRT_WAITING). */
int virt_load(struct virt *v, struct virt_config *cfg, const char *path, char *err, size_t errlen);

#endif
