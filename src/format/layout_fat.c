/* layout_fat.c - the layout map of vfat (FAT12/16/32) and exfat, from
 * Microsoft's published on-disk specifications (all fields little-endian).
 * Both keep a file as a chain of clusters in a FAT; the parsers load the
 * FAT, walk the directory tree from the root, and name each chain. A
 * cluster already named is never followed again, so a looping chain or a
 * directory that contains itself ends; recursion is bounded by depth.
 *
 * Structure names (the first claim wins; owner = a file's first cluster,
 * its only stable identity on these formats):
 *   vfat:  superblock (the boot sector with the BPB), fsinfo,
 *          superblock-backup (FAT32's backup boot sector and its fsinfo),
 *          fat, fat-backup (the second and later copies), directory (the
 *          FAT12/16 root directory, every directory's clusters), data,
 *          free (clusters whose FAT entry is 0)
 *   exfat: superblock (the main boot sector), boot-region (the rest of the
 *          main boot region: extended boot sectors, OEM parameters,
 *          checksum), superblock-backup (the backup boot region), fat,
 *          fat-backup, allocation-bitmap, upcase-table, directory, data,
 *          free (clusters the allocation bitmap marks free) */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define MAX_DEPTH 32
#define MAX_FAT	  (64u << 20) /* bytes of FAT loaded: more is a damaged image */

struct fat {
	struct lb *b;
	bool exfat;
	int bits;	 /* 12, 16 or 32 (exfat: 32) */
	uint64_t heap;	 /* byte offset of cluster 2 */
	uint64_t csize;	 /* bytes per cluster */
	uint32_t nclus;	 /* clusters in the heap */
	uint8_t *table;	 /* the first FAT */
	uint64_t tbytes; /* its size */
	uint8_t *seen;	 /* a byte per cluster: already named */
	uint8_t *bitmap; /* exfat: the allocation bitmap (NULL: not found) */
};

/* The FAT entry of cluster c (0 when outside the table). */
static uint32_t fat_next(const struct fat *f, uint32_t c)
{
	if (f->bits == 32) {
		if ((uint64_t)c * 4 + 4 > f->tbytes)
			return 0;
		return lb_le32(f->table + (uint64_t)c * 4) & (f->exfat ? 0xffffffffu : 0x0fffffffu);
	}
	if (f->bits == 16)
		return (uint64_t)c * 2 + 2 > f->tbytes ? 0 : lb_le16(f->table + (uint64_t)c * 2);
	uint64_t at = (uint64_t)c * 3 / 2;
	if (at + 2 > f->tbytes)
		return 0;
	uint16_t v = lb_le16(f->table + at);
	return c & 1 ? v >> 4 : v & 0xfff;
}

static bool valid_cluster(const struct fat *f, uint32_t c)
{
	return c >= 2 && c - 2 < f->nclus;
}

static uint64_t cluster_off(const struct fat *f, uint32_t c)
{
	return f->heap + (uint64_t)(c - 2) * f->csize;
}

/* Claim a chain from first (or, with contiguous, n clusters from first);
 * append its clusters' contents to *out when out is given (a directory). */
static int claim_chain(struct fat *f, uint32_t first, bool contiguous, uint64_t n, const char *what,
		       uint8_t **out, uint64_t *outlen)
{
	uint32_t c = first;
	for (uint64_t i = 0; valid_cluster(f, c) && !f->seen[c - 2]; i++) {
		if (contiguous && i >= n)
			break;
		f->seen[c - 2] = 1;
		if (lb_add(f->b, cluster_off(f, c), f->csize, what, 0, first))
			return -1;
		if (out) {
			if (*outlen > (16u << 20))
				return lb_fail(f->b, "directory at cluster %u over 16 MiB", first);
			uint8_t *p = realloc(*out, *outlen + f->csize);
			if (!p)
				return lb_fail(f->b, "out of memory");
			*out = p;
			if (lb_read(f->b, cluster_off(f, c), p + *outlen, f->csize))
				return -1;
			*outlen += f->csize;
		}
		c = contiguous ? c + 1 : fat_next(f, c);
	}
	return 0;
}

