/* fdt.h - the flattened device tree the board hands the kernel in a1,
 * generated with libfdt from the board's configuration and its device
 * list: the board gives one struct fdt_node per device, naming the writer
 * below that describes it. */
#ifndef THEMIS_FDT_H
#define THEMIS_FDT_H

#include <stddef.h>
#include <stdint.h>

/* A device under /soc: what its node says, and which writer says it. */
struct fdt_node {
	int (*emit)(void *fdt, const struct fdt_node *n);
	const char *name;	/* node name; the unit address is base */
	const char *compatible; /* one or more NUL-terminated strings */
	size_t compatible_len;	/* all of them, with their NULs */
	uint64_t base, size;
	uint32_t irq; /* PLIC source; 0: none */
};

/* The writers (0, or -1 if the buffer is too small). A device with a
 * register window and maybe a PLIC interrupt: */
int fdt_node_device(void *fdt, const struct fdt_node *n);
/* ...with the 16550's clock-frequency: */
int fdt_node_serial(void *fdt, const struct fdt_node *n);
/* QEMU's test finisher as a syscon, with the poweroff and reboot nodes
 * Linux's syscon drivers look for: */
int fdt_node_syscon(void *fdt, const struct fdt_node *n);
/* The PLIC, the interrupt parent of every other node: */
int fdt_node_plic(void *fdt, const struct fdt_node *n);

struct fdt_config {
	uint64_t ram_size;
	const char *bootargs;
	uint64_t initrd_start, initrd_end; /* both 0 without an initrd */
	const uint8_t *rng_seed;	   /* /chosen/rng-seed */
	size_t rng_seed_len;
	const struct fdt_node *soc; /* the devices under /soc, in order */
	int nsoc;
};

/* Write the tree into buf. Returns its size, or -1 if buf is too small. */
int fdt_build(const struct fdt_config *cfg, void *buf, size_t bufsize);

#endif
