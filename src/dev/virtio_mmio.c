/* virtio_mmio.c - see virtio_mmio.h. Register offsets are those of virtio
 * 1.1 table 4.1. Control registers take 32-bit aligned accesses only (4.2.2);
 * anything else reads as 0 and writes are dropped, as QEMU does, so a
 * sloppy guest sees the same machine under both. */
#include <errno.h>
#include <string.h>

#include "virtio_mmio.h"

#define REG_MAGIC	     0x000
#define REG_VERSION	     0x004
#define REG_DEVICE_ID	     0x008
#define REG_VENDOR_ID	     0x00c
#define REG_DEVICE_FEATURES  0x010
#define REG_DEVICE_FEAT_SEL  0x014
#define REG_DRIVER_FEATURES  0x020
#define REG_DRIVER_FEAT_SEL  0x024
#define REG_QUEUE_SEL	     0x030
#define REG_QUEUE_NUM_MAX    0x034
#define REG_QUEUE_NUM	     0x038
#define REG_QUEUE_READY	     0x044
#define REG_QUEUE_NOTIFY     0x050
#define REG_INTERRUPT_STATUS 0x060
#define REG_INTERRUPT_ACK    0x064
#define REG_STATUS	     0x070
#define REG_QUEUE_DESC_LOW   0x080
#define REG_QUEUE_DESC_HIGH  0x084
#define REG_QUEUE_AVAIL_LOW  0x090
#define REG_QUEUE_AVAIL_HIGH 0x094
#define REG_QUEUE_USED_LOW   0x0a0
#define REG_QUEUE_USED_HIGH  0x0a4
#define REG_CONFIG_GEN	     0x0fc
#define REG_CONFIG	     0x100

#define VIRTIO_MAGIC   0x74726976u /* "virt" */
#define VIRTIO_VERSION 2u
/* QEMU's vendor id ("QEMU"): the guest shows it in sysfs and modaliases,
 * and a guest run here should look like the same guest run under QEMU. */
#define VIRTIO_VENDOR 0x554d4551u

#define DESC_SIZE 16

int virtio_mmio_init(struct virtio_mmio *vm, struct virtio_mmio_state *s,
		     const struct virtio_dev_ops *ops, const struct dma *dma,
		     const struct irq_line *irq)
{
	unsigned max = ops->queue_num_max;
	if (ops->nqueues > VIRTIO_MMIO_MAX_QUEUES || max == 0 || max > VIRTQ_MAX_SIZE ||
	    (max & (max - 1)) || !ops->features || !ops->config_read || !ops->notify)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	*vm = (struct virtio_mmio){.ops = ops, .dma = *dma, .irq = *irq, .s = s};
	irq_set(&vm->irq, false);
	return 0;
}

static void update_irq(struct virtio_mmio *vm)
{
	irq_set(&vm->irq, vm->s->interrupt_status != 0);
}

static void raise_irq(struct virtio_mmio *vm, uint32_t bits)
{
	vm->s->interrupt_status |= bits;
	update_irq(vm);
}

void virtio_mmio_needs_reset(struct virtio_mmio *vm)
{
	if (vm->s->status & VIRTIO_STATUS_DEVICE_NEEDS_RESET)
		return;
	vm->s->status |= VIRTIO_STATUS_DEVICE_NEEDS_RESET;
	/* 2.1.2: a running driver learns of it through a config change. */
	if (vm->s->status & VIRTIO_STATUS_DRIVER_OK)
		raise_irq(vm, VIRTIO_INT_CONFIG);
}

static uint64_t device_features(const struct virtio_mmio *vm)
{
	return vm->ops->features(vm) | 1ULL << VIRTIO_F_VERSION_1;
}

bool virtio_mmio_has_feature(const struct virtio_mmio *vm, unsigned bit)
{
	return bit < 64 && (vm->s->driver_features & device_features(vm)) >> bit & 1;
}

/* Back to the state after init: the driver wrote 0 to Status. */
static void reset(struct virtio_mmio *vm)
{
	uint32_t generation = vm->s->config_generation;
	memset(vm->s, 0, sizeof(*vm->s));
	vm->s->config_generation = generation;
	update_irq(vm);
	if (vm->ops->reset)
		vm->ops->reset(vm);
}

