/* uart16550.h - a 16550 UART: transmit to a host stream, nothing to receive.
 * The divisor latch is modelled so the baud-rate bytes a driver writes with
 * LCR.DLAB set never reach the console as characters. */
#ifndef THEMIS_UART16550_H
#define THEMIS_UART16550_H

#include <stdio.h>

#include "mmio.h"

struct uart16550 {
	uint8_t ier, lcr, mcr, scr, dll, dlm;
	FILE *out; /* not owned */
};

extern const struct mmio_ops uart16550_ops;

void uart16550_init(struct uart16550 *u, FILE *out);

#endif
