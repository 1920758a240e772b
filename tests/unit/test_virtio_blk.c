/* tier: fast */
/* test_virtio_blk.c - the copy-on-write disk, the virtio-mmio transport and
 * virtio-blk, driven the way Linux's virtio_mmio and virtio_blk drivers
 * drive them.
 *
 * Build and run from the repository root:
 *   gcc -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g \
 *       -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
 *       -Isrc tests/unit/test_virtio_blk.c src/dev/virtio_blk.c src/dev/virtio_mmio.c \
 *       src/disk/disk.c -o build/asan/test_virtio_blk
 *   build/asan/test_virtio_blk [test-name]
 *
 * Guest RAM is a heap buffer of exactly its size behind a struct dma that
 * checks bounds (so ASan sees any host access past it) and counts refused
 * accesses; the interrupt line counts rising edges. The test plays the
 * driver: it negotiates features, sets up the queue through MMIO writes,
 * writes descriptors and rings into the fake RAM and kicks QueueNotify.
 * Disk images are temporary files under $TMPDIR (default /tmp), removed at
 * the end. Each test is named for the property it guards; the program
 * prints the number of checks and exits nonzero on any failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "dev/virtio_blk.h"

#define RAM_BASE 0x80000000ULL
#define RAM_SIZE (32u << 20)	     /* room for chains whose lengths pass 4 GiB */
#define DESC_AT	 (RAM_BASE + 0x1000) /* 256 descriptors fill the page */
#define AVAIL_AT (RAM_BASE + 0x2000)
#define USED_AT	 (RAM_BASE + 0x3000)
#define HDR_AT	 (RAM_BASE + 0x4000)
#define STAT_AT	 (RAM_BASE + 0x4100)
#define DATA_AT	 (RAM_BASE + 0x10000)

/* MMIO register offsets, as the driver knows them. */
enum {
	MAGIC = 0x000,
	VERSION = 0x004,
	DEVICE_ID = 0x008,
	VENDOR_ID = 0x00c,
	DEV_FEATURES = 0x010,
	DEV_FEAT_SEL = 0x014,
	DRV_FEATURES = 0x020,
	DRV_FEAT_SEL = 0x024,
	QUEUE_SEL = 0x030,
	QUEUE_NUM_MAX = 0x034,
	QUEUE_NUM = 0x038,
	QUEUE_READY = 0x044,
	QUEUE_NOTIFY = 0x050,
	INT_STATUS = 0x060,
	INT_ACK = 0x064,
	STATUS = 0x070,
	DESC_LO = 0x080,
	DESC_HI = 0x084,
	AVAIL_LO = 0x090,
	AVAIL_HI = 0x094,
	USED_LO = 0x0a0,
	USED_HI = 0x0a4,
	CONFIG_GEN = 0x0fc,
	CONFIG = 0x100,
};

#define FEATURES_LINUX                                                                             \
	(1ULL << VIRTIO_F_VERSION_1 | 1ULL << VIRTIO_BLK_F_SEG_MAX |                               \
	 1ULL << VIRTIO_BLK_F_BLK_SIZE | 1ULL << VIRTIO_BLK_F_FLUSH | 1ULL << VIRTIO_BLK_F_RO)

/* --- the fake machine ---------------------------------------------------- */

struct fake_ram {
	uint8_t *bytes;
	unsigned refused;
};

struct fake_irq {
	bool level;
	unsigned raised;
};

struct rig {
	struct fake_ram ram;
	struct fake_irq irq;
	struct disk disk;
	struct virtio_blk blk;
	struct virtio_blk_state st;		  /* blk's state */
	char path[256];				  /* the base image */
	uint8_t *orig;				  /* its bytes when created */
	uint64_t size;				  /* its size */
	uint32_t num;				  /* driver side: queue size, next descriptor, */
	uint16_t next_desc, avail_idx, used_seen; /* avail idx, used seen */
};

static bool in_ram(uint64_t pa, uint64_t len)
{
	return pa >= RAM_BASE && len <= RAM_SIZE && pa - RAM_BASE <= RAM_SIZE - len;
}

static bool ram_read(void *opaque, uint64_t pa, void *buf, uint64_t len)
{
	struct fake_ram *r = opaque;
	if (!in_ram(pa, len)) {
		r->refused++;
		return false;
	}
	memcpy(buf, r->bytes + (pa - RAM_BASE), len);
	return true;
}

static bool ram_write(void *opaque, uint64_t pa, const void *buf, uint64_t len)
{
	struct fake_ram *r = opaque;
	if (!in_ram(pa, len)) {
		r->refused++;
		return false;
	}
	memcpy(r->bytes + (pa - RAM_BASE), buf, len);
	return true;
}

static void irq_drive(void *ctl, int source, bool level)
{
	struct fake_irq *q = ctl;
	(void)source;
	if (level && !q->level)
		q->raised++;
	q->level = level;
}

static uint8_t *gp(struct rig *r, uint64_t pa)
{
	return r->ram.bytes + (pa - RAM_BASE);
}

static void gput(struct rig *r, uint64_t pa, uint64_t v, int size)
{
	virtio_put_le(gp(r, pa), v, size);
}

static uint64_t gget(struct rig *r, uint64_t pa, int size)
{
	return virtio_get_le(gp(r, pa), size);
}

static uint8_t pattern(uint64_t i, unsigned salt)
{
	return (uint8_t)(i * 131 + (i >> 9) * 7 + salt);
}

