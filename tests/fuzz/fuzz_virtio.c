/* fuzz_virtio.c - a hostile driver against virtio-blk and the virtio-mmio
 * transport: the device must never crash, never touch host memory outside
 * guest RAM, never write guest memory the driver did not hand it, and
 * always return from a register access.
 *
 * Build and run from the repository root:
 *   gcc -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g \
 *       -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
 *       -Isrc tests/fuzz/fuzz_virtio.c src/dev/virtio_blk.c src/dev/virtio_mmio.c \
 *       src/disk/disk.c -o build/asan/fuzz_virtio
 *   timeout 300 build/asan/fuzz_virtio [rounds] [first-seed]
 *
 * Guest RAM is a heap buffer of exactly its size, so ASan catches any host
 * access past it. Each seeded round resets the device (usually), sets up a
 * queue (usually sane, sometimes of a bad size or at addresses outside RAM,
 * misaligned or wrapping past 2^64), fills the descriptor table with a mix
 * of plausible requests and garbage (buffers out of RAM or near 2^64,
 * loops, lengths that overflow, zero lengths, indirect flags, status bytes
 * outside RAM), makes the available index jump by a little or a lot with
 * heads out of range, and then interleaves notifies with random register
 * accesses and random scribbles over the rings. Checked after every step:
 * the interrupt line follows InterruptStatus, a ready queue has a legal
 * size, and every device write to guest memory lies in the used ring or in
 * a buffer some descriptor marked device-writable (the harness rescans the
 * table after each device write, so descriptors the device itself rewrote
 * count too). A runaway notify trips a DMA-count limit. At the end the base
 * images must be byte-for-byte unchanged. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/virtio_blk.h"

#define RAM_BASE   0x80000000ULL
#define RAM_SIZE   (256u << 10)
#define DISK_SIZE  (64u << 10)
#define MAX_RANGES 4096
#define DMA_LIMIT  1000000 /* DMA accesses in one register write: a runaway */

struct range {
	uint64_t lo, hi; /* [lo, hi) */
};

struct fuzz {
	uint8_t *ram;
	uint64_t rng;
	struct virtio_blk *blks; /* the two devices, read-write and read-only */
	struct virtio_blk *blk;	 /* the one under test this round */
	struct range allowed[MAX_RANGES];
	int nallowed;
	bool overflowed;   /* too many ranges: skip the write check */
	bool irq_level[2]; /* one line per device */
	unsigned long dma_ops, refused, bad_writes, notifies, used, irqs;
};

static uint64_t rnd(struct fuzz *f)
{
	uint64_t x = f->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return f->rng = x;
}

static uint64_t below(struct fuzz *f, uint64_t n)
{
	return n ? rnd(f) % n : 0;
}

static bool chance(struct fuzz *f, unsigned percent)
{
	return below(f, 100) < percent;
}

static bool in_ram(uint64_t pa, uint64_t len)
{
	return pa >= RAM_BASE && len <= RAM_SIZE && pa - RAM_BASE <= RAM_SIZE - len;
}

static uint8_t *gp(struct fuzz *f, uint64_t pa)
{
	return f->ram + (pa - RAM_BASE);
}

/* --- what the device is allowed to write --------------------------------- */

static void allow(struct fuzz *f, uint64_t lo, uint64_t len)
{
	if (f->nallowed == MAX_RANGES) {
		f->overflowed = true;
		return;
	}
	f->allowed[f->nallowed++] = (struct range){lo, lo + len};
}

/* Add the used ring and every device-writable buffer of queue 0's table as
 * it stands now. */
static void scan_table(struct fuzz *f)
{
	const struct virtq *vq = &f->blk->vio.s->queues[0];
	if (!vq->ready)
		return;
	allow(f, vq->used, 6 + 8ULL * vq->num);
	for (uint32_t i = 0; i < vq->num; i++) {
		uint64_t d = vq->desc + 16ULL * i;
		if (!in_ram(d, 16))
			continue;
		uint64_t addr = virtio_get_le(gp(f, d), 8), len = virtio_get_le(gp(f, d + 8), 4);
		if ((virtio_get_le(gp(f, d + 12), 2) & VIRTQ_DESC_F_WRITE) && len &&
		    in_ram(addr, len))
			allow(f, addr, len);
	}
}

