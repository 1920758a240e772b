/* virt_hash.c - hashes of the machine: of guest RAM's content (what `boot
 * --stats` prints and the tests compare), and of the whole machine (RAM,
 * the hart, the device block part by part, every disk), which a restore
 * must bring back exactly. */
#include <stdio.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "virt_internal.h"

int virt_ram_hash(const struct virt *v, char out[33])
{
	uint8_t h[16];
	int rc = ram_hash(&v->ram, h);
	if (rc) {
		snprintf(out, 33, "out of memory");
		return rc;
	}
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
	return 0;
}

/* Pages and chunks as the machine holds them: (index, content) of every
 * one that is not the never-written / still-the-base kind. Stricter than a
 * content hash (a restore must also put back what was never written) and
 * proportional to what the guest touched, not to RAM or disk size. */
static void hash_table(XXH3_state_t *st, uint8_t *const *table, uint64_t n, size_t size)
{
	for (uint64_t i = 0; i < n; i++)
		if (table[i]) {
			XXH3_128bits_update(st, &i, sizeof(i));
			XXH3_128bits_update(st, table[i], size);
		}
	XXH3_128bits_update(st, &n, sizeof(n));
}

int virt_state_hash(const struct virt *v, uint8_t out[16])
{
	uint8_t cpu[CPU_STATE_SIZE];
	struct virt_part parts[VIRT_MAX_PARTS];
	XXH3_state_t state, *st = &state; /* on the stack: nothing to fail */
	XXH3_INITSTATE(st);
	XXH3_128bits_reset(st);
	hash_table(st, v->ram.pages, v->ram.npages, RAM_PAGE_SIZE);
	cpu_state_save(&v->cpu, cpu);
	XXH3_128bits_update(st, cpu, sizeof(cpu));
	for (int i = 0, n = virt_parts(v, parts); i < n; i++) {
		XXH3_128bits_update(st, parts[i].name, strlen(parts[i].name) + 1);
		XXH3_128bits_update(st, &parts[i].version, sizeof(parts[i].version));
		XXH3_128bits_update(st, (const char *)&v->dev + parts[i].offset, parts[i].size);
	}
	for (int i = 0; i < v->ndisks; i++)
		hash_table(st, v->disks[i].chunks, v->disks[i].nchunks, DISK_CHUNK_SIZE);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	memcpy(out, c.digest, 16);
	return 0;
}
