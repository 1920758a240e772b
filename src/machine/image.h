/* image.h - placing a Linux boot: the kernel's Image (checked against the
 * RISC-V boot protocol's header), the initrd, and room for the device tree,
 * in guest RAM. */
#ifndef THEMIS_IMAGE_H
#define THEMIS_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../mem/ram.h"

/* Load a RISC-V Linux Image at RAM base + its text_offset. Sets the entry
 * point and the end of the memory the kernel claims (image_size). */
int image_load_kernel(struct ram *ram, const char *path, uint64_t *entry, uint64_t *end, char *err,
		      size_t errlen);

/* Load a whole file (the initrd) so that it ends at or below `top`, page
 * aligned, and above `floor`. */
int image_load_below(struct ram *ram, const char *path, uint64_t floor, uint64_t top,
		     uint64_t *start, uint64_t *size, char *err, size_t errlen);

#endif
