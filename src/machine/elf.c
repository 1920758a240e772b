/* elf.c - see elf.h. Only what a bare-metal program needs: ELF64,
 * little-endian, EM_RISCV, an executable; segments placed at their physical
 * addresses; the optional `tohost` symbol found through the symbol table. */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"

#define ELF_MAX_SIZE (1ULL << 32)

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Read a whole file; NULL with err set on failure. */
static uint8_t *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fail(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	uint8_t *buf = NULL;
	long size = -1;
	if (fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fail(err, errlen, "cannot read: %s", strerror(errno));
	} else if ((unsigned long)size > ELF_MAX_SIZE) {
		fail(err, errlen, "file is larger than 4 GiB");
	} else if (!(buf = malloc(size ? (size_t)size : 1))) {
		fail(err, errlen, "out of memory");
	} else if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fail(err, errlen, "cannot read: %s", ferror(f) ? strerror(errno) : "short read");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)(size < 0 ? 0 : size);
	return buf;
}

static bool in_file(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

static int check_header(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	if (len == 0)
		return fail(err, errlen, "empty file, not an ELF executable");
	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return fail(err, errlen, "not an ELF file");
	if (buf[EI_CLASS] != ELFCLASS64)
		return fail(err, errlen, "ELF class %d, expected 64-bit (ELFCLASS64)",
			    buf[EI_CLASS]);
	if (len < sizeof(Elf64_Ehdr))
		return fail(err, errlen, "truncated ELF header");
	if (buf[EI_DATA] != ELFDATA2LSB)
		return fail(err, errlen, "big-endian ELF, expected little-endian");
	if (eh->e_machine != EM_RISCV)
		return fail(err, errlen, "ELF machine %u, expected RISC-V (%u)", eh->e_machine,
			    EM_RISCV);
	if (eh->e_type != ET_EXEC)
		return fail(err, errlen, "ELF type %u, expected an executable (ET_EXEC)",
			    eh->e_type);
	if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_file(len, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
		return fail(err, errlen, "program headers lie outside the file");
	if (eh->e_phnum == 0)
		return fail(err, errlen, "no program headers, nothing to load");
	return 0;
}

static int check_segments(const uint8_t *buf, size_t len, const struct ram *ram, char *err,
			  size_t errlen)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
	int loads = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
			continue;
		loads++;
		if (ph[i].p_filesz > ph[i].p_memsz || !in_file(len, ph[i].p_offset, ph[i].p_filesz))
			return fail(err, errlen, "segment %d lies outside the file", i);
		if (!ram_contains(ram, ph[i].p_paddr, ph[i].p_memsz))
			return fail(err, errlen,
				    "segment %d at 0x%llx..0x%llx is outside RAM (0x%llx..0x%llx)",
				    i, (unsigned long long)ph[i].p_paddr,
				    (unsigned long long)(ph[i].p_paddr + ph[i].p_memsz),
				    (unsigned long long)ram->base,
				    (unsigned long long)(ram->base + ram->size));
	}
	if (!loads)
		return fail(err, errlen, "no loadable segments");
	if (!ram_contains(ram, eh->e_entry, 2))
		return fail(err, errlen, "entry point 0x%llx is outside RAM",
			    (unsigned long long)eh->e_entry);
	return 0;
}

/* Find `tohost` in the symbol table, if the file has one. */
static void find_tohost(const uint8_t *buf, size_t len, struct elf_image *img)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (!in_file(len, sh[i].sh_offset, sh[i].sh_size) ||
		    !in_file(len, str->sh_offset, str->sh_size))
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
		size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
		const char *names = (const char *)(buf + str->sh_offset);
		for (size_t k = 0; k < n; k++) {
			uint32_t off = sym[k].st_name;
			if (off < str->sh_size && str->sh_size - off >= sizeof("tohost") &&
			    memcmp(names + off, "tohost", sizeof("tohost")) == 0) {
				img->has_tohost = true;
				img->tohost = sym[k].st_value;
				return;
			}
		}
	}
}

int elf_load(const char *path, struct ram *ram, struct elf_image *img, char *err, size_t errlen)
{
	size_t len;
	uint8_t *buf = read_file(path, &len, err, errlen);
	if (!buf)
		return -1;
	if (check_header(buf, len, err, errlen) || check_segments(buf, len, ram, err, errlen)) {
		free(buf);
		return -1;
	}
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
			continue;
		/* RAM starts zeroed: only the file's bytes need copying. */
		if (!ram_write(ram, ph[i].p_paddr, buf + ph[i].p_offset, ph[i].p_filesz)) {
			free(buf);
			return fail(err, errlen, "out of memory loading segment %d", i);
		}
	}
	*img = (struct elf_image){.entry = eh->e_entry};
	find_tohost(buf, len, img);
	if (img->has_tohost && !ram_contains(ram, img->tohost, 8))
		img->has_tohost = false;
	free(buf);
	return 0;
}
