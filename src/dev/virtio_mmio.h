/* virtio_mmio.h - the virtio-mmio transport, version 2 (virtio 1.1 section
 * 4.2.2), and the split virtqueue (section 2.6), for any virtio device.
 *
 * A device embeds a struct virtio_mmio and plugs in through a const
 * virtio_dev_ops table: its device id, its features, its config space and a
 * notify(queue) handler. The board maps the 0x200-byte window with
 * virtio_mmio_ops and the struct virtio_mmio as the device pointer. The ops
 * get the transport back and reach their own struct with
 * virtio_container_of().
 *
 * The transport's forkable state (registers, queues and their cursors) is
 * struct virtio_mmio_state, plain data (see dev.h) that a device embeds in
 * its own state struct; struct virtio_mmio is the wiring: ops, DMA, the
 * line and a pointer to that state. A copy of the state is a complete
 * snapshot of the transport.
 *
 * A device's notify handler pops requests with virtq_pop(), which walks a
 * descriptor chain into a list of guest-physical segments, moves data with
 * virtio_chain_read()/virtio_chain_write(), completes each request with
 * virtq_push(), and ends with virtq_interrupt(). The guest is untrusted:
 * every guest address goes through struct dma, a chain longer than the
 * queue is a loop, and a ring the device cannot read or write puts the
 * device in DEVICE_NEEDS_RESET until the driver resets it. Not offered:
 * indirect descriptors, event idx, packed rings. */
#ifndef THEMIS_VIRTIO_MMIO_H
#define THEMIS_VIRTIO_MMIO_H

#include <stddef.h>

#include "dev.h"
#include "dma.h"
#include "irq.h"
#include "mmio.h"

#define VIRTIO_MMIO_SIZE 0x200 /* the register window, config space included */

/* Device status bits (2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE	 1u
#define VIRTIO_STATUS_DRIVER		 2u
#define VIRTIO_STATUS_DRIVER_OK		 4u
#define VIRTIO_STATUS_FEATURES_OK	 8u
#define VIRTIO_STATUS_DEVICE_NEEDS_RESET 0x40u
#define VIRTIO_STATUS_FAILED		 0x80u

/* InterruptStatus bits (4.2.2). */
#define VIRTIO_INT_USED	  1u
#define VIRTIO_INT_CONFIG 2u

#define VIRTIO_F_VERSION_1 32

/* Descriptor flags (2.6.5). */
#define VIRTQ_DESC_F_NEXT	   1u
#define VIRTQ_DESC_F_WRITE	   2u
#define VIRTQ_DESC_F_INDIRECT	   4u
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1u

#define VIRTIO_MMIO_MAX_QUEUES 4
#define VIRTQ_MAX_SIZE	       256 /* the largest QueueNumMax a device may set */

/* The device struct `type` whose `member` is the transport at `ptr`. */
#define virtio_container_of(ptr, type, member)                                                     \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

struct virtio_mmio;

struct virtio_dev_ops {
	uint32_t device_id;
	unsigned nqueues;	/* at most VIRTIO_MMIO_MAX_QUEUES */
	uint16_t queue_num_max; /* a power of two, at most VIRTQ_MAX_SIZE */
	/* Device feature bits; the transport adds VIRTIO_F_VERSION_1. */
	uint64_t (*features)(const struct virtio_mmio *vm);
	/* Config space at byte `off` (from 0x100), size 1, 2, 4 or 8. */
	uint64_t (*config_read)(const struct virtio_mmio *vm, uint64_t off, int size);
	void (*config_write)(struct virtio_mmio *vm, uint64_t off, int size, uint64_t val);
	/* The driver wrote QueueNotify for a ready queue below nqueues, with
	 * DRIVER_OK set and DEVICE_NEEDS_RESET clear. */
	void (*notify)(struct virtio_mmio *vm, unsigned queue);
	/* The driver reset the device (may be NULL). */
	void (*reset)(struct virtio_mmio *vm);
};

/* One split virtqueue: what the driver configured and the device's cursors. */
struct virtq {
	uint32_t num;		    /* QueueNum */
	bool ready;		    /* QueueReady */
	uint64_t desc, avail, used; /* QueueDesc, QueueDriver, QueueDevice */
	uint16_t last_avail_idx;    /* next available ring entry to take */
	uint16_t used_idx;	    /* next used ring entry to fill */
	uint32_t budget;	    /* chains virtq_pop may still take in this notify */
	bool signal;		    /* used entries pushed since the last interrupt */
};