static int vfat_dir(struct fat *f, const uint8_t *d, uint64_t len, int depth)
{
	if (depth > MAX_DEPTH)
		return lb_fail(f->b, "directories nested deeper than %d", MAX_DEPTH);
	for (uint64_t at = 0; at + 32 <= len; at += 32) {
		const uint8_t *e = d + at;
		if (!e[0])
			break; /* the end of the directory */
		if (e[0] == 0xe5 || e[11] == 0x0f || (e[11] & 0x08) || e[0] == '.')
			continue; /* deleted, long-name part, volume label, . and .. */
		uint32_t c =
		    lb_le16(e + 26) | (f->bits == 32 ? (uint32_t)lb_le16(e + 20) << 16 : 0);
		if (!valid_cluster(f, c) || f->seen[c - 2])
			continue;
		if (e[11] & 0x10) {
			uint8_t *sub = NULL;
			uint64_t n = 0;
			int rc = claim_chain(f, c, false, 0, "directory", &sub, &n);
			if (!rc)
				rc = vfat_dir(f, sub, n, depth + 1);
			free(sub);
			if (rc)
				return -1;
		} else if (claim_chain(f, c, false, 0, "data", NULL, NULL)) {
			return -1;
		}
	}
	return 0;
}

static int claim_free(struct fat *f)
{
	for (uint32_t c = 2; c - 2 < f->nclus; c++) {
		bool used = f->exfat ? (f->bitmap && (f->bitmap[(c - 2) / 8] >> ((c - 2) % 8) & 1))
				     : fat_next(f, c) != 0;
		if (f->exfat && !f->bitmap)
			break;
		if (!used && !f->seen[c - 2] &&
		    lb_add(f->b, cluster_off(f, c), f->csize, "free", 0, 0))
			return -1;
	}
	return 0;
}

/* Load the first FAT and the per-cluster marks. */
static int load_fat(struct fat *f, uint64_t off, uint64_t bytes)
{
	uint64_t need = f->bits == 12 ? ((uint64_t)f->nclus + 2) * 3 / 2 + 1
				      : ((uint64_t)f->nclus + 2) * (uint64_t)f->bits / 8;
	if (bytes > MAX_FAT || need > bytes + 1)
		return lb_fail(f->b, "FAT of %" PRIu64 " bytes for %u clusters", bytes, f->nclus);
	f->tbytes = bytes;
	f->table = malloc(bytes ? bytes : 1);
	f->seen = calloc(f->nclus ? f->nclus : 1, 1);
	if (!f->table || !f->seen)
		return lb_fail(f->b, "out of memory");
	return lb_read(f->b, off, f->table, bytes);
}

/* vfat's boot sector: what the walk needs besides struct fat. */
struct vfat_geo {
	uint32_t bps, reserved, nfats, fsinfo, backup, root;
	uint64_t fatsz, rootsecs;
};

