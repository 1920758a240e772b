/* fdt.h - the flattened device tree the board hands the kernel in a1,
 * generated with libfdt from the board's configuration. */
#ifndef THEMIS_FDT_H
#define THEMIS_FDT_H

#include <stddef.h>
#include <stdint.h>

struct fdt_config {
	uint64_t ram_size;
	const char *bootargs;
	uint64_t initrd_start, initrd_end; /* both 0 without an initrd */
	const uint8_t *rng_seed;	   /* /chosen/rng-seed */
	size_t rng_seed_len;
	int ndisks; /* virtio-mmio slots described */
};

/* Write the tree into buf. Returns its size, or -1 if buf is too small. */
int fdt_build(const struct fdt_config *cfg, void *buf, size_t bufsize);

#endif
