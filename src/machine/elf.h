/* elf.h - loading a freestanding RV64 ELF executable into guest RAM, for
 * bare-metal runs. The whole file is validated before a byte is copied. */
#ifndef THEMIS_ELF_H
#define THEMIS_ELF_H

#include <stddef.h>

#include "../mem/ram.h"

struct elf_image {
	uint64_t entry;
	bool has_tohost;
	uint64_t tohost; /* address of the `tohost` symbol, when present */
};

/* Load the PT_LOAD segments of `path` into `ram`. Returns 0, or -1 with a
 * one-line reason (without the file name) in err. */
int elf_load(const char *path, struct ram *ram, struct elf_image *img, char *err, size_t errlen);

#endif