static struct virtq *selected(struct virtio_mmio *vm)
{
	return vm->s->queue_sel < vm->ops->nqueues ? &vm->s->queues[vm->s->queue_sel] : NULL;
}

/* --- the split virtqueue in guest memory ------------------------------ */

static bool read_u16(const struct virtio_mmio *vm, uint64_t pa, uint16_t *v)
{
	uint8_t b[2];
	if (!dma_read(&vm->dma, pa, b, sizeof(b)))
		return false;
	*v = (uint16_t)virtio_get_le(b, 2);
	return true;
}

/* True if [pa, pa + len) is aligned, does not wrap and lies in guest
 * memory. Probing both ends suffices for RAM, which is contiguous; every
 * later access is checked again anyway. */
static bool guest_range(const struct virtio_mmio *vm, uint64_t pa, uint64_t len, uint64_t align)
{
	uint8_t b;
	if (pa % align || len == 0 || len - 1 > UINT64_MAX - pa)
		return false;
	return dma_read(&vm->dma, pa, &b, 1) && dma_read(&vm->dma, pa + len - 1, &b, 1);
}

/* The rings of a queue the driver wants to enable fit virtio 1.1 2.6. */
static bool queue_valid(const struct virtio_mmio *vm, const struct virtq *vq)
{
	uint32_t n = vq->num;
	if (n == 0 || n > vm->ops->queue_num_max || (n & (n - 1)))
		return false;
	return guest_range(vm, vq->desc, (uint64_t)DESC_SIZE * n, 16) &&
	       guest_range(vm, vq->avail, 6 + 2ULL * n, 2) &&
	       guest_range(vm, vq->used, 6 + 8ULL * n, 4);
}

static void set_queue_ready(struct virtio_mmio *vm, struct virtq *vq, bool ready)
{
	if (!ready || vq->ready) {
		vq->ready = ready;
		return;
	}
	if (!queue_valid(vm, vq)) {
		virtio_mmio_needs_reset(vm);
		return;
	}
	vq->ready = true;
	vq->last_avail_idx = vq->used_idx = 0;
	vq->signal = false;
}

static enum virtq_pop_result broken(struct virtio_mmio *vm)
{
	virtio_mmio_needs_reset(vm);
	return VIRTQ_POP_BROKEN;
}

/* Append one descriptor's buffer to the chain; -EINVAL if it makes the
 * chain malformed. */
static int add_seg(const struct virtio_mmio *vm, struct virtio_chain *c, const uint8_t *d)
{
	struct virtio_seg s = {.addr = virtio_get_le(d, 8),
			       .len = (uint32_t)virtio_get_le(d + 8, 4)};
	uint16_t flags = (uint16_t)virtio_get_le(d + 12, 2);
	s.write = flags & VIRTQ_DESC_F_WRITE;
	if (flags & VIRTQ_DESC_F_INDIRECT)
		return -EINVAL; /* not offered */
	if (!s.write && c->nseg > c->nout)
		return -EINVAL; /* 2.6.4.2: readable after writable */
	if (s.len && !guest_range(vm, s.addr, s.len, 1))
		return -EINVAL;
	if (c->out_len + c->in_len + s.len > UINT32_MAX)
		return -EINVAL;
	c->seg[c->nseg++] = s;
	if (s.write) {
		c->in_len += s.len;
	} else {
		c->out_len += s.len;
		c->nout++;
	}
	return 0;
}

/* Walk the chain at `head` into c: 0, -EINVAL for a malformed chain, -EIO
 * if the descriptor table cannot be read. At most num descriptors: a
 * longer chain revisits one, a loop. */
static int walk_chain(const struct virtio_mmio *vm, const struct virtq *vq, uint16_t head,
		      struct virtio_chain *c)
{
	c->head = head;
	c->nseg = c->nout = 0;
	c->out_len = c->in_len = 0;
	uint32_t idx = head;
	for (;;) {
		uint8_t d[DESC_SIZE];
		if (c->nseg == vq->num)
			return -EINVAL;
		if (!dma_read(&vm->dma, vq->desc + (uint64_t)DESC_SIZE * idx, d, sizeof(d)))
			return -EIO;
		int rc = add_seg(vm, c, d);
		if (rc)
			return rc;
		if (!(virtio_get_le(d + 12, 2) & VIRTQ_DESC_F_NEXT))
			return 0;
		idx = (uint32_t)virtio_get_le(d + 14, 2);
		if (idx >= vq->num)
			return -EINVAL;
	}
}