/* Create a base image of `size` bytes filled with a pattern. */
static bool make_image(struct rig *r, uint64_t size)
{
	const char *dir = getenv("TMPDIR");
	snprintf(r->path, sizeof(r->path), "%s/themis-vblk-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(r->path);
	if (!CHECK(fd >= 0))
		return false;
	r->size = size;
	r->orig = malloc(size ? size : 1);
	for (uint64_t i = 0; i < size; i++)
		r->orig[i] = pattern(i, 0);
	bool ok = write(fd, r->orig, size) == (ssize_t)size;
	close(fd);
	return CHECK(ok);
}

static bool rig_open(struct rig *r, uint64_t size, bool read_only)
{
	*r = (struct rig){0};
	r->ram.bytes = calloc(1, RAM_SIZE);
	char err[200] = "";
	if (!make_image(r, size))
		return false;
	if (!CHECK(disk_open(&r->disk, r->path, read_only, err, sizeof(err)) == 0)) {
		fprintf(stderr, "disk_open: %s\n", err);
		return false;
	}
	struct dma dma = {&r->ram, ram_read, ram_write};
	struct irq_line line = {irq_drive, &r->irq, 1};
	return CHECK(virtio_blk_init(&r->blk, &r->st, &r->disk, "themis-serial-0", &dma, &line) ==
		     0);
}

static void rig_close(struct rig *r)
{
	disk_close(&r->disk);
	unlink(r->path);
	free(r->orig);
	free(r->ram.bytes);
}

/* The base file still holds exactly the bytes it was created with. */
static bool base_unchanged(struct rig *r)
{
	uint8_t *now = malloc(r->size + 1);
	int fd = open(r->path, O_RDONLY);
	ssize_t got = fd < 0 ? -1 : read(fd, now, r->size + 1);
	if (fd >= 0)
		close(fd);
	bool same = got == (ssize_t)r->size && memcmp(now, r->orig, r->size) == 0;
	free(now);
	return same;
}

/* --- the driver ----------------------------------------------------------- */

/* Register accesses (counted as checks only when they fail). */
static void mw(struct rig *r, uint64_t off, uint32_t val)
{
	if (!virtio_mmio_ops.write(&r->blk.vio, off, 4, val))
		CHECK(!"register write refused");
}

static uint32_t mr(struct rig *r, uint64_t off)
{
	uint64_t v = 0;
	if (!virtio_mmio_ops.read(&r->blk.vio, off, 4, &v))
		CHECK(!"register read refused");
	return (uint32_t)v;
}

static uint64_t device_features(struct rig *r)
{
	mw(r, DEV_FEAT_SEL, 1);
	uint64_t hi = mr(r, DEV_FEATURES);
	mw(r, DEV_FEAT_SEL, 0);
	return hi << 32 | mr(r, DEV_FEATURES);
}

/* Linux's virtio_dev_probe: reset, ACKNOWLEDGE, DRIVER, features,
 * FEATURES_OK and its read-back. Returns whether the device took them. */
static bool negotiate(struct rig *r, uint64_t wanted)
{
	mw(r, STATUS, 0);
	mw(r, STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
	mw(r, STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	uint64_t f = device_features(r) & wanted;
	mw(r, DRV_FEAT_SEL, 1);
	mw(r, DRV_FEATURES, (uint32_t)(f >> 32));
	mw(r, DRV_FEAT_SEL, 0);
	mw(r, DRV_FEATURES, (uint32_t)f);
	uint32_t s = VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK;
	mw(r, STATUS, s);
	return mr(r, STATUS) & VIRTIO_STATUS_FEATURES_OK;
}

/* Linux's vm_setup_vq for queue 0 at the given ring addresses. */
static void setup_queue_at(struct rig *r, uint32_t num, uint64_t desc, uint64_t avail,
			   uint64_t used)
{
	mw(r, QUEUE_SEL, 0);
	CHECK(mr(r, QUEUE_READY) == 0);
	mw(r, QUEUE_NUM, num);
	mw(r, DESC_LO, (uint32_t)desc);
	mw(r, DESC_HI, (uint32_t)(desc >> 32));
	mw(r, AVAIL_LO, (uint32_t)avail);
	mw(r, AVAIL_HI, (uint32_t)(avail >> 32));
	mw(r, USED_LO, (uint32_t)used);
	mw(r, USED_HI, (uint32_t)(used >> 32));
	mw(r, QUEUE_READY, 1);
}

static bool bring_up(struct rig *r, uint32_t num)
{
	if (!CHECK(negotiate(r, FEATURES_LINUX)))
		return false;
	memset(gp(r, DESC_AT), 0, 0x3000); /* vring_create_virtqueue zeroes the rings */
	CHECK(mr(r, QUEUE_NUM_MAX) >= num);
	r->num = num;
	r->next_desc = r->avail_idx = r->used_seen = 0;
	setup_queue_at(r, num, DESC_AT, AVAIL_AT, USED_AT);
	if (!CHECK(mr(r, QUEUE_READY) == 1))
		return false;
	mw(r, STATUS, mr(r, STATUS) | VIRTIO_STATUS_DRIVER_OK);
	return CHECK(mr(r, STATUS) == 0xf);
}

struct seg {
	uint64_t addr;
	uint32_t len;
	bool write;
};

/* Put a chain in the descriptor table and the available ring (the ring
 * entry first, then the index, as virtqueue_add_split does). */
static uint16_t offer(struct rig *r, const struct seg *s, int n)
{
	uint16_t head = r->next_desc;
	for (int i = 0; i < n; i++) {
		uint16_t d = r->next_desc;
		r->next_desc = (uint16_t)((d + 1) % r->num);
		uint64_t at = DESC_AT + 16ULL * d;
		uint16_t flags =
		    (s[i].write ? VIRTQ_DESC_F_WRITE : 0) | (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0);
		gput(r, at, s[i].addr, 8);
		gput(r, at + 8, s[i].len, 4);
		gput(r, at + 12, flags, 2);
		gput(r, at + 14, r->next_desc, 2);
	}
	gput(r, AVAIL_AT + 4 + 2ULL * (r->avail_idx % r->num), head, 2);
	gput(r, AVAIL_AT + 2, ++r->avail_idx, 2);
	return head;
}

/* Linux's vm_interrupt: read the status, acknowledge it. */
static uint32_t take_interrupt(struct rig *r)
{
	uint32_t st = mr(r, INT_STATUS);
	mw(r, INT_ACK, st);
	if (r->irq.level)
		CHECK(!"interrupt line high after the acknowledgement");
	return st;
}

/* The next used element, if the device returned one: id and len. */
static bool next_used(struct rig *r, uint32_t *id, uint32_t *len)
{
	if ((uint16_t)gget(r, USED_AT + 2, 2) == r->used_seen)
		return false;
	uint64_t e = USED_AT + 4 + 8ULL * (r->used_seen % r->num);
	*id = (uint32_t)gget(r, e, 4);
	*len = (uint32_t)gget(r, e + 4, 4);
	r->used_seen++;
	return true;
}

/* One virtio-blk request with its data at DATA_AT cut into pieces of at
 * most `piece` bytes; returns the status byte (0xff: none written). */
static int blk_request(struct rig *r, uint32_t type, uint64_t sector, uint32_t len, uint32_t piece,
		       bool data_in)
{
	struct seg s[VIRTQ_MAX_SIZE];
	int n = 0;
	gput(r, HDR_AT, type, 4);
	gput(r, HDR_AT + 4, 0, 4);
	gput(r, HDR_AT + 8, sector, 8);
	s[n++] = (struct seg){HDR_AT, 16, false};
	for (uint32_t off = 0; off < len && n < VIRTQ_MAX_SIZE - 1; off += piece) {
		uint32_t l = len - off < piece ? len - off : piece;
		s[n++] = (struct seg){DATA_AT + off, l, data_in};
	}
	*gp(r, STAT_AT) = 0xff;
	s[n++] = (struct seg){STAT_AT, 1, true};
	unsigned raised = r->irq.raised;
	uint16_t head = offer(r, s, n);
	mw(r, QUEUE_NOTIFY, 0);
	uint32_t id = 0, used_len = 0;
	CHECK(r->irq.raised == raised + 1);
	CHECK(take_interrupt(r) == VIRTIO_INT_USED);
	CHECK(next_used(r, &id, &used_len));
	CHECK(id == head);
	CHECK(used_len == (data_in ? len : 0) + 1);
	return *gp(r, STAT_AT);
}

static int blk_write(struct rig *r, uint64_t sector, uint32_t len, uint32_t piece, unsigned salt)
{
	for (uint32_t i = 0; i < len; i++)
		*gp(r, DATA_AT + i) = pattern(i, salt);
	return blk_request(r, VIRTIO_BLK_T_OUT, sector, len, piece, false);
}

static int blk_read(struct rig *r, uint64_t sector, uint32_t len, uint32_t piece)
{
	memset(gp(r, DATA_AT), 0xee, len);
	return blk_request(r, VIRTIO_BLK_T_IN, sector, len, piece, true);
}

/* Guest bytes at DATA_AT equal `want`. */
static bool data_is(struct rig *r, const uint8_t *want, uint32_t len)
{
	return memcmp(gp(r, DATA_AT), want, len) == 0;
}

static uint64_t cfg_read(struct rig *r, uint64_t off, int size)
{
	uint64_t v = 0;
	CHECK(virtio_mmio_ops.read(&r->blk.vio, CONFIG + off, size, &v));
	return v;
}

/* --- the disk alone ------------------------------------------------------- */

static void test_disk_open_rejects_bad_sizes(void)
{
	struct rig r;
	struct disk d;
	char err[200] = "";
	CHECK(make_image(&r, 1000));
	CHECK(disk_open(&d, r.path, false, err, sizeof(err)) == -EINVAL);
	CHECK(strcmp(err, "size 1000 is not a multiple of 512 bytes") == 0);
	unlink(r.path);
	free(r.orig);
	CHECK(make_image(&r, 0));
	CHECK(disk_open(&d, r.path, false, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "empty") != NULL);
	unlink(r.path);
	free(r.orig);
	CHECK(disk_open(&d, "no/such/image", false, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "cannot open") != NULL);
	disk_close(&d); /* closing a failed open is harmless */
}

static void test_disk_copy_on_write(void)
{
	struct rig r;
	/* 17 sectors: three chunks, the last one holding a single sector. */
	uint64_t size = 17 * 512;
	if (!rig_open(&r, size, false))
		return;
	struct disk *d = &r.disk;
	uint8_t buf[17 * 512], want[17 * 512];
	CHECK(disk_sectors(d) == 17 && disk_chunks(d) == 3);
	CHECK(disk_read(d, 0, buf, 17) == 0 && memcmp(buf, r.orig, size) == 0);
	CHECK(disk_chunk_read(d, 0) && disk_chunk_read(d, 2) && !disk_chunk_written(d, 0));
	CHECK(disk_read(d, 16, buf, 2) == -EINVAL);
	CHECK(disk_read(d, 17, buf, 1) == -EINVAL);
	CHECK(disk_read(d, UINT64_MAX, buf, 2) == -EINVAL);
	CHECK(disk_write(d, 1, buf, UINT64_MAX) == -EINVAL);
	CHECK(disk_read(d, 17, buf, 0) == 0);
	disk_clear_io(d);
	CHECK(!disk_chunk_read(d, 0) && !disk_chunk_read(d, 2));

	/* Sectors 7..16: the end of chunk 0, all of chunk 1, the last one. */
	memcpy(want, r.orig, size);
	for (int i = 0; i < 10 * 512; i++)
		want[7 * 512 + i] = buf[i] = (uint8_t)(i * 7 + 1);
	CHECK(disk_write(d, 7, buf, 10) == 0);
	CHECK(disk_chunk_private(d, 0) && disk_chunk_private(d, 1) && disk_chunk_private(d, 2));
	CHECK(disk_chunk_written(d, 0) && disk_chunk_written(d, 2) && !disk_chunk_read(d, 1));
	CHECK(!disk_chunk_written(d, 3) && !disk_chunk_private(d, 99));
	CHECK(disk_read(d, 0, buf, 17) == 0 && memcmp(buf, want, size) == 0);
	CHECK(base_unchanged(&r));

	char out[300], err[200] = "";
	snprintf(out, sizeof(out), "%s.saved", r.path);
	CHECK(disk_save(d, out, err, sizeof(err)) == 0);
	uint8_t saved[17 * 512 + 1];
	int fd = open(out, O_RDONLY);
	CHECK(fd >= 0 && read(fd, saved, sizeof(saved)) == (ssize_t)size);
	CHECK(memcmp(saved, want, size) == 0);
	close(fd);
	unlink(out);
	CHECK(disk_save(d, r.path, err, sizeof(err)) == -EEXIST);
	CHECK(strstr(err, "base image") != NULL);
	CHECK(base_unchanged(&r));
	rig_close(&r);
}

static void test_disk_read_only_refuses_writes(void)
{
	struct rig r;
	if (!rig_open(&r, 8192, true))
		return;
	uint8_t buf[512] = {1};
	CHECK(disk_write(&r.disk, 0, buf, 1) == -EROFS);
	CHECK(!disk_chunk_private(&r.disk, 0) && !disk_chunk_written(&r.disk, 0));
	CHECK(disk_read(&r.disk, 15, buf, 1) == 0 && memcmp(buf, r.orig + 15 * 512, 512) == 0);
	rig_close(&r);
}

/* --- the transport and the block device --------------------------------- */

static void test_registers_identify_a_block_device(void)
{
	struct rig r;
	if (!rig_open(&r, 64 * 512, false))
		return;
	CHECK(mr(&r, MAGIC) == 0x74726976);
	CHECK(mr(&r, VERSION) == 2);
	CHECK(mr(&r, DEVICE_ID) == 2);
	CHECK(mr(&r, VENDOR_ID) == 0x554d4551);
	uint64_t f = device_features(&r);
	CHECK(f == (FEATURES_LINUX & ~(1ULL << VIRTIO_BLK_F_RO)));
	CHECK(mr(&r, QUEUE_NUM_MAX) == VIRTIO_BLK_QUEUE_SIZE);
	mw(&r, QUEUE_SEL, 1); /* there is one queue */
	CHECK(mr(&r, QUEUE_NUM_MAX) == 0);
	mw(&r, QUEUE_SEL, 0);
	CHECK(mr(&r, CONFIG_GEN) == 0);
	/* capacity as Linux reads a u64: two 32-bit halves, and whole. */
	CHECK(cfg_read(&r, 0, 4) == 64 && cfg_read(&r, 4, 4) == 0 && cfg_read(&r, 0, 8) == 64);
	CHECK(cfg_read(&r, 0, 1) == 64 && cfg_read(&r, 0, 2) == 64);
	CHECK(cfg_read(&r, 12, 4) == VIRTIO_BLK_QUEUE_SIZE - 2); /* seg_max */
	CHECK(cfg_read(&r, 20, 4) == 512);			 /* blk_size */
	CHECK(cfg_read(&r, 58, 4) == 0xffffffff);		 /* past the end */
	CHECK(cfg_read(&r, 0xfc, 4) == 0xffffffff);
	uint64_t v = 0;
	CHECK(mr(&r, MAGIC + 1) == 0); /* misaligned register: reads 0 */
	CHECK(virtio_mmio_ops.read(&r.blk.vio, MAGIC, 2, &v) && v == 0);
	CHECK(!virtio_mmio_ops.read(&r.blk.vio, 0x200, 4, &v));
	CHECK(!virtio_mmio_ops.read(&r.blk.vio, CONFIG, 3, &v)); /* not a bus size */
	CHECK(!virtio_mmio_ops.write(&r.blk.vio, 0x1fe, 4, 0));
	CHECK(!r.irq.level && r.irq.raised == 0);
	rig_close(&r);
}

static void test_features_must_be_offered_and_modern(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false))
		return;
	CHECK(!negotiate(&r, FEATURES_LINUX & ~(1ULL << VIRTIO_F_VERSION_1)));
	/* A feature the device did not offer (indirect descriptors). */
	mw(&r, STATUS, 0);
	mw(&r, STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	mw(&r, DRV_FEAT_SEL, 1);
	mw(&r, DRV_FEATURES, 1);
	mw(&r, DRV_FEAT_SEL, 0);
	mw(&r, DRV_FEATURES, 1u << 28);
	mw(&r, STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | 8);
	CHECK(!(mr(&r, STATUS) & VIRTIO_STATUS_FEATURES_OK));
	CHECK(negotiate(&r, FEATURES_LINUX));
	CHECK(virtio_mmio_has_feature(&r.blk.vio, VIRTIO_BLK_F_FLUSH));
	mw(&r, DRV_FEATURES, 0); /* ignored once FEATURES_OK is set */
	CHECK(virtio_mmio_has_feature(&r.blk.vio, VIRTIO_BLK_F_FLUSH));
	CHECK(!virtio_mmio_has_feature(&r.blk.vio, VIRTIO_BLK_F_RO));
	rig_close(&r);
}

static void test_reads_and_writes_land(void)
{
	struct rig r;
	uint64_t size = 256 * 512 + 3 * 512; /* a partial last chunk */
	if (!rig_open(&r, size, false) || !bring_up(&r, 256))
		return;
	uint8_t *want = malloc(size);
	memcpy(want, r.orig, size);
	/* Reads of the untouched disk see the base, however the data is cut. */
	CHECK(blk_read(&r, 0, 8192, 4096) == VIRTIO_BLK_S_OK && data_is(&r, want, 8192));
	CHECK(blk_read(&r, 3, 3 * 512, 700) == VIRTIO_BLK_S_OK && data_is(&r, want + 1536, 1536));
	/* A write across a chunk boundary, cut at odd places. */
	CHECK(blk_write(&r, 6, 5 * 512, 1000, 1) == VIRTIO_BLK_S_OK);
	for (int i = 0; i < 5 * 512; i++)
		want[6 * 512 + i] = pattern(i, 1);
	CHECK(blk_read(&r, 0, 16 * 512, 512) == VIRTIO_BLK_S_OK && data_is(&r, want, 16 * 512));
	/* The last sectors, in one descriptor each. */
	CHECK(blk_write(&r, 256, 3 * 512, 512, 2) == VIRTIO_BLK_S_OK);
	for (int i = 0; i < 3 * 512; i++)
		want[256 * 512 + i] = pattern(i, 2);
	CHECK(blk_read(&r, 255, 4 * 512, 8192) == VIRTIO_BLK_S_OK &&
	      data_is(&r, want + 255 * 512, 4 * 512));
	/* A large request: 254 data segments (seg_max) of 512 bytes. */
	CHECK(blk_write(&r, 1, 254 * 512, 512, 3) == VIRTIO_BLK_S_OK);
	for (int i = 0; i < 254 * 512; i++)
		want[512 + i] = pattern(i, 3);
	CHECK(blk_read(&r, 0, (uint32_t)size, 65536) == VIRTIO_BLK_S_OK &&
	      data_is(&r, want, (uint32_t)size));
	CHECK(base_unchanged(&r));
	CHECK(disk_chunk_written(&r.disk, 0) && disk_chunk_written(&r.disk, 32));

	char out[300], err[200] = "";
	snprintf(out, sizeof(out), "%s.saved", r.path);
	CHECK(disk_save(&r.disk, out, err, sizeof(err)) == 0);
	uint8_t *saved = malloc(size + 1);
	int fd = open(out, O_RDONLY);
	CHECK(fd >= 0 && read(fd, saved, size + 1) == (ssize_t)size && !memcmp(saved, want, size));
	close(fd);
	unlink(out);
	free(saved);
	free(want);
	rig_close(&r);
}

/* The disk's request log: every served request in order, reads and writes
 * with their sectors, flushes ending an epoch; a fork remembers the log
 * and a restore cuts it back, as it does the content. */
static void test_request_log_orders_requests_and_epochs(void)
{
	struct rig r;
	if (!rig_open(&r, 64 * 512, false) || !bring_up(&r, 256))
		return;
	const struct disk_req *log;
	uint64_t n0 = disk_log(&r.disk, &log);
	CHECK(blk_write(&r, 8, 3 * 512, 512, 1) == VIRTIO_BLK_S_OK);
	CHECK(blk_request(&r, VIRTIO_BLK_T_FLUSH, 0, 0, 1, false) == VIRTIO_BLK_S_OK);
	CHECK(disk_fork(&r.disk) == 0);
	CHECK(blk_read(&r, 2, 2 * 512, 512) == VIRTIO_BLK_S_OK);
	CHECK(blk_write(&r, 20, 512, 512, 2) == VIRTIO_BLK_S_OK);
	uint64_t n = disk_log(&r.disk, &log);
	CHECK(n == n0 + 4);
	if (n == n0 + 4) {
		const struct disk_req *e = log + n0;
		CHECK(e[0].kind == DISK_REQ_WRITE && e[0].sector == 8 && e[0].count == 3 &&
		      e[0].epoch == 0);
		CHECK(e[1].kind == DISK_REQ_FLUSH && e[1].epoch == 0);
		CHECK(e[2].kind == DISK_REQ_READ && e[2].sector == 2 && e[2].count == 2 &&
		      e[2].epoch == 1);
		CHECK(e[3].kind == DISK_REQ_WRITE && e[3].sector == 20 && e[3].epoch == 1);
	}
	CHECK(disk_epoch(&r.disk) == 1);
	CHECK(disk_restore(&r.disk) == 0);
	CHECK(disk_log(&r.disk, &log) == n0 + 2 && disk_epoch(&r.disk) == 1);
	CHECK(blk_request(&r, VIRTIO_BLK_T_FLUSH, 0, 0, 1, false) == VIRTIO_BLK_S_OK);
	CHECK(disk_epoch(&r.disk) == 2);
	CHECK(disk_release(&r.disk) == 0);
	CHECK(disk_log(&r.disk, &log) == n0 + 2 && disk_epoch(&r.disk) == 1);
	rig_close(&r);
}

static void test_bad_requests_get_an_error_status(void)
{
	struct rig r;
	if (!rig_open(&r, 16 * 512, false) || !bring_up(&r, 16))
		return;
	CHECK(blk_read(&r, 15, 1024, 512) == VIRTIO_BLK_S_IOERR); /* past the end */
	CHECK(blk_read(&r, 16, 512, 512) == VIRTIO_BLK_S_IOERR);
	CHECK(blk_read(&r, UINT64_MAX, 512, 512) == VIRTIO_BLK_S_IOERR);
	CHECK(blk_write(&r, UINT64_MAX - 1, 1024, 512, 0) == VIRTIO_BLK_S_IOERR);
	CHECK(blk_read(&r, 0, 500, 500) == VIRTIO_BLK_S_IOERR); /* not whole sectors */
	CHECK(blk_write(&r, 0, 700, 700, 0) == VIRTIO_BLK_S_IOERR);
	CHECK(!disk_chunk_private(&r.disk, 0) && !disk_chunk_private(&r.disk, 1));
	CHECK(blk_request(&r, VIRTIO_BLK_T_FLUSH, 0, 0, 1, false) == VIRTIO_BLK_S_OK);
	CHECK(blk_request(&r, 11 /* DISCARD */, 0, 0, 1, false) == VIRTIO_BLK_S_UNSUPP);
	CHECK(blk_request(&r, 0x80000000u, 0, 0, 1, false) == VIRTIO_BLK_S_UNSUPP);
	/* GET_ID: the serial, NUL-padded to 20 bytes, or cut to the buffer. */
	memset(gp(&r, DATA_AT), 0xee, 32);
	CHECK(blk_request(&r, VIRTIO_BLK_T_GET_ID, 0, 20, 20, true) == VIRTIO_BLK_S_OK);
	CHECK(memcmp(gp(&r, DATA_AT), "themis-serial-0\0\0\0\0\0", 20) == 0);
	memset(gp(&r, DATA_AT), 0xee, 32);
	CHECK(blk_request(&r, VIRTIO_BLK_T_GET_ID, 0, 6, 6, true) == VIRTIO_BLK_S_OK);
	CHECK(memcmp(gp(&r, DATA_AT), "themis\xee", 7) == 0);
	/* A header cut short: 8 bytes of it. */
	uint16_t head = offer(&r, (struct seg[]){{HDR_AT, 8, false}, {STAT_AT, 1, true}}, 2);
	mw(&r, QUEUE_NOTIFY, 0);
	uint32_t id, len;
	CHECK(next_used(&r, &id, &len) && id == head && len == 1);
	CHECK(*gp(&r, STAT_AT) == VIRTIO_BLK_S_IOERR);
	take_interrupt(&r);
	CHECK(base_unchanged(&r));
	rig_close(&r);
}

static void test_read_only_disk_refuses_writes(void)
{
	struct rig r;
	if (!rig_open(&r, 16 * 512, true))
		return;
	CHECK(device_features(&r) >> VIRTIO_BLK_F_RO & 1);
	if (!bring_up(&r, 8))
		return;
	CHECK(virtio_mmio_has_feature(&r.blk.vio, VIRTIO_BLK_F_RO));
	CHECK(blk_write(&r, 0, 1024, 512, 5) == VIRTIO_BLK_S_IOERR);
	CHECK(disk_chunks(&r.disk) == 2 && !disk_chunk_private(&r.disk, 0));
	CHECK(blk_read(&r, 0, 1024, 512) == VIRTIO_BLK_S_OK && data_is(&r, r.orig, 1024));
	CHECK(blk_request(&r, VIRTIO_BLK_T_FLUSH, 0, 0, 1, false) == VIRTIO_BLK_S_OK);
	CHECK(base_unchanged(&r));
	rig_close(&r);
}

/* A queue the driver sets up wrongly never becomes ready. */
static bool queue_refused(struct rig *r, uint32_t num, uint64_t desc, uint64_t avail, uint64_t used)
{
	CHECK(negotiate(r, FEATURES_LINUX));
	setup_queue_at(r, num, desc, avail, used);
	bool refused = mr(r, QUEUE_READY) == 0;
	return refused && (mr(r, STATUS) & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
}

static void test_bad_queue_setups_are_refused(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false))
		return;
	CHECK(queue_refused(&r, 3, DESC_AT, AVAIL_AT, USED_AT));   /* not a power of two */
	CHECK(queue_refused(&r, 512, DESC_AT, AVAIL_AT, USED_AT)); /* above QueueNumMax */
	CHECK(queue_refused(&r, 0, DESC_AT, AVAIL_AT, USED_AT));
	CHECK(queue_refused(&r, 8, 0x1000, AVAIL_AT, USED_AT)); /* outside RAM */
	CHECK(queue_refused(&r, 8, DESC_AT, RAM_BASE + RAM_SIZE - 4, USED_AT));
	CHECK(queue_refused(&r, 8, DESC_AT, AVAIL_AT, UINT64_MAX - 15)); /* wraps */
	CHECK(queue_refused(&r, 8, DESC_AT + 8, AVAIL_AT, USED_AT));	 /* misaligned */
	CHECK(queue_refused(&r, 8, DESC_AT, AVAIL_AT + 1, USED_AT));
	CHECK(r.ram.refused > 0);
	/* After a reset all is forgotten and a good setup works. */
	CHECK(bring_up(&r, 8));
	CHECK(blk_read(&r, 0, 4096, 4096) == VIRTIO_BLK_S_OK && data_is(&r, r.orig, 4096));
	rig_close(&r);
}

static void test_reset_forgets_everything(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false) || !bring_up(&r, 4))
		return;
	CHECK(blk_read(&r, 0, 512, 512) == VIRTIO_BLK_S_OK);
	/* Leave an interrupt pending, then reset. */
	offer(&r, (struct seg[]){{HDR_AT, 16, false}, {STAT_AT, 1, true}}, 2);
	gput(&r, HDR_AT, VIRTIO_BLK_T_FLUSH, 4);
	mw(&r, QUEUE_NOTIFY, 0);
	CHECK(r.irq.level);
	mw(&r, STATUS, 0);
	CHECK(!r.irq.level && mr(&r, STATUS) == 0 && mr(&r, INT_STATUS) == 0);
	CHECK(mr(&r, QUEUE_READY) == 0 && mr(&r, QUEUE_NUM) == 0);
	CHECK(r.st.vio.queues[0].last_avail_idx == 0 && r.st.vio.driver_features == 0);
	/* A ready queue is not served before DRIVER_OK (3.1.1). */
	CHECK(negotiate(&r, FEATURES_LINUX));
	memset(gp(&r, DESC_AT), 0, 0x3000);
	r.next_desc = r.avail_idx = r.used_seen = 0;
	setup_queue_at(&r, 4, DESC_AT, AVAIL_AT, USED_AT);
	uint16_t head = offer(&r, (struct seg[]){{HDR_AT, 16, false}, {STAT_AT, 1, true}}, 2);
	mw(&r, QUEUE_NOTIFY, 0);
	uint32_t id, len;
	CHECK(!r.irq.level && !next_used(&r, &id, &len));
	mw(&r, STATUS, mr(&r, STATUS) | VIRTIO_STATUS_DRIVER_OK);
	mw(&r, QUEUE_NOTIFY, 0);
	CHECK(next_used(&r, &id, &len) && id == head && take_interrupt(&r) == VIRTIO_INT_USED);
	CHECK(blk_write(&r, 1, 1024, 512, 9) == VIRTIO_BLK_S_OK);
	CHECK(blk_read(&r, 1, 1024, 700) == VIRTIO_BLK_S_OK);
	bool same = true;
	for (int i = 0; i < 1024; i++)
		same &= *gp(&r, DATA_AT + i) == pattern(i, 9);
	CHECK(same);
	rig_close(&r);
}

