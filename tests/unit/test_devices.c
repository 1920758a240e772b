/* tier: fast */
/* test_devices.c - unit tests of the Linux board's devices (PLIC, 16550A
 * UART, Goldfish RTC, test finisher/syscon), driven through their mmio_ops
 * exactly as a driver would drive them.
 *
 * Build and run from the repository root:
 *   gcc -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc tests/unit/test_devices.c
 *       src/dev/plic.c src/dev/uart16550.c src/dev/goldfish_rtc.c src/dev/sifive_test.c
 *       src/cpu/[a-z]*.c -lm -o build/test_devices
 *   build/test_devices [test-name...]
 *
 * The hart is a zero-initialised struct cpu whose csr.mip the tests
 * inspect: the PLIC drives it through the real cpu_set_irq. Other devices'
 * interrupt lines go to a recorder, or to a PLIC for the wiring tests.
 * Each test names the property it guards; the program prints the number of
 * tests and checks and exits nonzero on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "dev/goldfish_rtc.h"
#include "dev/plic.h"
#include "dev/sifive_test.h"
#include "dev/uart16550.h"
#include "machine/virt.h"

/* ---- Harness ------------------------------------------------------------- */

struct tally {
	int checks, failed;
};

static bool check(struct tally *t, bool ok, const char *what, const char *file, int line)
{
	t->checks++;
	if (!ok) {
		t->failed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
	return ok;
}

#define CHECK(cond) check(t, (cond), #cond, __FILE__, __LINE__)
#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		unsigned long long a_ = (a), b_ = (b);                                             \
		if (!CHECK(a_ == b_))                                                              \
			fprintf(stderr, "    %s = %#llx, expected %#llx\n", #a, a_, b_);           \
	} while (0)

/* A read through the device's ops; a refused access counts as a failure. */
static uint64_t rd(struct tally *t, const struct mmio_ops *ops, void *dev, uint64_t off, int size)
{
	uint64_t v = 0xdeadbeef;
	if (!CHECK(ops->read(dev, off, size, &v)))
		fprintf(stderr, "    read at %#llx size %d refused\n", (unsigned long long)off,
			size);
	return v;
}

static void wr(struct tally *t, const struct mmio_ops *ops, void *dev, uint64_t off, int size,
	       uint64_t val)
{
	if (!CHECK(ops->write(dev, off, size, val)))
		fprintf(stderr, "    write at %#llx size %d refused\n", (unsigned long long)off,
			size);
}

#define MEIP (1ULL << IRQ_MEI)
#define SEIP (1ULL << IRQ_SEI)

/* An interrupt controller that only records the levels it is driven to. */
struct recorder {
	bool level[4];
	int calls;
};

static void record_irq(void *ctl, int source, bool level)
{
	struct recorder *r = ctl;
	r->level[source] = level;
	r->calls++;
}

/* ---- PLIC ---------------------------------------------------------------- */

#define P_PRIO(src)   (4ULL * (src))
#define P_PENDING(w)  (0x1000ULL + 4 * (w))
#define P_ENABLE(ctx) (0x2000ULL + 0x80 * (ctx))
#define P_THRESH(ctx) (0x200000ULL + 0x1000 * (ctx))
#define P_CLAIM(ctx)  (0x200004ULL + 0x1000 * (ctx))
#define P_M	      0
#define P_S	      1

static uint64_t prd(struct tally *t, struct plic *p, uint64_t off)
{
	return rd(t, &plic_ops, p, off, 4);
}

static void pwr(struct tally *t, struct plic *p, uint64_t off, uint64_t val)
{
	wr(t, &plic_ops, p, off, 4, val);
}

/* Enable `src` in `ctx` the way Linux's plic_toggle does: read-modify-write
 * of one 32-bit enable word. */
static void plic_enable(struct tally *t, struct plic *p, int ctx, int src)
{
	uint64_t off = P_ENABLE(ctx) + 4 * (src / 32);
	pwr(t, p, off, prd(t, p, off) | 1ULL << (src % 32));
}

static void test_plic_reset_is_quiet(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	plic_init(&p, &ps, &c);
	plic_set_irq(&p, 10, true);
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 1U << 10); /* the gateway sees it */
	CHECK_EQ(c.csr.mip, 0);			      /* priority 0, not enabled */
	CHECK_EQ(prd(t, &p, P_CLAIM(P_M)), 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0);
	pwr(t, &p, P_PRIO(10), 1);
	CHECK_EQ(c.csr.mip, 0); /* still not enabled */
	plic_enable(t, &p, P_S, 10);
	CHECK_EQ(c.csr.mip, SEIP);
	pwr(t, &p, P_PRIO(10), 0); /* priority 0 never interrupts */
	CHECK_EQ(c.csr.mip, 0);
}