/* Take the next head index off the available ring; -1 if there is none,
 * -2 if the ring is broken. */
static int next_head(struct virtio_mmio *vm, struct virtq *vq)
{
	uint16_t avail_idx, head;
	if (vq->budget == 0)
		return -1;
	if (!read_u16(vm, vq->avail + 2, &avail_idx))
		return -2;
	uint16_t pending = (uint16_t)(avail_idx - vq->last_avail_idx);
	if (pending == 0)
		return -1;
	if (pending > vq->num) /* the driver cannot have more than num out */
		return -2;
	if (!read_u16(vm, vq->avail + 4 + 2ULL * (vq->last_avail_idx % vq->num), &head))
		return -2;
	if (head >= vq->num)
		return -2;
	vq->last_avail_idx++;
	vq->budget--;
	return head;
}

enum virtq_pop_result virtq_pop(struct virtio_mmio *vm, unsigned q, struct virtio_chain *c)
{
	if (q >= vm->ops->nqueues || !vm->s->queues[q].ready ||
	    (vm->s->status & VIRTIO_STATUS_DEVICE_NEEDS_RESET))
		return VIRTQ_POP_EMPTY;
	struct virtq *vq = &vm->s->queues[q];
	for (;;) {
		int head = next_head(vm, vq);
		if (head == -1)
			return VIRTQ_POP_EMPTY;
		if (head < 0)
			return broken(vm);
		int rc = walk_chain(vm, vq, (uint16_t)head, c);
		if (rc == 0)
			return VIRTQ_POP_CHAIN;
		if (rc == -EIO || virtq_push(vm, q, (uint16_t)head, 0))
			return broken(vm);
	}
}

int virtq_push(struct virtio_mmio *vm, unsigned q, uint16_t head, uint32_t len)
{
	if (q >= vm->ops->nqueues || !vm->s->queues[q].ready)
		return -EINVAL;
	struct virtq *vq = &vm->s->queues[q];
	uint8_t elem[8], idx[2];
	virtio_put_le(elem, head, 4);
	virtio_put_le(elem + 4, len, 4);
	uint64_t at = vq->used + 4 + 8ULL * (vq->used_idx % vq->num);
	/* 2.6.8.2: the element before the index that publishes it. */
	if (!dma_write(&vm->dma, at, elem, sizeof(elem)))
		goto fail;
	virtio_put_le(idx, (uint16_t)(vq->used_idx + 1), 2);
	if (!dma_write(&vm->dma, vq->used + 2, idx, sizeof(idx)))
		goto fail;
	vq->used_idx++;
	vq->signal = true;
	return 0;
fail:
	virtio_mmio_needs_reset(vm);
	return -EIO;
}

void virtq_interrupt(struct virtio_mmio *vm, unsigned q)
{
	if (q >= vm->ops->nqueues || !vm->s->queues[q].signal)
		return;
	struct virtq *vq = &vm->s->queues[q];
	uint16_t flags;
	vq->signal = false;
	if (!read_u16(vm, vq->avail, &flags)) {
		virtio_mmio_needs_reset(vm);
		return;
	}
	/* Without event idx, 2.6.7.2: the flag is a hint the device honours,
	 * as QEMU does, so the guest takes the same interrupts under both. */
	if (!(flags & VIRTQ_AVAIL_F_NO_INTERRUPT))
		raise_irq(vm, VIRTIO_INT_USED);
}

/* Copy between buf and one part of the chain: its readable segments
 * [0, nout) or its writable ones [nout, nseg). */
