/* virtio_blk.c - see virtio_blk.h. A request is a 16-byte header (le32
 * type, le32 reserved, le64 sector) in the device-readable part, the data,
 * and a status byte that is the last byte of the device-writable part. No
 * assumption is made about how the driver cut it into descriptors (2.6.4). */
#include <errno.h>
#include <string.h>

#include "virtio_blk.h"

#define BLK_HDR_SIZE	 16
#define BLK_CONFIG_LEN	 60 /* struct virtio_blk_config of virtio 1.1 */
#define BLK_CFG_CAPACITY 0
#define BLK_CFG_SEG_MAX	 12
#define BLK_CFG_BLK_SIZE 20

static const struct virtio_blk *blk_of(const struct virtio_mmio *vm)
{
	return virtio_container_of(vm, const struct virtio_blk, vio);
}

static uint64_t blk_features(const struct virtio_mmio *vm)
{
	uint64_t f = 1ULL << VIRTIO_BLK_F_SEG_MAX | 1ULL << VIRTIO_BLK_F_BLK_SIZE |
		     1ULL << VIRTIO_BLK_F_FLUSH;
	if (blk_of(vm)->disk->read_only)
		f |= 1ULL << VIRTIO_BLK_F_RO;
	return f;
}

static uint64_t blk_config_read(const struct virtio_mmio *vm, uint64_t off, int size)
{
	uint8_t cfg[BLK_CONFIG_LEN] = {0};
	virtio_put_le(cfg + BLK_CFG_CAPACITY, disk_sectors(blk_of(vm)->disk), 8);
	/* Without indirect descriptors a request takes seg_max + 2 (header
	 * and status) descriptors, and must fit in the queue. */
	virtio_put_le(cfg + BLK_CFG_SEG_MAX, VIRTIO_BLK_QUEUE_SIZE - 2, 4);
	virtio_put_le(cfg + BLK_CFG_BLK_SIZE, DISK_SECTOR_SIZE, 4);
	return virtio_config_bytes(cfg, sizeof(cfg), off, size);
}

/* The data of an IN or OUT request covers `bytes` from `sector`: whole
 * sectors, inside the disk. Returns the sector count, or -1. */
static int64_t data_sectors(const struct disk *d, uint64_t sector, uint64_t bytes)
{
	uint64_t n = bytes / DISK_SECTOR_SIZE, total = disk_sectors(d);
	if (bytes % DISK_SECTOR_SIZE || n > total || sector > total - n)
		return -1;
	return (int64_t)n;
}

/* Disk to the writable part, a chunk at a time through a bounce buffer. */
static uint8_t blk_in(struct virtio_blk *b, const struct virtio_chain *c, uint64_t sector)
{
	int64_t n = data_sectors(b->disk, sector, c->in_len - 1);
	uint8_t buf[DISK_CHUNK_SIZE];
	if (n < 0)
		return VIRTIO_BLK_S_IOERR;
	(void)disk_log_request(b->disk, DISK_REQ_READ, sector, (uint64_t)n);
	for (int64_t i = 0; i < n; i += DISK_SECTORS_PER_CHUNK) {
		uint64_t k =
		    n - i < DISK_SECTORS_PER_CHUNK ? (uint64_t)(n - i) : DISK_SECTORS_PER_CHUNK;
		if (disk_read(b->disk, sector + i, buf, k) ||
		    !virtio_chain_write(&b->vio, c, i * DISK_SECTOR_SIZE, buf,
					k * DISK_SECTOR_SIZE))
			return VIRTIO_BLK_S_IOERR;
	}
	return VIRTIO_BLK_S_OK;
}