static void test_plic_threshold_gates(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	plic_init(&p, &ps, &c);
	pwr(t, &p, P_PRIO(33), 3);
	plic_enable(t, &p, P_S, 33);
	CHECK_EQ(prd(t, &p, P_ENABLE(P_S) + 4), 1U << 1);
	plic_set_irq(&p, 33, true);
	CHECK_EQ(c.csr.mip, SEIP);
	pwr(t, &p, P_THRESH(P_S), 3); /* priority must exceed the threshold */
	CHECK_EQ(prd(t, &p, P_THRESH(P_S)), 3);
	CHECK_EQ(c.csr.mip, 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0);
	pwr(t, &p, P_THRESH(P_S), 2);
	CHECK_EQ(c.csr.mip, SEIP);
	pwr(t, &p, P_THRESH(P_S), 7); /* Linux's "disabled" threshold */
	CHECK_EQ(c.csr.mip, 0);
	pwr(t, &p, P_THRESH(P_S), 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 33);
	CHECK_EQ(c.csr.mip, 0); /* claimed: no longer pending */
}

static void test_plic_claim_order(struct tally *t)
{
	static const struct {
		int src, prio;
	} lines[] = {{40, 1}, {7, 5}, {3, 2}, {5, 5}, {95, 5}, {64, 2}};
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	plic_init(&p, &ps, &c);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		pwr(t, &p, P_PRIO(lines[i].src), lines[i].prio);
		plic_enable(t, &p, P_S, lines[i].src);
		plic_set_irq(&p, lines[i].src, true);
	}
	/* Highest priority first, then lowest id. */
	static const int order[] = {5, 7, 95, 3, 64, 40, 0};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		CHECK_EQ(!!(c.csr.mip & SEIP), order[i] != 0);
		CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), order[i]);
	}
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 0); /* all claimed */
	CHECK_EQ(prd(t, &p, P_PENDING(1)), 0);
	CHECK_EQ(prd(t, &p, P_PENDING(2)), 0);
}

static void test_plic_complete_rearms_level(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	plic_init(&p, &ps, &c);
	pwr(t, &p, P_PRIO(10), 1);
	plic_enable(t, &p, P_S, 10);
	plic_set_irq(&p, 10, true);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 10);
	CHECK_EQ(c.csr.mip, 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0); /* held until complete */
	pwr(t, &p, P_CLAIM(P_S), 10);	       /* complete, line still high */
	CHECK_EQ(c.csr.mip, SEIP);
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 1U << 10);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 10);
	plic_set_irq(&p, 10, false); /* the handler quietened the device */
	pwr(t, &p, P_CLAIM(P_S), 10);
	CHECK_EQ(c.csr.mip, 0);
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 0);
	plic_set_irq(&p, 10, true); /* a new request */
	CHECK_EQ(c.csr.mip, SEIP);
	plic_set_irq(&p, 10, false); /* withdrawn before the claim */
	CHECK_EQ(c.csr.mip, 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0);
}

static void test_plic_complete_ignores_strays(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	plic_init(&p, &ps, &c);
	pwr(t, &p, P_PRIO(4), 1);
	pwr(t, &p, P_PRIO(6), 1);
	plic_enable(t, &p, P_S, 4);
	plic_enable(t, &p, P_S, 6);
	plic_set_irq(&p, 4, true);
	plic_set_irq(&p, 6, true);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 4);
	pwr(t, &p, P_CLAIM(P_S), 0);	/* no such source */
	pwr(t, &p, P_CLAIM(P_S), 6);	/* pending, not claimed */
	pwr(t, &p, P_CLAIM(P_S), 1000); /* out of range */
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 1U << 6);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 6);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0); /* 4 is still claimed */
	/* Linux completes a disabled source after re-enabling it; a complete
	 * with the source disabled is accepted too rather than leaking it. */
	pwr(t, &p, P_ENABLE(P_S), 0);
	pwr(t, &p, P_CLAIM(P_S), 4);
	plic_enable(t, &p, P_S, 4);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 4);
}

static void test_plic_contexts_drive_meip_and_seip(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	plic_init(&p, &ps, &c);
	pwr(t, &p, P_PRIO(1), 1);
	pwr(t, &p, P_PRIO(2), 1);
	plic_enable(t, &p, P_M, 1);
	plic_enable(t, &p, P_S, 2);
	plic_set_irq(&p, 1, true);
	CHECK_EQ(c.csr.mip, MEIP);
	plic_set_irq(&p, 2, true);
	CHECK_EQ(c.csr.mip, MEIP | SEIP);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 2); /* each context sees its own */
	CHECK_EQ(c.csr.mip, MEIP);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_M)), 1);
	CHECK_EQ(c.csr.mip, 0);
	pwr(t, &p, P_CLAIM(P_M), 1);
	CHECK_EQ(c.csr.mip, MEIP);
	pwr(t, &p, P_THRESH(P_M), 1); /* thresholds are per context */
	CHECK_EQ(c.csr.mip, 0);
	pwr(t, &p, P_CLAIM(P_S), 2);
	CHECK_EQ(c.csr.mip, SEIP);
	/* A source enabled in both goes to whichever context claims first. */
	plic_enable(t, &p, P_S, 1);
	pwr(t, &p, P_THRESH(P_M), 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_M)), 1);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 2);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0);
	CHECK_EQ(c.csr.mip, 0);
}