static bool chain_copy(const struct virtio_mmio *vm, const struct virtio_chain *c, bool to_guest,
		       uint64_t off, uint8_t *buf, uint64_t len)
{
	unsigned i = to_guest ? c->nout : 0, end = to_guest ? c->nseg : c->nout;
	for (; i < end && len; i++) {
		const struct virtio_seg *s = &c->seg[i];
		if (off >= s->len) {
			off -= s->len;
			continue;
		}
		uint64_t n = s->len - off < len ? s->len - off : len;
		bool ok = to_guest ? dma_write(&vm->dma, s->addr + off, buf, n)
				   : dma_read(&vm->dma, s->addr + off, buf, n);
		if (!ok)
			return false;
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0;
}

bool virtio_chain_read(const struct virtio_mmio *vm, const struct virtio_chain *c, uint64_t off,
		       void *buf, uint64_t len)
{
	return chain_copy(vm, c, false, off, buf, len);
}

bool virtio_chain_write(const struct virtio_mmio *vm, const struct virtio_chain *c, uint64_t off,
			const void *buf, uint64_t len)
{
	return chain_copy(vm, c, true, off, (uint8_t *)buf, len);
}

uint64_t virtio_config_bytes(const uint8_t *cfg, size_t len, uint64_t off, int size)
{
	if (off > len || (uint64_t)size > len - off)
		return size == 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
	return virtio_get_le(cfg + off, size);
}

/* --- registers ---------------------------------------------------------- */

static uint32_t queue_reg(const struct virtq *vq, uint64_t off)
{
	switch (off) {
	case REG_QUEUE_NUM: return vq->num;
	case REG_QUEUE_READY: return vq->ready;
	case REG_QUEUE_DESC_LOW: return (uint32_t)vq->desc;
	case REG_QUEUE_DESC_HIGH: return (uint32_t)(vq->desc >> 32);
	case REG_QUEUE_AVAIL_LOW: return (uint32_t)vq->avail;
	case REG_QUEUE_AVAIL_HIGH: return (uint32_t)(vq->avail >> 32);
	case REG_QUEUE_USED_LOW: return (uint32_t)vq->used;
	case REG_QUEUE_USED_HIGH: return (uint32_t)(vq->used >> 32);
	default: return 0;
	}
}

static uint32_t reg_read(struct virtio_mmio *vm, uint64_t off)
{
	struct virtq *vq = selected(vm);
	switch (off) {
	case REG_MAGIC: return VIRTIO_MAGIC;
	case REG_VERSION: return VIRTIO_VERSION;
	case REG_DEVICE_ID: return vm->ops->device_id;
	case REG_VENDOR_ID: return VIRTIO_VENDOR;
	case REG_DEVICE_FEATURES:
		if (vm->s->device_features_sel > 1)
			return 0;
		return (uint32_t)(device_features(vm) >> (32 * vm->s->device_features_sel));
	case REG_QUEUE_NUM_MAX: return vq ? vm->ops->queue_num_max : 0;
	case REG_INTERRUPT_STATUS: return vm->s->interrupt_status;
	case REG_STATUS: return vm->s->status;
	case REG_CONFIG_GEN: return vm->s->config_generation;
	default: return vq ? queue_reg(vq, off) : 0;
	}
}

static void set_half(uint64_t *reg, bool high, uint32_t val)
{
	if (high)
		*reg = (*reg & 0xffffffffULL) | (uint64_t)val << 32;
	else
		*reg = (*reg & ~0xffffffffULL) | val;
}

/* QueueNum and the ring addresses: fixed while the queue is ready. */
static void queue_write(struct virtq *vq, uint64_t off, uint32_t val)
{
	if (vq->ready)
		return;
	switch (off) {
	case REG_QUEUE_NUM: vq->num = val; break;
	case REG_QUEUE_DESC_LOW:
	case REG_QUEUE_DESC_HIGH: set_half(&vq->desc, off & 4, val); break;
	case REG_QUEUE_AVAIL_LOW:
	case REG_QUEUE_AVAIL_HIGH: set_half(&vq->avail, off & 4, val); break;
	case REG_QUEUE_USED_LOW:
	case REG_QUEUE_USED_HIGH: set_half(&vq->used, off & 4, val); break;
	default: break;
	}
}

static void driver_features_write(struct virtio_mmio *vm, uint32_t val)
{
	/* 3.1.1: features are fixed once FEATURES_OK is set. */
	if (vm->s->driver_features_sel > 1 || (vm->s->status & VIRTIO_STATUS_FEATURES_OK))
		return;
	set_half(&vm->s->driver_features, vm->s->driver_features_sel, val);
}

/* The driver accepts only offered features, and VERSION_1 (this is a
 * modern-only transport). */
static bool features_acceptable(const struct virtio_mmio *vm)
{
	uint64_t f = vm->s->driver_features;
	return !(f & ~device_features(vm)) && (f >> VIRTIO_F_VERSION_1 & 1);
}

static void status_write(struct virtio_mmio *vm, uint32_t val)
{
	if (val == 0) {
		reset(vm);
		return;
	}
	/* DEVICE_NEEDS_RESET is the device's bit: only a reset clears it. */
	uint32_t s = (val & 0xff & ~VIRTIO_STATUS_DEVICE_NEEDS_RESET) |
		     (vm->s->status & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	if ((s & VIRTIO_STATUS_FEATURES_OK) && !(vm->s->status & VIRTIO_STATUS_FEATURES_OK) &&
	    !features_acceptable(vm))
		s &= ~VIRTIO_STATUS_FEATURES_OK; /* 3.1.1: the driver reads it back */
	vm->s->status = s;
}

static void queue_notify(struct virtio_mmio *vm, uint32_t q)
{
	uint32_t need = VIRTIO_STATUS_DRIVER_OK | VIRTIO_STATUS_DEVICE_NEEDS_RESET;
	if (q >= vm->ops->nqueues || !vm->s->queues[q].ready ||
	    (vm->s->status & need) != VIRTIO_STATUS_DRIVER_OK)
		return;
	/* A well-behaved driver cannot offer more than num chains while the
	 * device runs (the guest is stopped); the budget also stops a guest
	 * whose rings alias so that the device's own writes refill them. */
	vm->s->queues[q].budget = vm->s->queues[q].num;
	vm->ops->notify(vm, q);
}

static void reg_write(struct virtio_mmio *vm, uint64_t off, uint32_t val)
{
	struct virtq *vq = selected(vm);
	switch (off) {
	case REG_DEVICE_FEAT_SEL: vm->s->device_features_sel = val; break;
	case REG_DRIVER_FEATURES: driver_features_write(vm, val); break;
	case REG_DRIVER_FEAT_SEL: vm->s->driver_features_sel = val; break;
	case REG_QUEUE_SEL: vm->s->queue_sel = val; break;
	case REG_QUEUE_READY:
		if (vq)
			set_queue_ready(vm, vq, val & 1);
		break;
	case REG_QUEUE_NOTIFY: queue_notify(vm, val); break;
	case REG_INTERRUPT_ACK:
		vm->s->interrupt_status &= ~val;
		update_irq(vm);
		break;
	case REG_STATUS: status_write(vm, val); break;
	default:
		if (vq)
			queue_write(vq, off, val);
		break;
	}
}

/* An access the bus may hand us: 1, 2, 4 or 8 bytes inside the window. */
static bool in_window(uint64_t off, int size)
{
	bool pow2 = size == 1 || size == 2 || size == 4 || size == 8;
	return pow2 && off < VIRTIO_MMIO_SIZE && (uint64_t)size <= VIRTIO_MMIO_SIZE - off;
}

static bool vio_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	struct virtio_mmio *vm = dev;
	if (!in_window(off, size))
		return false;
	if (off >= REG_CONFIG)
		*val = vm->ops->config_read(vm, off - REG_CONFIG, size);
	else
		*val = size == 4 && off % 4 == 0 ? reg_read(vm, off) : 0;
	return true;
}

static bool vio_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct virtio_mmio *vm = dev;
	if (!in_window(off, size))
		return false;
	if (off >= REG_CONFIG) {
		if (vm->ops->config_write)
			vm->ops->config_write(vm, off - REG_CONFIG, size, val);
	} else if (size == 4 && off % 4 == 0) {
		reg_write(vm, off, (uint32_t)val);
	}
	return true;
}

const struct mmio_ops virtio_mmio_ops = {vio_read, vio_write};
