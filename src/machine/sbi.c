/* sbi.c - see sbi.h. One hart, so IPIs and remote fences only concern
 * hart 0: an IPI raises SSIP, a remote fence flushes the soft TLB (the
 * decoded-instruction cache is kept coherent by stores, so fence.i needs
 * nothing). */
#include "sbi.h"

enum {
	SBI_SUCCESS = 0,
	SBI_ERR_FAILED = -1,
	SBI_ERR_NOT_SUPPORTED = -2,
	SBI_ERR_INVALID_PARAM = -3,
	SBI_ERR_ALREADY_AVAILABLE = -6,
};

enum {
	EXT_LEGACY_SET_TIMER = 0x00,
	EXT_LEGACY_PUTCHAR = 0x01,
	EXT_LEGACY_GETCHAR = 0x02,
	EXT_LEGACY_CLEAR_IPI = 0x03,
	EXT_LEGACY_SEND_IPI = 0x04,
	EXT_LEGACY_FENCE_I = 0x05,
	EXT_LEGACY_SFENCE_VMA = 0x06,
	EXT_LEGACY_SFENCE_VMA_ASID = 0x07,
	EXT_LEGACY_SHUTDOWN = 0x08,
	EXT_BASE = 0x10,
	EXT_TIME = 0x54494d45,
	EXT_IPI = 0x735049,
	EXT_RFENCE = 0x52464e43,
	EXT_HSM = 0x48534d,
	EXT_SRST = 0x53525354,
};

#define SBI_SPEC_VERSION 0x3	  /* v0.3 */
#define SBI_IMPL_ID	 0x544d53 /* "TMS": not a registered id */
#define SBI_IMPL_VERSION 1

struct sbi_ret {
	int64_t error;
	uint64_t value;
};

static bool extension_known(uint64_t ext)
{
	switch (ext) {
	case EXT_BASE:
	case EXT_TIME:
	case EXT_IPI:
	case EXT_RFENCE:
	case EXT_HSM:
	case EXT_SRST: return true;
	default: return ext <= EXT_LEGACY_SHUTDOWN;
	}
}

static struct sbi_ret base_call(const struct cpu *c, uint64_t fid)
{
	switch (fid) {
	case 0: return (struct sbi_ret){0, SBI_SPEC_VERSION};
	case 1: return (struct sbi_ret){0, SBI_IMPL_ID};
	case 2: return (struct sbi_ret){0, SBI_IMPL_VERSION};
	case 3: return (struct sbi_ret){0, extension_known(c->x[10])};
	case 4: /* mvendorid, marchid, mimpid: all 0 */
	case 5:
	case 6: return (struct sbi_ret){0, 0};
	default: return (struct sbi_ret){SBI_ERR_NOT_SUPPORTED, 0};
	}
}

/* A hart mask (mask, base) names hart 0? base = -1 means all harts. */
static bool mask_has_hart0(uint64_t mask, uint64_t base)
{
	return base == ~0ULL || (base == 0 && (mask & 1));
}

static struct sbi_ret hsm_call(const struct cpu *c, uint64_t fid)
{
	uint64_t hart = c->x[10];
	switch (fid) {
	case 0: /* hart_start */
		return (struct sbi_ret){
		    hart == 0 ? SBI_ERR_ALREADY_AVAILABLE : SBI_ERR_INVALID_PARAM, 0};
	case 1: return (struct sbi_ret){SBI_ERR_FAILED, 0}; /* hart_stop: the only hart */
	case 2:						    /* hart_get_status: 0 = started */
		return (struct sbi_ret){hart == 0 ? 0 : SBI_ERR_INVALID_PARAM, 0};
	default: return (struct sbi_ret){SBI_ERR_NOT_SUPPORTED, 0};
	}
}

static struct sbi_ret srst_call(const struct sbi_board *b, const struct cpu *c, uint64_t fid)
{
	uint64_t type = c->x[10];
	if (fid != 0)
		return (struct sbi_ret){SBI_ERR_NOT_SUPPORTED, 0};
	if (type > SBI_RESET_WARM)
		return (struct sbi_ret){SBI_ERR_INVALID_PARAM, 0};
	b->reset(b->opaque, (enum sbi_reset)type, (uint32_t)c->x[11]);
	return (struct sbi_ret){0, 0};
}

static struct sbi_ret legacy_call(const struct sbi_board *b, struct cpu *c, uint64_t ext)
{
	switch (ext) {
	case EXT_LEGACY_SET_TIMER: b->set_timer(b->opaque, c->x[10]); break;
	case EXT_LEGACY_PUTCHAR: b->putchar(b->opaque, (int)(c->x[10] & 0xff)); break;
	case EXT_LEGACY_GETCHAR: return (struct sbi_ret){-1, 0};
	case EXT_LEGACY_CLEAR_IPI: cpu_set_irq(c, 1ULL << IRQ_SSI, false); break;
	case EXT_LEGACY_SEND_IPI: cpu_set_irq(c, 1ULL << IRQ_SSI, true); break;
	case EXT_LEGACY_SHUTDOWN: b->reset(b->opaque, SBI_RESET_SHUTDOWN, 0); break;
	default: cpu_flush_tlb(c); break; /* the remote fences */
	}
	return (struct sbi_ret){0, 0};
}

bool sbi_call(const struct sbi_board *b, struct cpu *c)
{
	uint64_t ext = c->x[17], fid = c->x[16];
	struct sbi_ret r = {SBI_ERR_NOT_SUPPORTED, 0};
	if (ext <= EXT_LEGACY_SHUTDOWN) {
		r = legacy_call(b, c, ext);
		c->x[10] = (uint64_t)r.error; /* legacy calls return only a0 */
		return true;
	}
	switch (ext) {
	case EXT_BASE: r = base_call(c, fid); break;
	case EXT_TIME:
		if (fid == 0) {
			b->set_timer(b->opaque, c->x[10]);
			r = (struct sbi_ret){0, 0};
		}
		break;
	case EXT_IPI:
		if (fid == 0) {
			if (mask_has_hart0(c->x[10], c->x[11]))
				cpu_set_irq(c, 1ULL << IRQ_SSI, true);
			r = (struct sbi_ret){0, 0};
		}
		break;
	case EXT_RFENCE:
		if (fid <= 6) {
			cpu_flush_tlb(c);
			r = (struct sbi_ret){0, 0};
		}
		break;
	case EXT_HSM: r = hsm_call(c, fid); break;
	case EXT_SRST: r = srst_call(b, c, fid); break;
	default: break;
	}
	c->x[10] = (uint64_t)r.error;
	c->x[11] = r.value;
	return true;
}