static void test_plic_register_decoding(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	uint64_t v;
	plic_init(&p, &ps, &c);
	CHECK(!plic_ops.read(&p, P_PRIO(1), 8, &v)); /* 32-bit registers only */
	CHECK(!plic_ops.read(&p, P_PRIO(1), 1, &v));
	CHECK(!plic_ops.write(&p, P_PRIO(1) + 2, 4, 1));
	CHECK(!plic_ops.read(&p, PLIC_MMIO_SIZE, 4, &v));
	pwr(t, &p, P_PRIO(0), 5); /* source 0 does not exist */
	CHECK_EQ(prd(t, &p, P_PRIO(0)), 0);
	pwr(t, &p, P_PRIO(9), 0xff); /* 7 levels */
	CHECK_EQ(prd(t, &p, P_PRIO(9)), 7);
	pwr(t, &p, P_ENABLE(P_M), 0xffffffff); /* bit 0 is source 0 */
	CHECK_EQ(prd(t, &p, P_ENABLE(P_M)), 0xfffffffe);
	pwr(t, &p, P_PENDING(0), 0xffffffff); /* pending is read-only */
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 0);
	pwr(t, &p, P_ENABLE(2), 0xffffffff); /* contexts beyond 1: absent */
	CHECK_EQ(prd(t, &p, P_ENABLE(2)), 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(2)), 0);
	CHECK_EQ(prd(t, &p, P_ENABLE(P_S) + 12), 0); /* beyond source 95 */
	plic_set_irq(&p, 0, true);		     /* ignored lines */
	plic_set_irq(&p, PLIC_NSRC, true);
	plic_set_irq(&p, -1, true);
	CHECK_EQ(prd(t, &p, P_PENDING(0)), 0);
	CHECK_EQ(c.csr.mip, 0);
}

/* Copying the state struct is a complete snapshot: the copy and the
 * original go their own ways from the same state. */
static void test_plic_copy_is_snapshot(struct tally *t)
{
	struct cpu c = {0};
	struct plic p, q;
	struct plic_state ps, qs;
	plic_init(&p, &ps, &c);
	plic_init(&q, &qs, &c);
	pwr(t, &p, P_PRIO(8), 1);
	plic_enable(t, &p, P_S, 8);
	plic_set_irq(&p, 8, true);
	qs = ps; /* q is the same wiring over a copy of p's state */
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 8);
	CHECK_EQ(prd(t, &q, P_CLAIM(P_S)), 8);
	CHECK_EQ(prd(t, &q, P_CLAIM(P_S)), 0);
}

/* ---- UART ---------------------------------------------------------------- */

enum { U_RBR, U_IER, U_IIR, U_LCR, U_MCR, U_LSR, U_MSR, U_SCR };
#define U_FCR U_IIR
#define U_THR U_RBR

static uint64_t urd(struct tally *t, struct uart16550 *u, int reg)
{
	return rd(t, &uart16550_ops, u, (uint64_t)reg, 1);
}

static void uwr(struct tally *t, struct uart16550 *u, int reg, uint64_t val)
{
	wr(t, &uart16550_ops, u, (uint64_t)reg, 1, val);
}

/* A UART writing to a memory stream, its line going to `rec` source 1. */
struct uart_rig {
	struct uart16550 u;
	struct uart16550_state us;
	struct recorder rec;
	char *buf;
	size_t len;
	FILE *out;
};

static void rig_open(struct uart_rig *r)
{
	memset(r, 0, sizeof(*r));
	r->out = open_memstream(&r->buf, &r->len);
	if (!r->out) {
		perror("open_memstream");
		exit(2);
	}
	uart16550_init(&r->u, &r->us, r->out);
	uart16550_set_irq_line(&r->u, (struct irq_line){record_irq, &r->rec, 1});
}

static const char *rig_output(struct uart_rig *r)
{
	fflush(r->out);
	return r->buf;
}

static size_t rig_len(struct uart_rig *r)
{
	fflush(r->out);
	return r->len;
}

static void rig_close(struct uart_rig *r)
{
	fclose(r->out);
	free(r->buf);
}