/* Read and check vfat's boot sector into f and g: 0, or -1 with b->err. */
static int vfat_open(struct lb *b, struct fat *f, struct vfat_geo *g)
{
	uint8_t bs[512];
	if (lb_read(b, 0, bs, sizeof(bs)))
		return -1;
	uint32_t bps = lb_le16(bs + 11), spc = bs[13], reserved = lb_le16(bs + 14);
	uint32_t nfats = bs[16], rootents = lb_le16(bs + 17);
	uint64_t total = lb_le16(bs + 19) ? lb_le16(bs + 19) : lb_le32(bs + 32);
	uint64_t fatsz = lb_le16(bs + 22) ? lb_le16(bs + 22) : lb_le32(bs + 36);
	if (bps < 512 || bps > 4096 || (bps & (bps - 1)) || !spc || (spc & (spc - 1)) ||
	    !reserved || !nfats || nfats > 4 || !fatsz)
		return lb_fail(b,
			       "BPB: %u bytes per sector, %u per cluster, %u reserved, %u FATs "
			       "of %" PRIu64 " sectors",
			       bps, spc, reserved, nfats, fatsz);
	uint64_t rootsecs = ((uint64_t)rootents * 32 + bps - 1) / bps;
	uint64_t datasec = reserved + nfats * fatsz + rootsecs;
	if (total > b->size / bps)
		return lb_fail(b,
			       "%" PRIu64 " sectors of %u bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       total, bps, b->size);
	if (datasec >= total)
		return lb_fail(b, "no data area: %" PRIu64 " metadata sectors of %" PRIu64, datasec,
			       total);
	*f = (struct fat){.b = b, .csize = (uint64_t)bps * spc, .heap = datasec * bps};
	uint64_t n = (total - datasec) / spc;
	f->nclus = n > 0x0ffffff5 ? 0x0ffffff5 : (uint32_t)n;
	f->bits = f->nclus < 4085 ? 12 : f->nclus < 65525 ? 16 : 32;
	*g = (struct vfat_geo){.bps = bps,
			       .reserved = reserved,
			       .nfats = nfats,
			       .fsinfo = lb_le16(bs + 48),
			       .backup = lb_le16(bs + 50),
			       .root = lb_le32(bs + 44),
			       .fatsz = fatsz,
			       .rootsecs = rootsecs};
	return 0;
}

/* Load the FAT and read the root directory (claimed as such): FAT32's
 * chain, or FAT12/16's fixed area, into a malloc'd *root of *len bytes. */
static int vfat_root(struct fat *f, const struct vfat_geo *g, uint8_t **root, uint64_t *len)
{
	*root = NULL;
	*len = 0;
	if (load_fat(f, (uint64_t)g->reserved * g->bps, g->fatsz * g->bps))
		return -1;
	if (f->bits == 32)
		return claim_chain(f, g->root, false, 0, "directory", root, len);
	*len = g->rootsecs * g->bps;
	*root = malloc(*len ? *len : 1);
	return *root ? lb_read(f->b, (g->reserved + g->nfats * g->fatsz) * g->bps, *root, *len)
		     : lb_fail(f->b, "out of memory");
}

int layout_vfat(struct lb *b)
{
	struct fat f;
	struct vfat_geo g;
	if (vfat_open(b, &f, &g))
		return -1;
	uint32_t bps = g.bps;
	b->l->block_size = (uint32_t)f.csize;
	int rc = lb_add(b, 0, bps, "superblock", 0, 0);
	if (!rc && f.bits == 32) {
		if (g.fsinfo && g.fsinfo < g.reserved)
			rc = lb_add(b, (uint64_t)g.fsinfo * bps, bps, "fsinfo", 0, 0);
		if (!rc && g.backup && g.backup + 1 < g.reserved && g.backup != g.fsinfo)
			rc =
			    lb_add(b, (uint64_t)g.backup * bps, 2 * bps, "superblock-backup", 0, 0);
	}
	for (uint32_t i = 0; i < g.nfats && !rc; i++)
		rc = lb_add(b, (g.reserved + i * g.fatsz) * bps, g.fatsz * bps,
			    i ? "fat-backup" : "fat", 0, 0);
	if (!rc && g.rootsecs)
		rc = lb_add(b, (g.reserved + g.nfats * g.fatsz) * bps, g.rootsecs * bps,
			    "directory", 0, 0);
	uint8_t *root = NULL;
	uint64_t rootlen = 0;
	if (!rc)
		rc = vfat_root(&f, &g, &root, &rootlen);
	if (!rc)
		rc = vfat_dir(&f, root, rootlen, 0);
	if (!rc)
		rc = claim_free(&f);
	free(root);
	free(f.table);
	free(f.seen);
	return rc;
}

/* An exfat directory: the bitmap and upcase entries, and each file's
 * stream extension (entry 0xc0 after its file entry 0x85). */
static int exfat_dir(struct fat *f, const uint8_t *d, uint64_t len, int depth)
{
	if (depth > MAX_DEPTH)
		return lb_fail(f->b, "directories nested deeper than %d", MAX_DEPTH);
	bool isdir = false;
	for (uint64_t at = 0; at + 32 <= len; at += 32) {
		const uint8_t *e = d + at;
		uint32_t c = lb_le32(e + 20);
		uint64_t size = lb_le64(e + 24);
		uint64_t n = (size + f->csize - 1) / f->csize;
		if (!e[0])
			break;
		if (e[0] == 0x85) {
			isdir = lb_le16(e + 4) & 0x10;
		} else if (e[0] == 0x81 || e[0] == 0x82) {
			const char *what = e[0] == 0x81 ? "allocation-bitmap" : "upcase-table";
			if (e[0] == 0x81 && !f->bitmap && valid_cluster(f, c) &&
			    size >= (f->nclus + 7) / 8 && size <= (1u << 24)) {
				if (!(f->bitmap = malloc(size)))
					return lb_fail(f->b, "out of memory");
				if (lb_read(f->b, cluster_off(f, c), f->bitmap, (f->nclus + 7) / 8))
					return -1;
			}
			if (claim_chain(f, c, false, 0, what, NULL, NULL))
				return -1;
		} else if (e[0] == 0xc0 && valid_cluster(f, c) && !f->seen[c - 2]) {
			bool contiguous = e[1] & 0x02; /* NoFatChain */
			if (isdir) {
				uint8_t *sub = NULL;
				uint64_t sublen = 0;
				int rc =
				    claim_chain(f, c, contiguous, n, "directory", &sub, &sublen);
				if (!rc)
					rc = exfat_dir(f, sub, sublen, depth + 1);
				free(sub);
				if (rc)
					return -1;
			} else if (claim_chain(f, c, contiguous, n, "data", NULL, NULL)) {
				return -1;
			}
		}
	}
	return 0;
}

/* exfat's boot sector: what the walk needs besides struct fat. */
struct exfat_geo {
	uint64_t ss; /* bytes per sector */
	uint32_t root, fatoff, fatlen, nfats;
};

/* Read and check exfat's boot sector into f and g: 0, or -1 with b->err. */
static int exfat_open(struct lb *b, struct fat *f, struct exfat_geo *g)
{
	uint8_t bs[512];
	if (lb_read(b, 0, bs, sizeof(bs)))
		return -1;
	uint64_t vollen = lb_le64(bs + 72);
	uint32_t heapoff = lb_le32(bs + 88), nclus = lb_le32(bs + 92);
	uint32_t sshift = bs[108], cshift = bs[109];
	uint32_t fatoff = lb_le32(bs + 80), fatlen = lb_le32(bs + 84), nfats = bs[110];
	if (sshift < 9 || sshift > 12 || cshift > 25 - sshift || (nfats != 1 && nfats != 2))
		return lb_fail(b, "sector shift %u, cluster shift %u, %u FATs in the boot sector",
			       sshift, cshift, nfats);
	uint64_t ss = 1ull << sshift;
	if (vollen > b->size / ss)
		return lb_fail(b,
			       "%" PRIu64 " sectors of %" PRIu64 " bytes but the image holds "
			       "%" PRIu64 " bytes: truncated",
			       vollen, ss, b->size);
	*f = (struct fat){.b = b,
			  .exfat = true,
			  .bits = 32,
			  .csize = ss << cshift,
			  .heap = (uint64_t)heapoff * ss,
			  .nclus = nclus};
	if (fatoff < 24 || (uint64_t)fatoff + (uint64_t)fatlen * nfats > heapoff ||
	    heapoff + ((uint64_t)nclus << cshift) > vollen)
		return lb_fail(b,
			       "FAT at sector %u (%u sectors), heap at %u of %u clusters, in a "
			       "volume of %" PRIu64 " sectors",
			       fatoff, fatlen, heapoff, nclus, vollen);
	*g = (struct exfat_geo){ss, lb_le32(bs + 96), fatoff, fatlen, nfats};
	return 0;
}

/* Load the FAT and read the root directory's chain (claimed as such)
 * into a malloc'd *dir of *len bytes. */
static int exfat_root(struct fat *f, const struct exfat_geo *g, uint8_t **dir, uint64_t *len)
{
	*dir = NULL;
	*len = 0;
	if (load_fat(f, (uint64_t)g->fatoff * g->ss, (uint64_t)g->fatlen * g->ss))
		return -1;
	return claim_chain(f, g->root, false, 0, "directory", dir, len);
}

int layout_exfat(struct lb *b)
{
	struct fat f;
	struct exfat_geo g;
	if (exfat_open(b, &f, &g))
		return -1;
	uint64_t ss = g.ss;
	b->l->block_size = (uint32_t)f.csize;
	int rc = lb_add(b, 0, ss, "superblock", 0, 0);
	if (!rc)
		rc = lb_add(b, ss, 11 * ss, "boot-region", 0, 0);
	if (!rc)
		rc = lb_add(b, 12 * ss, 12 * ss, "superblock-backup", 0, 0);
	for (uint32_t i = 0; i < g.nfats && !rc; i++)
		rc = lb_add(b, ((uint64_t)g.fatoff + (uint64_t)i * g.fatlen) * ss,
			    (uint64_t)g.fatlen * ss, i ? "fat-backup" : "fat", 0, 0);
	uint8_t *dir = NULL;
	uint64_t dirlen = 0;
	if (!rc)
		rc = exfat_root(&f, &g, &dir, &dirlen);
	if (!rc)
		rc = exfat_dir(&f, dir, dirlen, 0);
	if (!rc)
		rc = claim_free(&f);
	free(dir);
	free(f.table);
	free(f.seen);
	free(f.bitmap);
	return rc;
}

int layout_fat_root(struct lb *b, bool exfat, uint8_t **dir, uint64_t *len)
{
	struct fat f = {0};
	struct vfat_geo vg = {0};
	struct exfat_geo eg;
	*dir = NULL;
	*len = 0;
	int rc = exfat ? exfat_open(b, &f, &eg) : vfat_open(b, &f, &vg);
	if (!rc)
		rc = exfat ? exfat_root(&f, &eg, dir, len) : vfat_root(&f, &vg, dir, len);
	if (rc) {
		free(*dir);
		*dir = NULL;
	}
	if (!rc && !exfat && f.bits == 32 && !*len)
		rc = lb_fail(b, "root directory at cluster %u outside the heap", vg.root);
	free(f.table);
	free(f.seen);
	return rc;
}