static bool write_allowed(const struct fuzz *f, uint64_t pa, uint64_t len)
{
	if (f->overflowed)
		return true;
	for (int i = 0; i < f->nallowed; i++)
		if (pa >= f->allowed[i].lo && pa + len <= f->allowed[i].hi)
			return true;
	return false;
}

static bool ram_read(void *opaque, uint64_t pa, void *buf, uint64_t len)
{
	struct fuzz *f = opaque;
	f->dma_ops++;
	if (!in_ram(pa, len)) {
		f->refused++;
		return false;
	}
	memcpy(buf, gp(f, pa), len);
	return true;
}

static bool ram_write(void *opaque, uint64_t pa, const void *buf, uint64_t len)
{
	struct fuzz *f = opaque;
	f->dma_ops++;
	if (!in_ram(pa, len)) {
		f->refused++;
		return false;
	}
	if (!write_allowed(f, pa, len)) {
		f->bad_writes++;
		fprintf(stderr, "device wrote %llu bytes at 0x%llx, not handed to it\n",
			(unsigned long long)len, (unsigned long long)pa);
	}
	const struct virtq *vq = &f->blk->vio.s->queues[0];
	f->used += vq->ready && pa == vq->used + 2 && len == 2; /* a used index published */
	memcpy(gp(f, pa), buf, len);
	scan_table(f);
	return true;
}

static void irq_drive(void *ctl, int source, bool level)
{
	struct fuzz *f = ctl;
	f->irqs += level && !f->irq_level[source];
	f->irq_level[source] = level;
}

/* --- the hostile driver --------------------------------------------------- */

/* Any register access, of any size: what the device may write is what the
 * table allows now, and the access must end within DMA_LIMIT accesses. */
static void reg_access(struct fuzz *f, bool write, uint64_t off, int size, uint64_t *val)
{
	f->nallowed = 0;
	f->overflowed = false;
	scan_table(f);
	f->dma_ops = 0;
	if (write)
		virtio_mmio_ops.write(&f->blk->vio, off, size, *val);
	else
		virtio_mmio_ops.read(&f->blk->vio, off, size, val);
	if (f->dma_ops > DMA_LIMIT) {
		fprintf(stderr, "register 0x%llx: %lu DMA accesses, a runaway\n",
			(unsigned long long)off, f->dma_ops);
		f->bad_writes++;
	}
}

static void mw(struct fuzz *f, uint64_t off, uint32_t val)
{
	uint64_t v = val;
	reg_access(f, true, off, 4, &v);
}

static uint32_t mr(struct fuzz *f, uint64_t off)
{
	uint64_t v = 0;
	reg_access(f, false, off, 4, &v);
	return (uint32_t)v;
}

/* An address: mostly in RAM, sometimes just past it, near 2^64 or wild. */
static uint64_t any_addr(struct fuzz *f, uint64_t align)
{
	uint64_t a;
	switch (below(f, 10)) {
	case 0: a = RAM_BASE + RAM_SIZE - below(f, 64); break;
	case 1: a = UINT64_MAX - below(f, 4096); break;
	case 2: a = rnd(f); break;
	case 3: a = RAM_BASE - 1 - below(f, 64); break;
	default: a = RAM_BASE + below(f, RAM_SIZE); break;
	}
	return chance(f, 90) ? a & ~(align - 1) : a;
}

static uint32_t any_len(struct fuzz *f)
{
	switch (below(f, 8)) {
	case 0: return 0;
	case 1: return 0xffffffffu - (uint32_t)below(f, 16);
	case 2: return 0x80000000u;
	case 3: return (uint32_t)rnd(f);
	case 4: return 1;
	default: return 512 * (uint32_t)(1 + below(f, 16));
	}
}

static void put_desc(struct fuzz *f, uint64_t d, uint64_t addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	if (!in_ram(d, 16))
		return;
	virtio_put_le(gp(f, d), addr, 8);
	virtio_put_le(gp(f, d + 8), len, 4);
	virtio_put_le(gp(f, d + 12), flags, 2);
	virtio_put_le(gp(f, d + 14), next, 2);
}

