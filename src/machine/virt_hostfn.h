/* virt_hostfn.h - guest kernel functions the board computes on the host,
 * as a CPU with an instruction for them would: the bitwise CRCs of
 * lib/crc32.c. The filesystems' metadata checksums (crc32c: ext4, xfs,
 * btrfs, jbd2; crc32: f2fs) were the largest share of guest instructions
 * (the guest profile: crc32_body, 18% of all, 27% of the on-disk view),
 * at about ten guest instructions a byte.
 *
 * The functions are found by name in the kernel's System.map (KERNEL.map,
 * which scripts/build-kernel.sh keeps beside each image); their entry
 * decodes as a host call (cpu.h's host_fn), which returns the same value
 * the guest's code would and counts as one instruction. A kernel without
 * a map, or THEMIS_GUEST_CRC=1 in the environment (to compare guest
 * instructions with QEMU's), runs the guest's own code. Nothing else
 * changes: what the function returns is the CRC, to the bit (the tests
 * check it against the reference and against QEMU's disks). */
#ifndef THEMIS_VIRT_HOSTFN_H
#define THEMIS_VIRT_HOSTFN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The functions, once: X(NAME, symbol, reflected polynomial). Each is
 * u32 f(u32 crc, const u8 *p, size_t len): the CRC of p continued from
 * crc, with no inversion before or after (include/linux/crc32.h). */
#define VIRT_HOST_FNS(X)                                                                           \
	X(CRC32_LE, "crc32_le_base", 0xedb88320u)                                                  \
	X(CRC32C_LE, "__crc32c_le_base", 0x82f63b78u)

enum {
#define VIRT_HOST_FN_ENUM(name, sym, poly) VIRT_HOSTFN_##name,
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
 * runs). How many were found; 0 also when there is no map. */
int virt_hostfn_setup(struct virt *v, const char *kernel);

/* The calls the machine served and the bytes they read since the last
 * take, on v and its peer, added to *calls and *bytes. */
void virt_hostfn_take(struct virt *v, uint64_t *calls, uint64_t *bytes);

/* The cpu_bus callback. */
struct cpu;
bool virt_hostfn_call(void *opaque, struct cpu *c, int which, uint64_t *ret);

#endif