static void test_uart_idle_for_polling(struct tally *t)
{
	struct uart_rig r;
	rig_open(&r);
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x60); /* what polling programs wait for */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0x01);
	CHECK_EQ(urd(t, &r.u, U_MSR), 0xb0); /* CTS, DSR, DCD up */
	CHECK_EQ(urd(t, &r.u, U_RBR), 0);
	uwr(t, &r.u, U_THR, 'o');
	uwr(t, &r.u, U_THR, 'k');
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x60);
	CHECK(strcmp(rig_output(&r), "ok") == 0);
	uwr(t, &r.u, U_SCR, 0x5a);
	CHECK_EQ(urd(t, &r.u, U_SCR), 0x5a);
	CHECK(!r.rec.level[1]);
	uint64_t v;
	CHECK(!uart16550_ops.read(&r.u, 0, 4, &v)); /* byte registers */
	CHECK(!uart16550_ops.write(&r.u, 8, 1, 0));
	rig_close(&r);
}

static void test_uart_dlab_bytes_not_printed(struct tally *t)
{
	struct uart_rig r;
	rig_open(&r);
	uwr(t, &r.u, U_IER, 0x00);
	uwr(t, &r.u, U_LCR, 0x80); /* DLAB: 0 and 1 are the divisor latch */
	uwr(t, &r.u, U_RBR, 0x0c);
	uwr(t, &r.u, U_IER, 0x01);
	CHECK_EQ(urd(t, &r.u, U_RBR), 0x0c);
	CHECK_EQ(urd(t, &r.u, U_IER), 0x01);
	uwr(t, &r.u, U_LCR, 0x03);	     /* 8N1 */
	CHECK_EQ(urd(t, &r.u, U_IER), 0x00); /* IER untouched by the latch */
	CHECK_EQ(urd(t, &r.u, U_LCR), 0x03);
	uwr(t, &r.u, U_THR, 'A');
	CHECK_EQ(rig_len(&r), 1);
	CHECK(strcmp(rig_output(&r), "A") == 0);
	uwr(t, &r.u, U_LCR, 0x83);
	CHECK_EQ(urd(t, &r.u, U_RBR), 0x0c); /* the latch kept its value */
	CHECK_EQ(urd(t, &r.u, U_IER), 0x01);
	rig_close(&r);
}

static void test_uart_thre_interrupt_lifecycle(struct tally *t)
{
	struct uart_rig r;
	rig_open(&r);
	uwr(t, &r.u, U_FCR, 0x07);
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc1); /* FIFOs enabled, nothing pending */
	uwr(t, &r.u, U_IER, 0x02);	     /* THRI rising edge: THR is empty */
	CHECK(r.rec.level[1]);
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc2);
	CHECK(!r.rec.level[1]); /* reading IIR that reports it clears it */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc1);
	uwr(t, &r.u, U_IER, 0x03); /* THRI already set: no new edge */
	CHECK(!r.rec.level[1]);
	uwr(t, &r.u, U_THR, 'x'); /* the byte leaves at once: empty again */
	CHECK(r.rec.level[1]);
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x60);
	uwr(t, &r.u, U_IER, 0x01); /* THRI off drops it */
	CHECK(!r.rec.level[1]);
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc1);
	/* Linux's UART_BUG_THRE probe: THRI 0 -> 1 must re-assert. */
	uwr(t, &r.u, U_IER, 0x02);
	uint64_t iir1 = urd(t, &r.u, U_IIR);
	uwr(t, &r.u, U_IER, 0x00);
	uwr(t, &r.u, U_IER, 0x02);
	uint64_t iir2 = urd(t, &r.u, U_IIR);
	uwr(t, &r.u, U_IER, 0x00);
	CHECK_EQ(iir1 & 0x0f, 0x02);
	CHECK_EQ(iir2 & 0x0f, 0x02);
	CHECK(!r.rec.level[1]);
	CHECK(strcmp(rig_output(&r), "x") == 0);
	rig_close(&r);
}

static void test_uart_rx_fifo_and_rdi(struct tally *t)
{
	struct uart_rig r;
	rig_open(&r);
	uint8_t in[20];
	for (int i = 0; i < 20; i++)
		in[i] = (uint8_t)('a' + i);
	CHECK_EQ(uart16550_push_input(&r.u, in, 20), 1); /* FIFOs off: RBR only */
	uwr(t, &r.u, U_FCR, 0x01);			 /* enabling resets them */
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x60);
	CHECK_EQ(uart16550_push_input(&r.u, in, 20), 16);
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x61);
	CHECK(!r.rec.level[1]); /* RDI not enabled */
	uwr(t, &r.u, U_IER, 0x01);
	CHECK(r.rec.level[1]);
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc4);
	CHECK(r.rec.level[1]); /* IIR does not clear RDI: data still waits */
	for (int i = 0; i < 15; i++)
		CHECK_EQ(urd(t, &r.u, U_RBR), in[i]);
	CHECK(r.rec.level[1]);
	CHECK_EQ(uart16550_push_input(&r.u, in + 16, 4), 4); /* wraps the ring */
	for (int i = 15; i < 20; i++)
		CHECK_EQ(urd(t, &r.u, U_RBR), in[i]);
	CHECK(!r.rec.level[1]);
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x60);
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc1);
	uart16550_push_input(&r.u, in, 3);
	uwr(t, &r.u, U_FCR, 0x03); /* clear the receive FIFO */
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x60);
	CHECK(!r.rec.level[1]);
	CHECK_EQ(rig_len(&r), 0);
	rig_close(&r);
}