/* A request header somewhere in RAM: a real type and a sector near the
 * start or end of the disk, or garbage. */
static uint64_t plausible_header(struct fuzz *f)
{
	static const uint32_t types[] = {VIRTIO_BLK_T_IN, VIRTIO_BLK_T_OUT, VIRTIO_BLK_T_FLUSH,
					 VIRTIO_BLK_T_GET_ID};
	uint64_t h = RAM_BASE + below(f, RAM_SIZE - 16);
	uint64_t sectors = DISK_SIZE / 512;
	uint32_t type = chance(f, 85) ? types[below(f, 4)] : (uint32_t)rnd(f);
	uint64_t sector = chance(f, 80) ? below(f, sectors + 4) : UINT64_MAX - below(f, 64);
	virtio_put_le(gp(f, h), type, 4);
	virtio_put_le(gp(f, h + 8), sector, 8);
	return h;
}

/* A chain shaped like a real request from descriptor i on: header,
 * data, status; every part may be bent. Returns the next free index. */
static uint32_t plausible_chain(struct fuzz *f, uint64_t desc, uint32_t num, uint32_t i)
{
	uint32_t ndata = (uint32_t)below(f, 4), n = ndata + 2;
	bool in = chance(f, 50);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t at = (i + k) % num;
		uint16_t next = (uint16_t)((at + 1) % num), flags = VIRTQ_DESC_F_NEXT;
		uint64_t addr;
		uint32_t len;
		if (k == 0) {
			addr = plausible_header(f);
			len = chance(f, 90) ? 16 : (uint32_t)below(f, 32);
		} else if (k == n - 1) {
			addr = chance(f, 85) ? RAM_BASE + below(f, RAM_SIZE) : any_addr(f, 1);
			len = chance(f, 90) ? 1 : any_len(f);
			flags = VIRTQ_DESC_F_WRITE;
		} else {
			len = chance(f, 80) ? 512 * (uint32_t)(1 + below(f, 8)) : any_len(f);
			addr = chance(f, 80)
				   ? RAM_BASE + below(f, RAM_SIZE - (len < RAM_SIZE ? len : 0))
				   : any_addr(f, 1);
			flags |= in ? VIRTQ_DESC_F_WRITE : 0;
		}
		if (chance(f, 3))
			flags ^= (uint16_t)(1u << below(f, 3)); /* NEXT, WRITE or INDIRECT */
		if (chance(f, 3))
			next =
			    (uint16_t)(chance(f, 50) ? below(f, num) : rnd(f)); /* loops, range */
		put_desc(f, desc + 16ULL * at, addr, len, flags, next);
	}
	return (i + n) % num;
}

static void fill_table(struct fuzz *f, uint64_t desc, uint32_t num)
{
	for (uint32_t i = 0; i < num; i++)
		put_desc(f, desc + 16ULL * i, any_addr(f, 1), any_len(f), (uint16_t)below(f, 8),
			 (uint16_t)(chance(f, 80) ? below(f, num) : rnd(f)));
	for (uint32_t i = 0, k = 0; k < num / 2 + 1; k++)
		i = plausible_chain(f, desc, num, i);
}

/* Publish `count` heads (mostly chain starts, sometimes out of range) and
 * move the available index by `count`, or somewhere else entirely. */
static void offer(struct fuzz *f, const struct virtq *vq, uint64_t avail, uint32_t num)
{
	if (!in_ram(avail, 4 + 2ULL * num))
		return;
	uint16_t idx = (uint16_t)virtio_get_le(gp(f, avail + 2), 2);
	uint32_t count = (uint32_t)below(f, num + 1);
	for (uint32_t k = 0; k < count; k++) {
		uint16_t head = (uint16_t)(chance(f, 95) ? below(f, num) : rnd(f));
		virtio_put_le(gp(f, avail + 4 + 2ULL * ((idx + k) % num)), head, 2);
	}
	idx = (uint16_t)(chance(f, 90) ? idx + count : rnd(f));
	if (chance(f, 5))
		idx = (uint16_t)(vq->last_avail_idx + num + 1 + below(f, 100)); /* far ahead */
	virtio_put_le(gp(f, avail + 2), idx, 2);
	virtio_put_le(gp(f, avail), chance(f, 20) ? VIRTQ_AVAIL_F_NO_INTERRUPT : 0, 2);
}