static void test_batches_and_ring_wrap(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false) || !bring_up(&r, 8))
		return;
	/* Four requests, one notify: four used elements, one interrupt. */
	gput(&r, HDR_AT, VIRTIO_BLK_T_FLUSH, 4);
	gput(&r, HDR_AT + 8, 0, 8);
	unsigned raised = r.irq.raised;
	uint16_t heads[4];
	for (int i = 0; i < 4; i++)
		heads[i] =
		    offer(&r, (struct seg[]){{HDR_AT, 16, false}, {STAT_AT + i, 1, true}}, 2);
	mw(&r, QUEUE_NOTIFY, 0);
	CHECK(r.irq.raised == raised + 1 && take_interrupt(&r) == VIRTIO_INT_USED);
	for (int i = 0; i < 4; i++) {
		uint32_t id, len;
		CHECK(next_used(&r, &id, &len) && id == heads[i] && len == 1);
	}
	/* 70000 more: ring positions and the 16-bit indices wrap. */
	bool ok = true;
	for (int i = 0; i < 70000 && ok; i++) {
		uint16_t head =
		    offer(&r, (struct seg[]){{HDR_AT, 16, false}, {STAT_AT, 1, true}}, 2);
		mw(&r, QUEUE_NOTIFY, 0);
		uint32_t id, len;
		ok = next_used(&r, &id, &len) && id == head && len == 1 && !*gp(&r, STAT_AT);
		take_interrupt(&r);
	}
	CHECK(ok);
	CHECK(r.st.vio.queues[0].used_idx == (uint16_t)70004);
	rig_close(&r);
}

