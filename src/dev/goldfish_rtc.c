/* goldfish_rtc.c - see goldfish_rtc.h. Registers are 32 bits wide, as on
 * QEMU 7.2 (hw/rtc/goldfish_rtc.c), whose behaviour this follows:
 *   0x00 TIME_LOW        read: low half of now, latching the high half;
 *                        write: replace the low half of now
 *   0x04 TIME_HIGH       read: the latched high half; write: replace the
 *                        high half of now
 *   0x08 ALARM_LOW       write: low half of the alarm, and arm it (an alarm
 *                        already due fires at once)
 *   0x0c ALARM_HIGH      write: high half of the alarm (does not arm)
 *   0x10 IRQ_ENABLED     bit 0 gates the interrupt line
 *   0x14 CLEAR_ALARM     write: disarm
 *   0x18 ALARM_STATUS    read: 1 while armed
 *   0x1c CLEAR_INTERRUPT write: drop the fired interrupt
 * Linux writes TIME_HIGH then TIME_LOW to set the clock and ALARM_HIGH then
 * ALARM_LOW to arm, so each write taking effect at once is what it needs. */
#include <string.h>

#include "goldfish_rtc.h"

#define RTC_TIME_LOW	    0x00
#define RTC_TIME_HIGH	    0x04
#define RTC_ALARM_LOW	    0x08
#define RTC_ALARM_HIGH	    0x0c
#define RTC_IRQ_ENABLED	    0x10
#define RTC_CLEAR_ALARM	    0x14
#define RTC_ALARM_STATUS    0x18
#define RTC_CLEAR_INTERRUPT 0x1c

const struct dev_state_desc goldfish_rtc_state_desc = {"goldfish_rtc", 1,
						       sizeof(struct goldfish_rtc_state)};

void goldfish_rtc_init(struct goldfish_rtc *rtc, struct goldfish_rtc_state *s,
		       uint64_t (*now_ns)(void *opaque), void *opaque, struct irq_line irq)
{
	memset(s, 0, sizeof(*s));
	*rtc = (struct goldfish_rtc){.s = s, .now_ns = now_ns, .opaque = opaque, .irq = irq};
	irq_set(&rtc->irq, false);
}

static uint64_t guest_now(const struct goldfish_rtc *rtc)
{
	return rtc->now_ns(rtc->opaque) + rtc->s->offset;
}

static void drive_irq(struct goldfish_rtc *rtc)
{
	irq_set(&rtc->irq, rtc->s->irq_pending && rtc->s->irq_enabled);
}

void goldfish_rtc_update(struct goldfish_rtc *rtc)
{
	if (rtc->s->alarm_running && guest_now(rtc) >= rtc->s->alarm) {
		rtc->s->alarm_running = false;
		rtc->s->irq_pending = true;
	}
	drive_irq(rtc);
}

uint64_t goldfish_rtc_ns_to_alarm(const struct goldfish_rtc *rtc)
{
	if (!rtc->s->alarm_running)
		return UINT64_MAX;
	uint64_t now = guest_now(rtc);
	return rtc->s->alarm > now ? rtc->s->alarm - now : 0;
}

/* Replace 32 bits of the clock at `shift`, keeping the rest ticking. */
static void set_time_half(struct goldfish_rtc *rtc, int shift, uint32_t half)
{
	uint64_t now = guest_now(rtc);
	uint64_t want = (now & ~(0xffffffffULL << shift)) | (uint64_t)half << shift;
	rtc->s->offset += want - now; /* wraps: the clock is modulo 2^64 */
}

static bool rtc_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	struct goldfish_rtc *rtc = dev;
	if (size != 4 || off % 4 || off >= GOLDFISH_RTC_MMIO_SIZE)
		return false;
	switch (off) {
	case RTC_TIME_LOW: {
		uint64_t now = guest_now(rtc);
		rtc->s->time_high = (uint32_t)(now >> 32);
		*val = (uint32_t)now;
		break;
	}
	case RTC_TIME_HIGH: *val = rtc->s->time_high; break;
	case RTC_ALARM_LOW: *val = (uint32_t)rtc->s->alarm; break;
	case RTC_ALARM_HIGH: *val = (uint32_t)(rtc->s->alarm >> 32); break;
	case RTC_IRQ_ENABLED: *val = rtc->s->irq_enabled; break;
	case RTC_ALARM_STATUS: *val = rtc->s->alarm_running; break;
	default: *val = 0; break;
	}
	return true;
}

static bool rtc_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct goldfish_rtc *rtc = dev;
	uint32_t v = (uint32_t)val;
	if (size != 4 || off % 4 || off >= GOLDFISH_RTC_MMIO_SIZE)
		return false;
	switch (off) {
	case RTC_TIME_LOW: set_time_half(rtc, 0, v); break;
	case RTC_TIME_HIGH: set_time_half(rtc, 32, v); break;
	case RTC_ALARM_LOW:
		rtc->s->alarm = (rtc->s->alarm & ~0xffffffffULL) | v;
		rtc->s->alarm_running = true;
		break;
	case RTC_ALARM_HIGH:
		rtc->s->alarm = (rtc->s->alarm & 0xffffffffULL) | (uint64_t)v << 32;
		break;
	case RTC_IRQ_ENABLED: rtc->s->irq_enabled = v & 1; break;
	case RTC_CLEAR_ALARM: rtc->s->alarm_running = false; break;
	case RTC_CLEAR_INTERRUPT: rtc->s->irq_pending = false; break;
	default: break;
	}
	goldfish_rtc_update(rtc);
	return true;
}

const struct mmio_ops goldfish_rtc_ops = {rtc_read, rtc_write};
