/* image.c - see image.h. The Image header (Documentation/riscv/boot-image-
 * header.rst): code0/code1, text_offset at 8, image_size at 16, flags at 24,
 * version at 32, magic "RISCV\0\0\0" at 48 (deprecated) and magic2 "RSC\x05"
 * at 56. A file without magic2 is refused rather than run as garbage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image.h"

#define IMAGE_HEADER_SIZE 64
#define IMAGE_MAGIC2	  "RSC\x05"
#define PAGE		  4096ULL

static int fail(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

/* Read `path` into RAM at `at` (already checked to fit), or fail. */
static int read_into(struct ram *ram, const char *path, uint64_t at, uint64_t size, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, strerror(errno), path);
	uint8_t buf[1 << 16];
	while (size) {
		size_t n = size < sizeof(buf) ? (size_t)size : sizeof(buf);
		if (fread(buf, 1, n, f) != n) {
			fclose(f);
			return fail(err, errlen, "short read", path);
		}
		if (!ram_write(ram, at, buf, n)) {
			fclose(f);
			return fail(err, errlen, "out of memory", path);
		}
		at += n, size -= n;
	}
	fclose(f);
	return 0;
}

static int file_size(const char *path, uint64_t *size, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return fail(err, errlen, strerror(errno), path);
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, "not a regular file", path);
	*size = (uint64_t)st.st_size;
	return 0;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int read_header(const char *path, uint8_t hdr[IMAGE_HEADER_SIZE], char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, strerror(errno), path);
	size_t got = fread(hdr, 1, IMAGE_HEADER_SIZE, f);
	fclose(f);
	if (got != IMAGE_HEADER_SIZE)
		return fail(err, errlen, "too short to be a Linux Image (no 64-byte header)", path);
	if (memcmp(hdr + 56, IMAGE_MAGIC2, 4) != 0)
		return fail(err, errlen,
			    "not a RISC-V Linux Image (no \"RSC\\x05\" magic at offset 56; "
			    "pass arch/riscv/boot/Image, not vmlinux or a compressed file)",
			    path);
	return 0;
}

int image_load_kernel(struct ram *ram, const char *path, uint64_t *entry, uint64_t *end, char *err,
		      size_t errlen)
{
	uint8_t hdr[IMAGE_HEADER_SIZE];
	uint64_t fsize;
	if (file_size(path, &fsize, err, errlen) || read_header(path, hdr, err, errlen))
		return -1;
	uint64_t text_offset = le64(hdr + 8), image_size = le64(hdr + 16);
	if (image_size < fsize)
		image_size = fsize; /* old headers leave it 0 */
	uint64_t load = ram->base + text_offset;
	if (text_offset % (2ULL << 20) || !ram_contains(ram, load, image_size)) {
		char why[160];
		snprintf(why, sizeof(why),
			 "kernel of %llu bytes at offset 0x%llx does not fit in %llu MiB of RAM",
			 (unsigned long long)image_size, (unsigned long long)text_offset,
			 (unsigned long long)(ram->size >> 20));
		return fail(err, errlen, why, path);
	}
	if (read_into(ram, path, load, fsize, err, errlen))
		return -1;
	*entry = load;
	*end = load + image_size;
	return 0;
}

int image_load_below(struct ram *ram, const char *path, uint64_t floor, uint64_t top,
		     uint64_t *start, uint64_t *size, char *err, size_t errlen)
{
	uint64_t fsize;
	if (file_size(path, &fsize, err, errlen))
		return -1;
	if (fsize == 0)
		return fail(err, errlen, "empty file", path);
	if (fsize > top - floor || ((top - fsize) & ~(PAGE - 1)) < floor)
		return fail(err, errlen, "does not fit in RAM above the kernel", path);
	uint64_t at = (top - fsize) & ~(PAGE - 1);
	if (read_into(ram, path, at, fsize, err, errlen))
		return -1;
	*start = at;
	*size = fsize;
	return 0;
}
