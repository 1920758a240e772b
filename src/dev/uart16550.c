/* uart16550.c - see uart16550.h. Registers are byte-wide at offsets 0..7. */
#include "uart16550.h"

#define LCR_DLAB      0x80
#define LSR_THRE_TEMT 0x60 /* transmitter always empty: output is synchronous */
#define IIR_NONE      0x01

void uart16550_init(struct uart16550 *u, FILE *out)
{
	*u = (struct uart16550){.out = out};
}

static bool uart_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	struct uart16550 *u = dev;
	bool dlab = u->lcr & LCR_DLAB;
	if (size != 1 || off > 7)
		return false;
	switch (off) {
	case 0: *val = dlab ? u->dll : 0; break;
	case 1: *val = dlab ? u->dlm : u->ier; break;
	case 2: *val = IIR_NONE; break;
	case 3: *val = u->lcr; break;
	case 4: *val = u->mcr; break;
	case 5: *val = LSR_THRE_TEMT; break;
	case 6: *val = 0; break;
	default: *val = u->scr; break;
	}
	return true;
}

static bool uart_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct uart16550 *u = dev;
	bool dlab = u->lcr & LCR_DLAB;
	uint8_t b = (uint8_t)val;
	if (size != 1 || off > 7)
		return false;
	switch (off) {
	case 0:
		if (dlab)
			u->dll = b;
		else if (u->out)
			fputc(b, u->out);
		break;
	case 1:
		if (dlab)
			u->dlm = b;
		else
			u->ier = b & 0x0f;
		break;
	case 3: u->lcr = b; break;
	case 4: u->mcr = b & 0x1f; break;
	case 7: u->scr = b; break;
	default: break; /* FCR and read-only registers */
	}
	return true;
}

const struct mmio_ops uart16550_ops = {uart_read, uart_write};
