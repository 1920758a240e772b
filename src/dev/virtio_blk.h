/* virtio_blk.h - a virtio block device (virtio 1.1 section 5.2, device id 2)
 * on the virtio-mmio transport, over a copy-on-write struct disk.
 *
 * One request queue. Requests are served synchronously inside the driver's
 * QueueNotify write: the machine is single-threaded and deterministic, so a
 * request is complete, and its interrupt raised, before the hart runs its
 * next instruction. Offered: VERSION_1, FLUSH, SEG_MAX, BLK_SIZE, and RO
 * for a read-only disk. Served: IN, OUT, FLUSH, GET_ID; any other type gets
 * VIRTIO_BLK_S_UNSUPP. Every served request goes into the disk's request
 * log (disk.h); FLUSH moves no data (the disk lives in memory) but is
 * offered so the guest runs its write-back cache path, and ends a write
 * epoch in the log: the persistence points a crash checker needs.
 *
 * The forkable state is struct virtio_blk_state (see dev.h): the transport's
 * registers and queues. struct virtio_blk is the wiring: the transport, the
 * disk and the serial, set once by virtio_blk_init. */
#ifndef THEMIS_VIRTIO_BLK_H
#define THEMIS_VIRTIO_BLK_H

#include "../disk/disk.h"
#include "virtio_mmio.h"

#define VIRTIO_ID_BLOCK 2

/* Request types and status values (5.2.6). */
#define VIRTIO_BLK_T_IN	    0
#define VIRTIO_BLK_T_OUT    1
#define VIRTIO_BLK_T_FLUSH  4
#define VIRTIO_BLK_T_GET_ID 8
#define VIRTIO_BLK_S_OK	    0
#define VIRTIO_BLK_S_IOERR  1
#define VIRTIO_BLK_S_UNSUPP 2

/* Feature bits (5.2.3). */
#define VIRTIO_BLK_F_SEG_MAX  2
#define VIRTIO_BLK_F_RO	      5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH    9

#define VIRTIO_BLK_ID_BYTES   20  /* GET_ID answer: the serial, NUL-padded */
#define VIRTIO_BLK_QUEUE_SIZE 256 /* QueueNumMax, as QEMU's default */

struct virtio_blk_state {
	struct virtio_mmio_state vio;
};

struct virtio_blk {
	struct virtio_mmio vio; /* map with virtio_mmio_ops, device pointer &vio */
	struct disk *disk;	/* not owned; read-only if disk->read_only */
	char serial[VIRTIO_BLK_ID_BYTES];
};

extern const struct dev_state_desc virtio_blk_state_desc;

/* Attach a device to `disk` over its state `s` (reset here); `serial` (at
 * most 20 bytes are kept) answers GET_ID. 0 or -errno. */
int virtio_blk_init(struct virtio_blk *b, struct virtio_blk_state *s, struct disk *disk,
		    const char *serial, const struct dma *dma, const struct irq_line *irq);

#endif
