/* goldfish_rtc.h - the Goldfish real-time clock of QEMU's virt board
 * ("google,goldfish-rtc", 0x101000 on virt), as Linux's rtc-goldfish uses
 * it: a 64-bit nanosecond clock since the Unix epoch read as two 32-bit
 * halves, and one alarm with an interrupt.
 *
 * The clock is the board's: `now_ns` returns wall-clock base plus virtual
 * time, so a run replays identically; nothing here reads the host clock. A
 * guest setting the clock only moves `offset`. The alarm is checked when the
 * board calls goldfish_rtc_update() between runs of the hart (and when the
 * guest arms it), and goldfish_rtc_ns_to_alarm() says how long the hart may
 * run before it is due.
 *
 * The forkable state is struct goldfish_rtc_state (see dev.h); struct
 * goldfish_rtc is its wiring: the state, the board's clock and the line. */
#ifndef THEMIS_GOLDFISH_RTC_H
#define THEMIS_GOLDFISH_RTC_H

#include <stdint.h>

#include "dev.h"
#include "irq.h"
#include "mmio.h"

#define GOLDFISH_RTC_MMIO_SIZE 0x1000ULL

struct goldfish_rtc_state {
	uint64_t offset;    /* guest time = now_ns() + offset (wrapping) */
	uint64_t alarm;	    /* in guest time */
	uint32_t time_high; /* latched by the last TIME_LOW read */
	bool alarm_running; /* armed and not yet fired or cleared */
	bool irq_pending;   /* fired, not yet cleared by CLEAR_INTERRUPT */
	bool irq_enabled;
};

struct goldfish_rtc {
	struct goldfish_rtc_state *s; /* not owned */
	uint64_t (*now_ns)(void *opaque);
	void *opaque;
	struct irq_line irq;
};

extern const struct mmio_ops goldfish_rtc_ops;
extern const struct dev_state_desc goldfish_rtc_state_desc;

/* Wire rtc to its state, the board's clock and a line, and reset the
 * state: the clock reads now_ns(opaque), no alarm, interrupt off. */
void goldfish_rtc_init(struct goldfish_rtc *rtc, struct goldfish_rtc_state *s,
		       uint64_t (*now_ns)(void *opaque), void *opaque, struct irq_line irq);
/* Fire the alarm if it is due and drive the interrupt line. */
void goldfish_rtc_update(struct goldfish_rtc *rtc);
/* Nanoseconds until the armed alarm is due (0 if it is), UINT64_MAX if
 * none is armed. */
uint64_t goldfish_rtc_ns_to_alarm(const struct goldfish_rtc *rtc);

#endif