static void test_no_interrupt_flag_is_honoured(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false) || !bring_up(&r, 4))
		return;
	gput(&r, AVAIL_AT, VIRTQ_AVAIL_F_NO_INTERRUPT, 2);
	gput(&r, HDR_AT, VIRTIO_BLK_T_FLUSH, 4);
	offer(&r, (struct seg[]){{HDR_AT, 16, false}, {STAT_AT, 1, true}}, 2);
	mw(&r, QUEUE_NOTIFY, 0);
	uint32_t id, len;
	CHECK(next_used(&r, &id, &len) && *gp(&r, STAT_AT) == 0);
	CHECK(r.irq.raised == 0 && mr(&r, INT_STATUS) == 0);
	rig_close(&r);
}

static void test_malformed_chains_are_failed(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false) || !bring_up(&r, 4))
		return;
	/* A loop of writable buffers: descriptor 2 points back to 1, so only
	 * the chain's length (more than the queue's 4) gives it away. */
	uint16_t head = offer(
	    &r, (struct seg[]){{HDR_AT, 16, false}, {DATA_AT, 512, true}, {STAT_AT, 1, true}}, 3);
	gput(&r, DESC_AT + 32 + 12, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 2);
	gput(&r, DESC_AT + 32 + 14, 1, 2);
	*gp(&r, STAT_AT) = 0xff;
	mw(&r, QUEUE_NOTIFY, 0);
	uint32_t id, len;
	CHECK(next_used(&r, &id, &len) && id == head && len == 0 && *gp(&r, STAT_AT) == 0xff);
	take_interrupt(&r);
	/* Buffers past the end of RAM and wrapping past 2^64, a readable
	 * after a writable buffer, an indirect descriptor. */
	struct seg bad[4][3] = {
	    {{HDR_AT, 16, false}, {RAM_BASE + RAM_SIZE - 8, 16, true}, {STAT_AT, 1, true}},
	    {{HDR_AT, 16, false}, {STAT_AT, 1, true}, {DATA_AT, 512, false}},
	    {{HDR_AT, 16, false}, {UINT64_MAX - 511, 1024, true}, {STAT_AT, 1, true}},
	    {{HDR_AT, 16, false}, {DATA_AT, 512, true}, {STAT_AT, 1, true}},
	};
	for (int i = 0; i < 4; i++) {
		head = offer(&r, bad[i], 3);
		if (i == 3)
			gput(&r, DESC_AT + 16ULL * head + 12,
			     VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_INDIRECT, 2);
		mw(&r, QUEUE_NOTIFY, 0);
		CHECK(next_used(&r, &id, &len) && id == head && len == 0);
		take_interrupt(&r);
	}
	CHECK(!(mr(&r, STATUS) & VIRTIO_STATUS_DEVICE_NEEDS_RESET));
	CHECK(blk_read(&r, 0, 512, 512) == VIRTIO_BLK_S_OK);
	/* The available index far ahead: the device gives up until reset. */
	gput(&r, AVAIL_AT + 2, r.avail_idx + 100, 2);
	mw(&r, QUEUE_NOTIFY, 0);
	CHECK(mr(&r, STATUS) & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	CHECK(take_interrupt(&r) == VIRTIO_INT_CONFIG);
	mw(&r, STATUS, mr(&r, STATUS) & ~VIRTIO_STATUS_DEVICE_NEEDS_RESET); /* sticky */
	CHECK(mr(&r, STATUS) & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	gput(&r, AVAIL_AT + 2, r.avail_idx, 2);
	uint16_t before = (uint16_t)gget(&r, USED_AT + 2, 2);
	mw(&r, QUEUE_NOTIFY, 0);
	CHECK((uint16_t)gget(&r, USED_AT + 2, 2) == before);
	CHECK(bring_up(&r, 4) && blk_read(&r, 0, 512, 512) == VIRTIO_BLK_S_OK);
	rig_close(&r);
}

/* A chain whose lengths add up past 4 GiB is failed, not summed in 32 bits. */
static void test_lengths_past_4gib_are_refused(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false) || !bring_up(&r, 256))
		return;
	static struct seg s[256];
	s[0] = (struct seg){HDR_AT, 16, false};
	for (int i = 1; i < 256; i++)
		s[i] = (struct seg){RAM_BASE, 17u << 20, true}; /* 255 x 17 MiB */
	*gp(&r, RAM_BASE) = 0x5a;
	uint16_t head = offer(&r, s, 256);
	mw(&r, QUEUE_NOTIFY, 0);
	uint32_t id, len;
	CHECK(next_used(&r, &id, &len) && id == head && len == 0);
	CHECK(*gp(&r, RAM_BASE) == 0x5a);
	take_interrupt(&r);
	/* Just under: 255 x 16 MiB is served (an IN of the wrong size). */
	for (int i = 1; i < 256; i++)
		s[i].len = 16u << 20;
	head = offer(&r, s, 256);
	mw(&r, QUEUE_NOTIFY, 0);
	CHECK(next_used(&r, &id, &len) && id == head && len == 255u * (16u << 20));
	CHECK(*gp(&r, RAM_BASE + (16u << 20) - 1) == VIRTIO_BLK_S_IOERR);
	rig_close(&r);
}

