/* uart16550.h - a 16550A UART as Linux's 8250 driver and polling firmware
 * use it: byte-wide registers at offsets 0..7, a 16-byte receive FIFO fed
 * through uart16550_push_input, and one interrupt line.
 *
 * Transmission is synchronous: a byte written to THR goes straight to the
 * host stream, so THR is always empty, LSR reads THRE|TEMT (0x60) when no
 * input is waiting, and the THR-empty interrupt is re-armed by every THR
 * write as a real 16550 re-arms it when the byte has left. The divisor
 * latch is modelled so the baud-rate bytes a driver writes with LCR.DLAB
 * set never reach the console as characters. In loopback (MCR.LOOP) the
 * transmitter feeds the receiver and the modem-status inputs follow MCR.
 *
 * The interrupt line is kept at "some interrupt enabled in IER is pending"
 * after every access and every push; it is unconnected until the board
 * sets one (the bare board has no interrupt controller).
 *
 * The forkable state is struct uart16550_state (see dev.h); struct
 * uart16550 is its wiring: the state, the line and the host stream. */
#ifndef THEMIS_UART16550_H
#define THEMIS_UART16550_H

#include <stddef.h>
#include <stdio.h>

#include "dev.h"
#include "irq.h"
#include "mmio.h"

#define UART16550_FIFO 16

struct uart16550_state {
	uint8_t ier, lcr, mcr, scr, dll, dlm;
	uint8_t fcr;	   /* FIFO enable and trigger bits as last written */
	uint8_t lsr_err;   /* overrun (LSR.OE), cleared by reading LSR */
	uint8_t msr_delta; /* MSR bits 0..3, cleared by reading MSR */
	bool thr_ipending; /* THR-empty interrupt armed, see the .c */
	uint8_t rx[UART16550_FIFO];
	uint8_t rx_head, rx_count;
};

struct uart16550 {
	struct uart16550_state *s; /* not owned */
	struct irq_line irq;
	FILE *out; /* not owned */
};

extern const struct mmio_ops uart16550_ops;
extern const struct dev_state_desc uart16550_state_desc;

/* Wire u to its state, writing to `out` (may be NULL to discard), and reset
 * the state; no interrupt line. */
void uart16550_init(struct uart16550 *u, struct uart16550_state *s, FILE *out);
/* Connect the interrupt line and drive it to the current level. */
void uart16550_set_irq_line(struct uart16550 *u, struct irq_line line);

/* Queue received bytes. Returns how many fit: the FIFO holds 16 bytes, or
 * one while FIFOs are disabled, and takes none in loopback (MCR.LOOP
 * disconnects the serial input). The bytes that did not fit are the
 * caller's to offer again or drop. No board feeds host input today; the
 * unit tests do. */
size_t uart16550_push_input(struct uart16550 *u, const uint8_t *bytes, size_t n);

#endif
