/* virt_hostfn.c - see virt_hostfn.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmap.h"
#include "virt_hostfn.h"
#include "virt_internal.h"

static const struct {
	const char *sym;
	int kind;
	uint32_t poly;
} fns[VIRT_HOSTFNS] = {
#define VIRT_HOST_FN_ROW(name, sym, kind, poly) {sym, VIRT_HOST_##kind, poly},
    VIRT_HOST_FNS(VIRT_HOST_FN_ROW)
#undef VIRT_HOST_FN_ROW
};

static const struct {
	const char *key, *words;
} kinds[VIRT_HOST_NKINDS] = {
#define VIRT_HOST_KIND_ROW(kind, key, words) {key, words},
    VIRT_HOST_KINDS(VIRT_HOST_KIND_ROW)
#undef VIRT_HOST_KIND_ROW
};

const char *virt_host_kind_key(int kind)
{
	return kind >= 0 && kind < VIRT_HOST_NKINDS ? kinds[kind].key : "?";
}

const char *virt_host_kind_words(int kind)
{
	return kind >= 0 && kind < VIRT_HOST_NKINDS ? kinds[kind].words : "?";
}

_Static_assert(VIRT_HOSTFNS <= CPU_HOST_FNS, "the hart has room for every host function");

#define CRC32C_POLY 0x82f63b78u /* the polynomial of x86's crc32 instruction */

void virt_crc_table_init(struct virt_crc_table *t, uint32_t poly, bool hw)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? c >> 1 ^ poly : c >> 1;
		t->t[0][i] = c;
	}
	for (int s = 1; s < 8; s++)
		for (int i = 0; i < 256; i++)
			t->t[s][i] = t->t[s - 1][i] >> 8 ^ t->t[0][t->t[s - 1][i] & 0xff];
	t->hw = false;
#if defined(__x86_64__)
	__builtin_cpu_init();
	t->hw = hw && poly == CRC32C_POLY && __builtin_cpu_supports("sse4.2");
#else
	(void)hw;
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_x86(uint32_t crc, const uint8_t *p,
							     size_t len)
{
	uint64_t c = crc;
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

uint32_t virt_crc(const struct virt_crc_table *t, uint32_t crc, const uint8_t *p, size_t len)
{
#if defined(__x86_64__)
	if (t->hw)
		return crc32c_x86(crc, p, len);
#endif
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4), memcpy(&hi, p + 4, 4); /* little-endian host */
		lo ^= crc;
		crc = t->t[7][lo & 0xff] ^ t->t[6][lo >> 8 & 0xff] ^ t->t[5][lo >> 16 & 0xff] ^
		      t->t[4][lo >> 24] ^ t->t[3][hi & 0xff] ^ t->t[2][hi >> 8 & 0xff] ^
		      t->t[1][hi >> 16 & 0xff] ^ t->t[0][hi >> 24];
	}
	while (len--)
		crc = crc >> 8 ^ t->t[0][(crc ^ *p++) & 0xff];
	return crc;
}

int virt_hostfn_setup(struct virt *v, const char *kernel, uint64_t load_pa)
{
	const char *off = getenv("THEMIS_GUEST_CODE");
	if (!kernel || (off && *off && strcmp(off, "0")))
		return 0;
	char path[4096], err[512];
	struct kmap map;
	snprintf(path, sizeof(path), "%s.map", kernel);
	if (kmap_load(&map, path, err, sizeof(err)))
		return 0; /* no map: the guest's own code runs */
	int found = 0;
	uint64_t start = kmap_addr(&map, "_start");
	for (int i = 0; i < VIRT_HOSTFNS; i++) {
		uint64_t va = kmap_addr(&map, fns[i].sym);
		v->cpu.host_fn[i] = va;
		v->cpu.host_fn_alias[i] =
		    va && start && load_pa && va > start ? va - start + load_pa : 0;
		found += va != 0;
		if (fns[i].kind == VIRT_HOST_CRC)
			virt_crc_table_init(&v->crc[i], fns[i].poly, true);
	}
	kmap_free(&map);
	return found;
}

/* The guest's bytes at kernel address va, as the function would read
 * them: false where a page does not translate (the guest's own code then
 * runs, and faults as it would). */
static bool crc_guest(struct virt *v, const struct virt_crc_table *t, uint64_t va, uint64_t len,
		      uint32_t *crc)
{
	while (len) {
		uint64_t pa, n = 4096 - (va & 0xfff);
		n = n < len ? n : len;
		const uint8_t *page;
		if (!cpu_kernel_peek(&v->cpu, va, &pa) || !(page = ram_page(&v->ram, pa)))
			return false;
		*crc = virt_crc(t, *crc, page + (pa & 0xfff), n);
		va += n, len -= n;
	}
	return true;
}

bool virt_hostfn_call(void *opaque, struct cpu *c, int which, uint64_t *ret)
{
	struct virt *v = opaque;
	if (c->priv != PRV_S || which < 0 || which >= VIRT_HOSTFNS)
		return false;
	int kind = fns[which].kind;
	uint64_t len = c->x[12];
	if (kind == VIRT_HOST_SET) {
		if (!cpu_fill(c, c->x[10], (uint8_t)c->x[11], len))
			return false;
		*ret = c->x[10]; /* memset returns s */
	} else {
		uint32_t crc = (uint32_t)c->x[10];
		if (!crc_guest(v, &v->crc[which], c->x[11], len, &crc))
			return false;
		*ret = (uint64_t)(int64_t)(int32_t)crc; /* a u32 in a register: sign-extended */
	}
	v->hostfn_calls[kind]++;
	v->hostfn_bytes[kind] += len;
	return true;
}

void virt_hostfn_take(struct virt *v, uint64_t calls[VIRT_HOST_NKINDS],
		      uint64_t bytes[VIRT_HOST_NKINDS])
{
	for (; v; v = v->peer)
		for (int k = 0; k < VIRT_HOST_NKINDS; k++) {
			calls[k] += v->hostfn_calls[k], bytes[k] += v->hostfn_bytes[k];
			v->hostfn_calls[k] = v->hostfn_bytes[k] = 0;
		}
}