static void test_uart_iir_priority(struct tally *t)
{
	struct uart_rig r;
	rig_open(&r);
	uwr(t, &r.u, U_FCR, 0x01);
	uart16550_push_input(&r.u, (const uint8_t *)"z", 1);
	uwr(t, &r.u, U_IER, 0x03);	     /* RDI and THRI */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc4); /* received data outranks THRE */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc4); /* and THRE stays armed */
	CHECK_EQ(urd(t, &r.u, U_RBR), 'z');
	CHECK(r.rec.level[1]);
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc2);
	CHECK(!r.rec.level[1]);
	rig_close(&r);
}

static void test_uart_loopback_and_modem_status(struct tally *t)
{
	struct uart_rig r;
	rig_open(&r);
	uwr(t, &r.u, U_FCR, 0x01);
	uwr(t, &r.u, U_IER, 0x0d); /* RDI, RLSI, MSI */
	uwr(t, &r.u, U_MCR, 0x1a); /* LOOP | OUT2 | RTS: the 8250 probe */
	CHECK_EQ(urd(t, &r.u, U_MCR), 0x1a);
	CHECK(r.rec.level[1]); /* DSR fell: a modem-status change */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc0);
	CHECK_EQ(urd(t, &r.u, U_MSR), 0x92); /* CTS|DCD, delta DSR */
	CHECK_EQ(urd(t, &r.u, U_MSR) & 0xf0, 0x90);
	CHECK(!r.rec.level[1]);
	CHECK_EQ(uart16550_push_input(&r.u, (const uint8_t *)"q", 1), 0); /* input cut off */
	for (int i = 0; i < 17; i++) /* one more than the FIFO holds */
		uwr(t, &r.u, U_THR, (uint64_t)'0' + i % 10);
	CHECK_EQ(rig_len(&r), 0);	     /* looped back, not printed */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc6); /* overrun outranks data */
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x63);
	CHECK_EQ(urd(t, &r.u, U_LSR), 0x61); /* OE clears on read */
	CHECK_EQ(urd(t, &r.u, U_IIR), 0xc4);
	CHECK_EQ(urd(t, &r.u, U_RBR), '0');
	uwr(t, &r.u, U_MCR, 0x00);	     /* back to the console: inputs all up */
	CHECK_EQ(urd(t, &r.u, U_MSR), 0xb2); /* DSR rose again */
	uwr(t, &r.u, U_THR, '!');
	CHECK(strcmp(rig_output(&r), "!") == 0);
	rig_close(&r);
}

/* ---- Goldfish RTC -------------------------------------------------------- */

#define R_TIME_LOW   0x00
#define R_TIME_HIGH  0x04
#define R_ALARM_LOW  0x08
#define R_ALARM_HIGH 0x0c
#define R_IRQ_EN     0x10
#define R_CLR_ALARM  0x14
#define R_STATUS     0x18
#define R_CLR_IRQ    0x1c

/* The board's clock as the RTC sees it: the tests move it by hand. */
struct fake_clock {
	uint64_t ns;
};

static uint64_t fake_now(void *opaque)
{
	return ((struct fake_clock *)opaque)->ns;
}

static uint64_t rrd(struct tally *t, struct goldfish_rtc *rtc, uint64_t off)
{
	return rd(t, &goldfish_rtc_ops, rtc, off, 4);
}

static void rwr(struct tally *t, struct goldfish_rtc *rtc, uint64_t off, uint64_t val)
{
	wr(t, &goldfish_rtc_ops, rtc, off, 4, val);
}

/* rtc-goldfish's read_time: TIME_LOW then TIME_HIGH. */
static uint64_t rtc_time(struct tally *t, struct goldfish_rtc *rtc)
{
	uint64_t lo = rrd(t, rtc, R_TIME_LOW);
	return rrd(t, rtc, R_TIME_HIGH) << 32 | lo;
}