/* The device's state is plain data: a copy of it holds the same cursors,
 * and putting a copy back rewinds them. */
static void test_state_copy_is_a_snapshot(void)
{
	struct rig r;
	if (!rig_open(&r, 4096, false) || !bring_up(&r, 4))
		return;
	CHECK(blk_read(&r, 0, 512, 512) == VIRTIO_BLK_S_OK);
	struct virtio_blk_state saved = r.st;
	struct rig snap = r;
	CHECK(blk_read(&r, 1, 512, 512) == VIRTIO_BLK_S_OK);
	CHECK(r.st.vio.queues[0].last_avail_idx == 2);
	r.st = saved;
	r.next_desc = snap.next_desc;
	r.avail_idx = snap.avail_idx;
	r.used_seen = snap.used_seen;
	gput(&r, AVAIL_AT + 2, r.avail_idx, 2);
	CHECK(r.st.vio.queues[0].last_avail_idx == 1);
	CHECK(blk_read(&r, 2, 512, 512) == VIRTIO_BLK_S_OK && data_is(&r, r.orig + 1024, 512));
	rig_close(&r);
}

static const struct unit_test tests[] = {
    {"disk_open_rejects_bad_sizes", test_disk_open_rejects_bad_sizes},
    {"disk_copy_on_write", test_disk_copy_on_write},
    {"disk_read_only_refuses_writes", test_disk_read_only_refuses_writes},
    {"registers_identify_a_block_device", test_registers_identify_a_block_device},
    {"features_must_be_offered_and_modern", test_features_must_be_offered_and_modern},
    {"reads_and_writes_land", test_reads_and_writes_land},
    {"request_log_orders_requests_and_epochs", test_request_log_orders_requests_and_epochs},
    {"bad_requests_get_an_error_status", test_bad_requests_get_an_error_status},
    {"read_only_disk_refuses_writes", test_read_only_disk_refuses_writes},
    {"bad_queue_setups_are_refused", test_bad_queue_setups_are_refused},
    {"reset_forgets_everything", test_reset_forgets_everything},
    {"batches_and_ring_wrap", test_batches_and_ring_wrap},
    {"no_interrupt_flag_is_honoured", test_no_interrupt_flag_is_honoured},
    {"malformed_chains_are_failed", test_malformed_chains_are_failed},
    {"lengths_past_4gib_are_refused", test_lengths_past_4gib_are_refused},
    {"state_copy_is_a_snapshot", test_state_copy_is_a_snapshot},
};

UNIT_MAIN("test_virtio_blk", tests)