/* The readable part after the header to the disk. */
static uint8_t blk_out(struct virtio_blk *b, const struct virtio_chain *c, uint64_t sector)
{
	int64_t n = data_sectors(b->disk, sector, c->out_len - BLK_HDR_SIZE);
	uint8_t buf[DISK_CHUNK_SIZE];
	if (n < 0 || b->disk->read_only)
		return VIRTIO_BLK_S_IOERR;
	(void)disk_log_request(b->disk, DISK_REQ_WRITE, sector, (uint64_t)n);
	for (int64_t i = 0; i < n; i += DISK_SECTORS_PER_CHUNK) {
		uint64_t k =
		    n - i < DISK_SECTORS_PER_CHUNK ? (uint64_t)(n - i) : DISK_SECTORS_PER_CHUNK;
		uint64_t off = BLK_HDR_SIZE + i * DISK_SECTOR_SIZE;
		if (!virtio_chain_read(&b->vio, c, off, buf, k * DISK_SECTOR_SIZE) ||
		    disk_write_served(b->disk, sector + i, buf, k))
			return VIRTIO_BLK_S_IOERR;
	}
	return VIRTIO_BLK_S_OK;
}

/* The disk lives in memory, so every write is already where a read finds
 * it; the flush ends the write epoch in the disk's log, where the checker's
 * persistence points come from. */
static uint8_t blk_flush(struct virtio_blk *b)
{
	(void)disk_log_request(b->disk, DISK_REQ_FLUSH, 0, 0);
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_get_id(struct virtio_blk *b, const struct virtio_chain *c)
{
	uint64_t n = c->in_len - 1 < VIRTIO_BLK_ID_BYTES ? c->in_len - 1 : VIRTIO_BLK_ID_BYTES;
	if (!virtio_chain_write(&b->vio, c, 0, b->serial, n))
		return VIRTIO_BLK_S_IOERR;
	return VIRTIO_BLK_S_OK;
}

/* Serve one request; returns its status. c->in_len >= 1. */
static uint8_t blk_serve(struct virtio_blk *b, const struct virtio_chain *c)
{
	uint8_t hdr[BLK_HDR_SIZE];
	if (!virtio_chain_read(&b->vio, c, 0, hdr, sizeof(hdr)))
		return VIRTIO_BLK_S_IOERR;
	uint64_t sector = virtio_get_le(hdr + 8, 8);
	switch (virtio_get_le(hdr, 4)) {
	case VIRTIO_BLK_T_IN: return blk_in(b, c, sector);
	case VIRTIO_BLK_T_OUT: return blk_out(b, c, sector);
	case VIRTIO_BLK_T_FLUSH: return blk_flush(b);
	case VIRTIO_BLK_T_GET_ID: return blk_get_id(b, c);
	default: return VIRTIO_BLK_S_UNSUPP;
	}
}

/* Serve a chain and return its used length. Like QEMU, the whole writable
 * part is reported, whatever the status; with no writable byte there is
 * nowhere to put a status and the request is returned untouched. */
static uint32_t blk_request(struct virtio_blk *b, const struct virtio_chain *c)
{
	if (c->in_len == 0)
		return 0;
	uint8_t status = blk_serve(b, c);
	if (!virtio_chain_write(&b->vio, c, c->in_len - 1, &status, 1))
		return 0;
	return (uint32_t)c->in_len; /* the walk bounded it by 4 GiB */
}

static void blk_notify(struct virtio_mmio *vm, unsigned q)
{
	struct virtio_blk *b = virtio_container_of(vm, struct virtio_blk, vio);
	struct virtio_chain c;
	while (virtq_pop(vm, q, &c) == VIRTQ_POP_CHAIN)
		if (virtq_push(vm, q, c.head, blk_request(b, &c)))
			break;
	virtq_interrupt(vm, q);
}

static const struct virtio_dev_ops blk_ops = {
    .device_id = VIRTIO_ID_BLOCK,
    .nqueues = 1,
    .queue_num_max = VIRTIO_BLK_QUEUE_SIZE,
    .features = blk_features,
    .config_read = blk_config_read,
    .notify = blk_notify,
};

const struct dev_state_desc virtio_blk_state_desc = {"virtio_blk", 1,
						     sizeof(struct virtio_blk_state)};

int virtio_blk_init(struct virtio_blk *b, struct virtio_blk_state *s, struct disk *disk,
		    const char *serial, const struct dma *dma, const struct irq_line *irq)
{
	*b = (struct virtio_blk){.disk = disk};
	if (serial)
		memcpy(b->serial, serial, strnlen(serial, VIRTIO_BLK_ID_BYTES));
	return virtio_mmio_init(&b->vio, &s->vio, &blk_ops, dma, irq);
}