static void test_rtc_time_low_latches_high(struct tally *t)
{
	struct fake_clock clk = {0x00000001fffffff0ULL};
	struct recorder rec = {0};
	struct goldfish_rtc rtc;
	struct goldfish_rtc_state rs;
	goldfish_rtc_init(&rtc, &rs, fake_now, &clk, (struct irq_line){record_irq, &rec, 2});
	CHECK_EQ(rrd(t, &rtc, R_TIME_LOW), 0xfffffff0);
	clk.ns += 0x20; /* the low half wraps between the two reads */
	CHECK_EQ(rrd(t, &rtc, R_TIME_HIGH), 1);
	CHECK_EQ(rrd(t, &rtc, R_TIME_HIGH), 1);
	CHECK_EQ(rtc_time(t, &rtc), 0x0000000200000010ULL);
	uint64_t v;
	CHECK(!goldfish_rtc_ops.read(&rtc, R_TIME_LOW, 8, &v)); /* 32-bit registers */
	CHECK(!goldfish_rtc_ops.write(&rtc, 2, 4, 0));
	CHECK(!rec.level[2]);
}

static void test_rtc_set_time_moves_offset(struct tally *t)
{
	struct fake_clock clk = {1000};
	struct goldfish_rtc rtc;
	struct goldfish_rtc_state rs;
	goldfish_rtc_init(&rtc, &rs, fake_now, &clk, (struct irq_line){0});
	uint64_t want = 1700000000ULL * 1000000000ULL; /* rtc-goldfish's set_time */
	rwr(t, &rtc, R_TIME_HIGH, want >> 32);
	rwr(t, &rtc, R_TIME_LOW, (uint32_t)want);
	CHECK_EQ(rtc_time(t, &rtc), want);
	clk.ns += 5000; /* it keeps ticking with the board's clock */
	CHECK_EQ(rtc_time(t, &rtc), want + 5000);
	CHECK_EQ(rs.offset, want - 1000);
	CHECK_EQ(rtc_time(t, &rtc) / 1000000000ULL, 1700000000ULL);
	struct goldfish_rtc_state copied = rs; /* the offset is all a snapshot needs */
	struct goldfish_rtc copy = rtc;
	copy.s = &copied;
	CHECK_EQ(rtc_time(t, &copy), want + 5000);
}

static void test_rtc_alarm_fires_on_time(struct tally *t)
{
	struct fake_clock clk = {5ULL << 32};
	struct recorder rec = {0};
	struct goldfish_rtc rtc;
	struct goldfish_rtc_state rs;
	goldfish_rtc_init(&rtc, &rs, fake_now, &clk, (struct irq_line){record_irq, &rec, 2});
	CHECK_EQ(goldfish_rtc_ns_to_alarm(&rtc), UINT64_MAX);
	uint64_t at = clk.ns + 0x180000000ULL; /* crosses a high-half boundary */
	rwr(t, &rtc, R_ALARM_HIGH, at >> 32);
	CHECK_EQ(rrd(t, &rtc, R_STATUS), 0); /* HIGH alone does not arm */
	rwr(t, &rtc, R_ALARM_LOW, (uint32_t)at);
	rwr(t, &rtc, R_IRQ_EN, 1);
	CHECK_EQ(rrd(t, &rtc, R_STATUS), 1);
	CHECK_EQ(rrd(t, &rtc, R_IRQ_EN), 1);
	CHECK_EQ(rrd(t, &rtc, R_ALARM_HIGH) << 32 | rrd(t, &rtc, R_ALARM_LOW), at);
	CHECK_EQ(goldfish_rtc_ns_to_alarm(&rtc), 0x180000000ULL);
	clk.ns = at - 1;
	goldfish_rtc_update(&rtc);
	CHECK(!rec.level[2]);
	CHECK_EQ(goldfish_rtc_ns_to_alarm(&rtc), 1);
	clk.ns = at;
	goldfish_rtc_update(&rtc);
	CHECK(rec.level[2]);
	CHECK_EQ(rrd(t, &rtc, R_STATUS), 0); /* fired: no longer armed */
	CHECK_EQ(goldfish_rtc_ns_to_alarm(&rtc), UINT64_MAX);
	rwr(t, &rtc, R_CLR_IRQ, 1); /* the driver's interrupt handler */
	CHECK(!rec.level[2]);
	clk.ns += 1000000;
	goldfish_rtc_update(&rtc);
	CHECK(!rec.level[2]); /* fires once */
}