struct virtio_mmio_state {
	uint32_t status;
	uint32_t interrupt_status;
	uint32_t config_generation; /* 0: no device's config space changes */
	uint32_t device_features_sel, driver_features_sel;
	uint64_t driver_features;
	uint32_t queue_sel;
	struct virtq queues[VIRTIO_MMIO_MAX_QUEUES];
};

struct virtio_mmio {
	const struct virtio_dev_ops *ops;
	struct dma dma;
	struct irq_line irq;
	struct virtio_mmio_state *s; /* not owned */
};

/* One guest-physical buffer of a chain. */
struct virtio_seg {
	uint64_t addr;
	uint32_t len;
	bool write; /* device-writable */
};

/* A walked descriptor chain: its device-readable segments come first (nout
 * of them, out_len bytes), then its device-writable ones (in_len bytes). */
struct virtio_chain {
	uint16_t head;
	unsigned nseg, nout;
	uint64_t out_len, in_len;
	struct virtio_seg seg[VIRTQ_MAX_SIZE];
};

extern const struct mmio_ops virtio_mmio_ops;

/* Wire the transport to a device and its state; the state starts reset. 0,
 * or -EINVAL if the ops ask for more queues or a larger queue than the
 * transport holds. */
int virtio_mmio_init(struct virtio_mmio *vm, struct virtio_mmio_state *s,
		     const struct virtio_dev_ops *ops, const struct dma *dma,
		     const struct irq_line *irq);

/* The guest broke the protocol: set DEVICE_NEEDS_RESET and, once the driver
 * is running, tell it with a configuration change interrupt. */
void virtio_mmio_needs_reset(struct virtio_mmio *vm);
bool virtio_mmio_has_feature(const struct virtio_mmio *vm, unsigned bit);

enum virtq_pop_result {
	VIRTQ_POP_EMPTY = 0,   /* nothing available */
	VIRTQ_POP_CHAIN = 1,   /* *c holds the next request */
	VIRTQ_POP_BROKEN = -1, /* a ring is unusable: device needs reset */
};

/* Take the next available chain of queue q. At most num chains per
 * QueueNotify: the write refills vq->budget (queue_notify in virtio_mmio.c
 * says why), so a device that ever pops outside its notify handler must
 * refill the budget itself. A malformed chain (a loop, an index or buffer
 * out of range, readable after writable, indirect, lengths past 4 GiB) is
 * completed at once with a used length of 0 and skipped, so the caller
 * only ever sees well-formed chains whose every segment lies in guest
 * memory as seen by struct dma. */
enum virtq_pop_result virtq_pop(struct virtio_mmio *vm, unsigned q, struct virtio_chain *c);
/* Return chain `head` to the driver with `len` bytes written. 0, or -EIO
 * when the used ring cannot be written (device then needs reset). */
int virtq_push(struct virtio_mmio *vm, unsigned q, uint16_t head, uint32_t len);
/* Raise the used-buffer interrupt if anything was pushed since the last
 * call, unless the driver suppressed it (VIRTQ_AVAIL_F_NO_INTERRUPT). */
void virtq_interrupt(struct virtio_mmio *vm, unsigned q);

/* Copy `len` bytes at byte `off` of the chain's device-readable part to
 * buf, or buf to its device-writable part. False if that part is too short
 * or guest memory refuses an access. */
bool virtio_chain_read(const struct virtio_mmio *vm, const struct virtio_chain *c, uint64_t off,
		       void *buf, uint64_t len);
bool virtio_chain_write(const struct virtio_mmio *vm, const struct virtio_chain *c, uint64_t off,
			const void *buf, uint64_t len);

/* A config-space read of `size` bytes at `off` from a little-endian image
 * of `len` bytes; all ones beyond it, as QEMU reads. */
uint64_t virtio_config_bytes(const uint8_t *cfg, size_t len, uint64_t off, int size);

/* Little-endian stores and loads for guest-visible structures. */
static inline void virtio_put_le(uint8_t *p, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t virtio_get_le(const uint8_t *p, int size)
{
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
