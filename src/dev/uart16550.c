/* uart16550.c - see uart16550.h. Registers are byte-wide at offsets 0..7:
 * RBR/THR (DLL with DLAB), IER (DLM with DLAB), IIR/FCR, LCR, MCR, LSR, MSR,
 * SCR. Interrupt sources in the 16550's priority order: line status
 * (overrun), received data, THR empty, modem status. The received-data
 * interrupt is raised whenever data waits, whatever the FIFO trigger level:
 * without a clock there is no character timeout, and the 8250 driver reads
 * everything LSR.DR reports either way.
 *
 * THR-empty follows the 16550 and QEMU: `thr_ipending` is armed when IER.THRI
 * goes from 0 to 1 (THR being empty) and when a written byte has left, and
 * disarmed by an IIR read that reports it or by turning IER.THRI off. Linux
 * relies on the rising edge re-arming it (its UART_BUG_THRE test). */
#include <string.h>

#include "uart16550.h"

#define IER_RDI	 0x01
#define IER_THRI 0x02
#define IER_RLSI 0x04
#define IER_MSI	 0x08

#define IIR_MSI	  0x00
#define IIR_NONE  0x01
#define IIR_THRI  0x02
#define IIR_RDI	  0x04
#define IIR_RLSI  0x06
#define IIR_FIFOS 0xc0

#define FCR_ENABLE     0x01
#define FCR_CLEAR_RCVR 0x02
#define FCR_KEPT       0xc9 /* enable, DMA mode, trigger level */

#define LCR_DLAB 0x80

#define MCR_DTR	 0x01
#define MCR_RTS	 0x02
#define MCR_OUT1 0x04
#define MCR_OUT2 0x08
#define MCR_LOOP 0x10
#define MCR_MASK 0x1f

#define LSR_DR	      0x01
#define LSR_OE	      0x02
#define LSR_THRE_TEMT 0x60 /* transmitter always empty: output is synchronous */

#define MSR_DCTS 0x01
#define MSR_DDSR 0x02
#define MSR_TERI 0x04
#define MSR_DDCD 0x08
#define MSR_CTS	 0x10
#define MSR_DSR	 0x20
#define MSR_RI	 0x40
#define MSR_DCD	 0x80

const struct dev_state_desc uart16550_state_desc = {"uart16550", 1, sizeof(struct uart16550_state)};

void uart16550_init(struct uart16550 *u, struct uart16550_state *s, FILE *out)
{
	memset(s, 0, sizeof(*s));
	*u = (struct uart16550){.s = s, .out = out};
}

static bool fifo_enabled(const struct uart16550 *u)
{
	return u->s->fcr & FCR_ENABLE;
}

/* The interrupt IIR reports now (IIR_NONE if none): highest priority first. */
static uint8_t iir_id(const struct uart16550 *u)
{
	if ((u->s->ier & IER_RLSI) && u->s->lsr_err)
		return IIR_RLSI;
	if ((u->s->ier & IER_RDI) && u->s->rx_count)
		return IIR_RDI;
	if ((u->s->ier & IER_THRI) && u->s->thr_ipending)
		return IIR_THRI;
	if ((u->s->ier & IER_MSI) && u->s->msr_delta)
		return IIR_MSI;
	return IIR_NONE;
}

static void update_irq(struct uart16550 *u)
{
	irq_set(&u->irq, iir_id(u) != IIR_NONE);
}

void uart16550_set_irq_line(struct uart16550 *u, struct irq_line line)
{
	u->irq = line;
	update_irq(u);
}

/* Modem-status inputs: wired to MCR's outputs in loopback; otherwise a
 * console that is always there (CTS, DSR and DCD up), as on QEMU. */
static uint8_t msr_inputs(const struct uart16550 *u)
{
	uint8_t m = u->s->mcr;
	if (!(m & MCR_LOOP))
		return MSR_CTS | MSR_DSR | MSR_DCD;
	return (m & MCR_RTS ? MSR_CTS : 0) | (m & MCR_DTR ? MSR_DSR : 0) |
	       (m & MCR_OUT1 ? MSR_RI : 0) | (m & MCR_OUT2 ? MSR_DCD : 0);
}

static size_t rx_capacity(const struct uart16550 *u)
{
	return fifo_enabled(u) ? UART16550_FIFO : 1;
}

static bool rx_put(struct uart16550 *u, uint8_t b)
{
	if (u->s->rx_count >= rx_capacity(u))
		return false;
	u->s->rx[(u->s->rx_head + u->s->rx_count) % UART16550_FIFO] = b;
	u->s->rx_count++;
	return true;
}

