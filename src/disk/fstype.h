/* fstype.h - which filesystem a disk image holds, read from its superblock,
 * so the guest agent can be told what to mount without the user saying. */
#ifndef THEMIS_FSTYPE_H
#define THEMIS_FSTYPE_H

/* The Linux filesystem type name ("ext4", "xfs", ...), or NULL if the image
 * holds none that Themis knows (or cannot be read). */
const char *fstype_detect(const char *path);

#endif