static void setup(struct fuzz *f, uint32_t *num, uint64_t *desc, uint64_t *avail, uint64_t *used)
{
	static const uint32_t odd[] = {0, 3, 255, 257, 512, 65536, 0xffffffffu};
	if (chance(f, 90)) {
		mw(f, 0x070, 0); /* reset */
		mw(f, 0x070, 3);
		mw(f, 0x024, 1);
		mw(f, 0x020, 1);
		mw(f, 0x024, 0);
		mw(f, 0x020,
		   chance(f, 95) ? (uint32_t)(1u << VIRTIO_BLK_F_FLUSH) : (uint32_t)rnd(f));
		mw(f, 0x070, 0xb);
	}
	*num = chance(f, 90) ? 1u << below(f, 9) : odd[below(f, 7)];
	uint64_t base = RAM_BASE + (below(f, RAM_SIZE) & ~0xfffULL);
	*desc = chance(f, 90) ? base : any_addr(f, 16);
	*avail = chance(f, 90) ? base + 16ULL * *num : any_addr(f, 2);
	*used = chance(f, 90) ? ((*avail + 6 + 2ULL * *num + 3) & ~3ULL) : any_addr(f, 4);
	if (*num && *num <= VIRTQ_MAX_SIZE && in_ram(*desc, 16ULL * *num))
		fill_table(f, *desc, *num);
	if (in_ram(*used, 4))
		memset(gp(f, *used), 0, 4);
	if (in_ram(*avail, 4))
		memset(gp(f, *avail), 0, 4);
	mw(f, 0x030, chance(f, 95) ? 0 : (uint32_t)rnd(f));
	mw(f, 0x038, *num);
	mw(f, 0x080, (uint32_t)*desc);
	mw(f, 0x084, (uint32_t)(*desc >> 32));
	mw(f, 0x090, (uint32_t)*avail);
	mw(f, 0x094, (uint32_t)(*avail >> 32));
	mw(f, 0x0a0, (uint32_t)*used);
	mw(f, 0x0a4, (uint32_t)(*used >> 32));
	mw(f, 0x044, 1);
	mw(f, 0x070, chance(f, 95) ? 0xf : (uint32_t)rnd(f));
}

/* Overwrite a random byte of the rings. */
static void scribble(struct fuzz *f, uint32_t num, uint64_t desc, uint64_t avail, uint64_t used)
{
	static const uint64_t mul[] = {16, 2, 8};
	int which = (int)below(f, 3);
	uint64_t base = which == 0 ? desc : which == 1 ? avail : used;
	uint64_t pa = base + below(f, mul[which] * (num < 512 ? num : 512) + 6);
	if (in_ram(pa, 1))
		*gp(f, pa) = (uint8_t)rnd(f);
}

/* One random step of the driver. */
static void step(struct fuzz *f, uint32_t num, uint64_t desc, uint64_t avail, uint64_t used)
{
	const struct virtq *vq = &f->blk->vio.s->queues[0];
	uint64_t v = rnd(f);
	switch (below(f, 12)) {
	case 0:
	case 1:
	case 2:
	case 3:
		offer(f, vq, avail, num);
		f->notifies++;
		mw(f, 0x050, chance(f, 95) ? 0 : (uint32_t)rnd(f));
		break;
	case 4: mw(f, 0x064, mr(f, 0x060)); break;
	case 5:
		if (num && num <= VIRTQ_MAX_SIZE && in_ram(desc, 16ULL * num))
			plausible_chain(f, desc, num, (uint32_t)below(f, num));
		break;
	case 6: scribble(f, num, desc, avail, used); break;
	case 7: reg_access(f, true, below(f, 0x220), 1 << below(f, 4), &v); break;
	case 8: reg_access(f, false, below(f, 0x220), 1 << below(f, 4), &v); break;
	case 9: mw(f, 0x044, (uint32_t)below(f, 2)); break;
	case 10: mw(f, 0x030, (uint32_t)below(f, 3)); break;
	default:
		f->notifies++;
		mw(f, 0x050, 0);
		break;
	}
}