static void test_rtc_alarm_enable_and_clear(struct tally *t)
{
	struct fake_clock clk = {1000000};
	struct recorder rec = {0};
	struct goldfish_rtc rtc;
	struct goldfish_rtc_state rs;
	goldfish_rtc_init(&rtc, &rs, fake_now, &clk, (struct irq_line){record_irq, &rec, 2});
	rwr(t, &rtc, R_ALARM_HIGH, 0);
	rwr(t, &rtc, R_ALARM_LOW, 999999); /* already past: fires at once */
	CHECK_EQ(rrd(t, &rtc, R_STATUS), 0);
	CHECK(!rec.level[2]); /* but the interrupt is not enabled */
	rwr(t, &rtc, R_IRQ_EN, 1);
	CHECK(rec.level[2]);
	rwr(t, &rtc, R_IRQ_EN, 0);
	CHECK(!rec.level[2]);
	rwr(t, &rtc, R_CLR_IRQ, 1);
	rwr(t, &rtc, R_IRQ_EN, 1);
	CHECK(!rec.level[2]);
	rwr(t, &rtc, R_ALARM_LOW, 2000000);
	CHECK_EQ(rrd(t, &rtc, R_STATUS), 1);
	rwr(t, &rtc, R_CLR_ALARM, 1); /* rtc-goldfish's set_alarm(disabled) */
	CHECK_EQ(rrd(t, &rtc, R_STATUS), 0);
	clk.ns = 3000000;
	goldfish_rtc_update(&rtc);
	CHECK(!rec.level[2]);
	/* The alarm is in guest time: setting the clock forward makes it due. */
	rwr(t, &rtc, R_ALARM_LOW, 5000000);
	rwr(t, &rtc, R_TIME_LOW, 5000000);
	CHECK(rec.level[2]);
}

/* ---- Test finisher / syscon --------------------------------------------- */

struct finish_count {
	int calls;
};

static void count_finish(void *opaque)
{
	((struct finish_count *)opaque)->calls++;
}

static void test_finisher_codes(struct tally *t)
{
	struct finish_count n = {0};
	struct sifive_test d;
	struct sifive_test_state ds;
	sifive_test_init(&d, &ds, count_finish, &n);
	CHECK_EQ(rd(t, &sifive_test_ops, &d, 0, 4), 0);
	wr(t, &sifive_test_ops, &d, 0, 4, 0x1234); /* not a request */
	wr(t, &sifive_test_ops, &d, 0, 2, 0x5555); /* too narrow */
	wr(t, &sifive_test_ops, &d, 4, 4, 0x5555); /* wrong offset */
	CHECK_EQ(n.calls, 0);
	CHECK(!ds.finished);
	CHECK_EQ(ds.kind, SIFIVE_TEST_NONE);

	wr(t, &sifive_test_ops, &d, 0, 4, 0x5555); /* syscon-poweroff */
	CHECK_EQ(n.calls, 1);
	CHECK(ds.finished);
	CHECK_EQ(ds.kind, SIFIVE_TEST_PASS);
	CHECK_EQ(ds.code, 0);

	sifive_test_init(&d, &ds, count_finish, &n);
	wr(t, &sifive_test_ops, &d, 0, 4, 0x7777); /* syscon-reboot */
	CHECK_EQ(n.calls, 2);
	CHECK_EQ(ds.kind, SIFIVE_TEST_RESET);
	CHECK_EQ(ds.code, 0);

	sifive_test_init(&d, &ds, count_finish, &n);
	wr(t, &sifive_test_ops, &d, 0, 4, 42 << 16 | 0x3333);
	CHECK_EQ(n.calls, 3);
	CHECK_EQ(ds.kind, SIFIVE_TEST_FAIL);
	CHECK_EQ(ds.code, 42);
	wr(t, &sifive_test_ops, &d, 0, 8, 0x3333); /* fail without a code */
	CHECK_EQ(ds.kind, SIFIVE_TEST_FAIL);
	CHECK_EQ(ds.code, 1);

	struct sifive_test bare;
	struct sifive_test_state bs;
	sifive_test_init(&bare, &bs, NULL, NULL); /* no callback: just records */
	wr(t, &sifive_test_ops, &bare, 0, 4, 0x5555);
	CHECK(bs.finished);
}

/* ---- Wiring: devices through the PLIC to the hart ----------------------- */

/* Linux's view: UART on source 10 and RTC on 11 (QEMU virt's numbers),
 * context 1, threshold 0, priority 1; handle by claim, service, complete. */
