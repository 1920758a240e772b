/* virt_hostfn.h - guest kernel functions the board computes on the host,
 * as a CPU with an instruction for them would: the bitwise CRCs of
 * lib/crc32.c, and memset. The guest profile found them: the
 * filesystems' metadata checksums (crc32c: ext4, xfs, btrfs, jbd2; crc32:
 * f2fs) were 18% of all guest instructions at about ten a byte; memset
 * was a third of the recoveries under --crash (xfs zeroes the log's
 * buffers on every mount of a dirty log), at one store per eight bytes.
 *
 * The functions are found by name in the kernel's System.map (KERNEL.map,
 * which scripts/build-kernel.sh keeps beside each image); their entry
 * decodes as a host call (cpu.h's host_fn), which leaves the same result
 * the guest's code would and counts as one instruction. A kernel without
 * a map, or THEMIS_GUEST_CODE=1 in the environment (to compare guest
 * instructions with QEMU's, or to profile those functions), runs the
 * guest's own code. Nothing else changes: a CRC is the CRC, to the bit;
 * a memset writes its bytes through the page tables as the hart's stores
 * would (accessed and dirty bits, copy-on-write, decoded code dropped);
 * the tests check both against references and against QEMU's disks. */
#ifndef THEMIS_VIRT_HOSTFN_H
#define THEMIS_VIRT_HOSTFN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the machine computes, once: X(KIND, report.json key, what the
 * summary calls them). */
#define VIRT_HOST_KINDS(X)                                                                         \
	X(CRC, "host_crc", "CRCs")                                                                 \
	X(SET, "host_memset", "memsets")

enum {
#define VIRT_HOST_KIND_ENUM(kind, key, words) VIRT_HOST_##kind,
	VIRT_HOST_KINDS(VIRT_HOST_KIND_ENUM)
#undef VIRT_HOST_KIND_ENUM
	    VIRT_HOST_NKINDS
};

/* The functions, once: X(NAME, symbol, kind, reflected polynomial).
 *   CRC: u32 f(u32 crc, const u8 *p, size_t len), the CRC of p continued
 *        from crc, with no inversion before or after (include/linux/crc32.h);
 *   SET: void *f(void *s, int c, size_t n), arch/riscv/lib/memset.S (the
 *        plain symbol memset is the same code, or KASAN's checking
 *        wrapper around it). */
#define VIRT_HOST_FNS(X)                                                                           \
	X(CRC32_LE, "crc32_le_base", CRC, 0xedb88320u)                                             \
	X(CRC32C_LE, "__crc32c_le_base", CRC, 0x82f63b78u)                                         \
	X(MEMSET, "__memset", SET, 0)

enum {
#define VIRT_HOST_FN_ENUM(name, sym, kind, poly) VIRT_HOSTFN_##name,
	VIRT_HOST_FNS(VIRT_HOST_FN_ENUM)
#undef VIRT_HOST_FN_ENUM
	    VIRT_HOSTFNS
};

/* One CRC's tables, for eight bytes a step ("slicing by 8"); and, for
 * CRC-32C on an x86-64 host with SSE 4.2, its crc32 instruction. */
struct virt_crc_table {
	uint32_t t[8][256];
	bool hw;
};

/* The reflected CRC of len bytes at p, continued from crc. */
uint32_t virt_crc(const struct virt_crc_table *t, uint32_t crc, const uint8_t *p, size_t len);
/* hw: use the host's instruction where there is one (CRC-32C only). */
void virt_crc_table_init(struct virt_crc_table *t, uint32_t poly, bool hw);

struct virt;

/* Find the functions in kernel's map and wire them (before the guest
 * runs), at their virtual addresses and, with the kernel's first byte
 * (_start) loaded at physical address load_pa (0: unknown), at their
 * physical ones. How many were found; 0 also when there is no map. */
int virt_hostfn_setup(struct virt *v, const char *kernel, uint64_t load_pa);

/* The calls the machine served and the bytes they read or wrote since
 * the last take, on v and its peer, added to calls[kind] and bytes[kind]. */
void virt_hostfn_take(struct virt *v, uint64_t calls[VIRT_HOST_NKINDS],
		      uint64_t bytes[VIRT_HOST_NKINDS]);
/* The kind's report.json key and summary words. */
const char *virt_host_kind_key(int kind);
const char *virt_host_kind_words(int kind);

struct cpu;
/* The cpu_bus callback. */
bool virt_hostfn_call(void *opaque, struct cpu *c, int which, uint64_t *ret);

#endif