/* Invariants the device keeps whatever the driver does. */
static bool sane(struct fuzz *f)
{
	const struct virtio_mmio *vm = &f->blk->vio;
	const struct virtq *vq = &vm->s->queues[0];
	if (f->irq_level[f->blk == f->blks + 1] != (vm->s->interrupt_status != 0)) {
		fprintf(stderr, "interrupt line does not follow InterruptStatus\n");
		return false;
	}
	if (vq->ready && (vq->num == 0 || vq->num > VIRTQ_MAX_SIZE || (vq->num & (vq->num - 1)))) {
		fprintf(stderr, "queue ready with size %u\n", vq->num);
		return false;
	}
	return f->bad_writes == 0;
}

static bool make_image(char *path, size_t pathlen, uint8_t *bytes)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, pathlen, "%s/themis-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return false;
	bool ok = write(fd, bytes, DISK_SIZE) == DISK_SIZE;
	close(fd);
	return ok;
}

static bool unchanged(const char *path, const uint8_t *bytes)
{
	static uint8_t now[DISK_SIZE + 1];
	int fd = open(path, O_RDONLY);
	ssize_t got = fd < 0 ? -1 : read(fd, now, sizeof(now));
	if (fd >= 0)
		close(fd);
	return got == DISK_SIZE && memcmp(now, bytes, DISK_SIZE) == 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	static struct fuzz f;
	static uint8_t image[DISK_SIZE];
	static struct virtio_blk blk[2];
	static struct virtio_blk_state state[2];
	struct disk disk[2];
	char path[2][256], err[200];
	f.ram = calloc(1, RAM_SIZE);
	f.rng = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < sizeof(image); i++)
		image[i] = (uint8_t)rnd(&f);
	struct dma dma = {&f, ram_read, ram_write};
	f.blks = blk;
	for (int i = 0; i < 2; i++) {
		struct irq_line line = {irq_drive, &f, i};
		if (!make_image(path[i], sizeof(path[i]), image) ||
		    disk_open(&disk[i], path[i], i == 1, err, sizeof(err)) ||
		    virtio_blk_init(&blk[i], &state[i], &disk[i], "fuzz", &dma, &line)) {
			fprintf(stderr, "fuzz_virtio: cannot set up disk %d\n", i);
			return 1;
		}
	}
	int failed = 0;
	for (int r = 0; r < rounds && !failed; r++) {
		f.rng = (seed + (uint64_t)r) * 0x9e3779b97f4a7c15ULL | 1;
		f.blk = &blk[r % 8 == 7];
		for (int k = 0; k < 64; k++)
			*gp(&f, RAM_BASE + below(&f, RAM_SIZE)) = (uint8_t)rnd(&f);
		uint32_t num;
		uint64_t desc, avail, used;
		setup(&f, &num, &desc, &avail, &used);
		failed = !sane(&f);
		for (int s = 0; s < 40 && !failed; s++) {
			step(&f, num, desc, avail, used);
			failed = !sane(&f);
		}
		if (failed)
			fprintf(stderr, "fuzz_virtio: round %d (seed %llu) failed\n", r,
				(unsigned long long)(seed + (uint64_t)r));
	}
	for (int i = 0; i < 2; i++) {
		if (!unchanged(path[i], image)) {
			fprintf(stderr, "fuzz_virtio: base image %d changed\n", i);
			failed = 1;
		}
		disk_close(&disk[i]);
		unlink(path[i]);
	}
	free(f.ram);
	printf("fuzz_virtio: %d rounds from seed %llu, %lu notifies, %lu requests returned, "
	       "%lu DMA accesses refused, %lu interrupts: %s\n",
	       rounds, (unsigned long long)seed, f.notifies, f.used, f.refused, f.irqs,
	       failed ? "FAILED" : "ok");
	return failed;
}