static uint8_t rx_pop(struct uart16550 *u)
{
	if (!u->s->rx_count)
		return 0;
	uint8_t b = u->s->rx[u->s->rx_head];
	u->s->rx_head = (u->s->rx_head + 1) % UART16550_FIFO;
	u->s->rx_count--;
	return b;
}

size_t uart16550_push_input(struct uart16550 *u, const uint8_t *bytes, size_t n)
{
	size_t i = 0;
	if (!(u->s->mcr & MCR_LOOP)) /* loopback disconnects the serial input */
		while (i < n && rx_put(u, bytes[i]))
			i++;
	update_irq(u);
	return i;
}

static void transmit(struct uart16550 *u, uint8_t b)
{
	if (u->s->mcr & MCR_LOOP) {
		if (!rx_put(u, b))
			u->s->lsr_err |= LSR_OE;
	} else if (u->out) {
		fputc(b, u->out);
	}
	u->s->thr_ipending = true; /* the byte has left: THR is empty again */
}

static uint8_t read_iir(struct uart16550 *u)
{
	uint8_t id = iir_id(u);
	if (id == IIR_THRI)
		u->s->thr_ipending = false;
	return id | (fifo_enabled(u) ? IIR_FIFOS : 0);
}

static uint8_t read_lsr(struct uart16550 *u)
{
	uint8_t v = (u->s->rx_count ? LSR_DR : 0) | u->s->lsr_err | LSR_THRE_TEMT;
	u->s->lsr_err = 0;
	return v;
}

static uint8_t read_msr(struct uart16550 *u)
{
	uint8_t v = msr_inputs(u) | u->s->msr_delta;
	u->s->msr_delta = 0;
	return v;
}

static bool uart_read(void *dev, uint64_t off, int size, uint64_t *val)
{
	struct uart16550 *u = dev;
	bool dlab = u->s->lcr & LCR_DLAB;
	if (size != 1 || off > 7)
		return false;
	switch (off) {
	case 0: *val = dlab ? u->s->dll : rx_pop(u); break;
	case 1: *val = dlab ? u->s->dlm : u->s->ier; break;
	case 2: *val = read_iir(u); break;
	case 3: *val = u->s->lcr; break;
	case 4: *val = u->s->mcr; break;
	case 5: *val = read_lsr(u); break;
	case 6: *val = read_msr(u); break;
	default: *val = u->s->scr; break;
	}
	update_irq(u);
	return true;
}

static void write_ier(struct uart16550 *u, uint8_t b)
{
	uint8_t changed = (u->s->ier ^ b) & 0x0f;
	u->s->ier = b & 0x0f;
	if (changed & IER_THRI) /* THR is always empty: arm on the rising edge */
		u->s->thr_ipending = u->s->ier & IER_THRI;
}

static void write_fcr(struct uart16550 *u, uint8_t b)
{
	bool toggled = (u->s->fcr ^ b) & FCR_ENABLE;
	if (toggled || (b & FCR_CLEAR_RCVR))
		u->s->rx_head = u->s->rx_count = 0; /* the transmit FIFO is always empty */
	u->s->fcr = b & FCR_KEPT;
}

/* MCR drives the modem-status inputs in loopback: record their changes in
 * the delta bits (RI only on its falling edge, as the 16550 does). */
static void write_mcr(struct uart16550 *u, uint8_t b)
{
	uint8_t before = msr_inputs(u);
	u->s->mcr = b & MCR_MASK;
	uint8_t after = msr_inputs(u), changed = before ^ after;
	u->s->msr_delta |= (changed & MSR_CTS ? MSR_DCTS : 0) | (changed & MSR_DSR ? MSR_DDSR : 0) |
			   (changed & MSR_DCD ? MSR_DDCD : 0) |
			   ((before & MSR_RI) && !(after & MSR_RI) ? MSR_TERI : 0);
}

static bool uart_write(void *dev, uint64_t off, int size, uint64_t val)
{
	struct uart16550 *u = dev;
	bool dlab = u->s->lcr & LCR_DLAB;
	uint8_t b = (uint8_t)val;
	if (size != 1 || off > 7)
		return false;
	switch (off) {
	case 0:
		if (dlab)
			u->s->dll = b;
		else
			transmit(u, b);
		break;
	case 1:
		if (dlab)
			u->s->dlm = b;
		else
			write_ier(u, b);
		break;
	case 2: write_fcr(u, b); break;
	case 3: u->s->lcr = b; break;
	case 4: write_mcr(u, b); break;
	case 7: u->s->scr = b; break;
	default: break; /* LSR and MSR are read-only */
	}
	update_irq(u);
	return true;
}

const struct mmio_ops uart16550_ops = {uart_read, uart_write};