static void test_wiring_devices_to_seip(struct tally *t)
{
	struct cpu c = {0};
	struct plic p;
	struct plic_state ps;
	struct uart16550 u;
	struct uart16550_state us;
	struct goldfish_rtc rtc;
	struct goldfish_rtc_state rs;
	struct fake_clock clk = {0};
	plic_init(&p, &ps, &c);
	uart16550_init(&u, &us, NULL);
	uart16550_set_irq_line(&u, plic_line(&p, 10));
	goldfish_rtc_init(&rtc, &rs, fake_now, &clk, plic_line(&p, 11));
	for (int src = 10; src <= 11; src++) {
		pwr(t, &p, P_PRIO(src), 1);
		plic_enable(t, &p, P_S, src);
	}
	pwr(t, &p, P_THRESH(P_S), 0);
	pwr(t, &p, P_THRESH(P_M), 7);

	rwr(t, &rtc, R_ALARM_LOW, 100);
	rwr(t, &rtc, R_IRQ_EN, 1);
	wr(t, &uart16550_ops, &u, U_FCR, 1, 0x01);
	wr(t, &uart16550_ops, &u, U_IER, 1, 0x01);
	CHECK_EQ(c.csr.mip, 0);
	CHECK_EQ(uart16550_push_input(&u, (const uint8_t *)"hi", 2), 2);
	clk.ns = 100;
	goldfish_rtc_update(&rtc);
	CHECK_EQ(c.csr.mip, SEIP);

	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 10);
	CHECK_EQ(rd(t, &uart16550_ops, &u, U_RBR, 1), 'h');
	pwr(t, &p, P_CLAIM(P_S), 10); /* still data: the UART asks again */
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 10);
	CHECK_EQ(rd(t, &uart16550_ops, &u, U_RBR, 1), 'i');
	pwr(t, &p, P_CLAIM(P_S), 10);
	CHECK_EQ(c.csr.mip, SEIP); /* the RTC still waits */
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 11);
	rwr(t, &rtc, R_CLR_IRQ, 1);
	pwr(t, &p, P_CLAIM(P_S), 11);
	CHECK_EQ(c.csr.mip, 0);
	CHECK_EQ(prd(t, &p, P_CLAIM(P_S)), 0);
}

/* ---- The board's one device list ----------------------------------------- */

/* virt_parts, which the hash and snapshots walk, takes every byte of
 * struct virt_devs but padding, in the order of its fields: a state in
 * VIRT_DEVICES that virt_devices[] left out, or listed out of order, fails
 * here (their count is a _Static_assert in virt.c). */
static void test_board_parts(struct tally *t)
{
	struct virt v = {.ndisks = VIRT_MAX_DISKS};
	struct virt_part parts[VIRT_MAX_PARTS];
	int n = virt_parts(&v, parts);
	CHECK_EQ(n >= 2, 1);
	size_t at = 0, covered = 0;
	for (int i = 0; i < n; i++) {
		CHECK_EQ(parts[i].offset >= at, 1);    /* in field order */
		CHECK_EQ(parts[i].offset - at < 8, 1); /* only padding between */
		CHECK_EQ(parts[i].size > 0 && parts[i].name[0] != 0, 1);
		at = parts[i].offset + parts[i].size;
		covered += parts[i].size;
	}
	CHECK_EQ(at, sizeof(struct virt_devs));
	CHECK_EQ(sizeof(struct virt_devs) - covered < 8 * (size_t)n, 1);
}

/* ---- Runner -------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*fn)(struct tally *t);
} tests[] = {
    {"plic_reset_is_quiet", test_plic_reset_is_quiet},
    {"plic_threshold_gates", test_plic_threshold_gates},
    {"plic_claim_order", test_plic_claim_order},
    {"plic_complete_rearms_level", test_plic_complete_rearms_level},
    {"plic_complete_ignores_strays", test_plic_complete_ignores_strays},
    {"plic_contexts_drive_meip_and_seip", test_plic_contexts_drive_meip_and_seip},
    {"plic_register_decoding", test_plic_register_decoding},
    {"plic_copy_is_snapshot", test_plic_copy_is_snapshot},
    {"uart_idle_for_polling", test_uart_idle_for_polling},
    {"uart_dlab_bytes_not_printed", test_uart_dlab_bytes_not_printed},
    {"uart_thre_interrupt_lifecycle", test_uart_thre_interrupt_lifecycle},
    {"uart_rx_fifo_and_rdi", test_uart_rx_fifo_and_rdi},
    {"uart_iir_priority", test_uart_iir_priority},
    {"uart_loopback_and_modem_status", test_uart_loopback_and_modem_status},
    {"rtc_time_low_latches_high", test_rtc_time_low_latches_high},
    {"rtc_set_time_moves_offset", test_rtc_set_time_moves_offset},
    {"rtc_alarm_fires_on_time", test_rtc_alarm_fires_on_time},
    {"rtc_alarm_enable_and_clear", test_rtc_alarm_enable_and_clear},
    {"finisher_codes", test_finisher_codes},
    {"wiring_devices_to_seip", test_wiring_devices_to_seip},
    {"board_parts", test_board_parts},
};

static bool selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct tally t = {0};
	int ran = 0, failed = 0;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!selected(argc, argv, tests[i].name))
			continue;
		int before = t.failed;
		tests[i].fn(&t);
		ran++;
		if (t.failed != before) {
			failed++;
			fprintf(stderr, "FAIL %s\n", tests[i].name);
		}
	}
	printf("test_devices: %d tests, %d checks, %d tests failed\n", ran, t.checks, failed);
	return failed || ran == 0 ? 1 : 0;
}
