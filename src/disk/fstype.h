/* fstype.h - which filesystem a disk image holds, read from its superblock,
 * so the guest agent can be told what to mount without the user saying. */
#ifndef THEMIS_FSTYPE_H
#define THEMIS_FSTYPE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes from the start of an image that decide its type (btrfs's magic
 * lies at 64 KiB). */
#define FSTYPE_PROBE_BYTES (68u << 10)

/* The Linux filesystem type name ("ext4", "xfs", ...), or NULL if the image
 * holds none that Themis knows (or cannot be read). */
const char *fstype_detect(const char *path);
/* The same, of the first n bytes of an image (n <= FSTYPE_PROBE_BYTES;
 * fewer when the image is smaller). */
const char *fstype_probe(const uint8_t *b, size_t n);

#endif
