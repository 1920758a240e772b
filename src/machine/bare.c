/* bare.c - see bare.h. The bus callbacks route the hart's physical
 * accesses: plain RAM pages are handed out for the TLB to cache, except the
 * page holding `tohost`, whose writes are watched here so a test's verdict is
 * seen the moment it is stored. The run loop slices execution at timer
 * deadlines, so MTIP rises at exactly the same instruction on every run. */
#include <string.h>

#include "bare.h"
#include "elf.h"

#define BARE_FINISHER_BASE 0x100000ULL
#define BARE_CLINT_BASE	   0x2000000ULL
#define BARE_UART_BASE	   0x10000000ULL
#define BARE_SLICE	   (1ULL << 20)

#define HTIF_DEV_CONSOLE 1ULL
#define HTIF_CMD_PUTC	 1ULL

static bool on_tohost_page(const struct bare *m, uint64_t pa)
{
	return m->has_tohost && (pa >> 12) == (m->tohost >> 12);
}

static uint8_t *bus_ram(void *opaque, uint64_t pa, bool write)
{
	struct bare *m = opaque;
	if (write)
		return on_tohost_page(m, pa) ? NULL : ram_page_w(&m->ram, pa);
	return (uint8_t *)ram_page(&m->ram, pa);
}

static bool bus_load(void *opaque, uint64_t pa, int size, uint64_t *val)
{
	struct bare *m = opaque;
	uint64_t v = 0;
	if (ram_read(&m->ram, pa, &v, size)) {
		*val = v;
		return true;
	}
	return mmio_read(&m->bus, pa, size, val);
}

static void stop_with(struct bare *m, enum bare_stop why, int code)
{
	m->stopped = true;
	m->stop = why;
	m->code = code;
	cpu_stop(&m->cpu);
}

/* A store reached the tohost word: a verdict or an HTIF console byte. */
static void tohost_written(struct bare *m)
{
	uint64_t v = 0;
	ram_read(&m->ram, m->tohost, &v, 8);
	if (v == 0)
		return;
	if (v >> 48 == (HTIF_DEV_CONSOLE << 8 | HTIF_CMD_PUTC)) {
		fputc((int)(v & 0xff), m->uart.out);
	} else if (v & 1) {
		uint64_t test = v >> 1;
		stop_with(m, test ? BARE_FAIL : BARE_PASS, test > 255 ? 255 : (int)test);
	}
	uint64_t zero = 0;
	ram_write(&m->ram, m->tohost, &zero, 8);
}

static bool bus_store(void *opaque, uint64_t pa, int size, uint64_t val)
{
	struct bare *m = opaque;
	if (ram_write(&m->ram, pa, &val, size)) {
		if (on_tohost_page(m, pa) && pa < m->tohost + 8 && pa + size > m->tohost)
			tohost_written(m);
		return true;
	}
	cpu_stop(&m->cpu); /* a device store may move the slice's end (mtimecmp) */
	return mmio_write(&m->bus, pa, size, val);
}

static void finisher_done(void *opaque)
{
	struct bare *m = opaque;
	int code = m->dev.finisher.code;
	stop_with(m, code ? BARE_FAIL : BARE_PASS, code > 255 ? 255 : code);
}

int bare_init_blank(struct bare *m, uint64_t mem, FILE *console, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	int rc = ram_init(&m->ram, BARE_RAM_BASE, mem);
	if (rc) {
		snprintf(err, errlen, "cannot allocate %llu bytes of RAM: %s",
			 (unsigned long long)mem, strerror(-rc));
		return -1;
	}
	struct cpu_bus bus = {.opaque = m,
			      .ram = bus_ram,
			      .zero_page = ram_zero_page,
			      .load = bus_load,
			      .store = bus_store};
	if (cpu_init(&m->cpu, &bus, BARE_RAM_BASE)) {
		snprintf(err, errlen, "out of memory for the hart");
		ram_free(&m->ram);
		return -1;
	}
	m->ram.homed = cpu_ram_homed, m->ram.homed_opaque = &m->cpu;
	uart16550_init(&m->uart, &m->dev.uart, console);
	clint_init(&m->clint, &m->dev.clint, &m->cpu);
	sifive_test_init(&m->finisher, &m->dev.finisher, finisher_done, m);
	mmio_add(&m->bus, BARE_FINISHER_BASE, 0x1000, &sifive_test_ops, &m->finisher);
	mmio_add(&m->bus, BARE_CLINT_BASE, 0x10000, &clint_ops, &m->clint);
	mmio_add(&m->bus, BARE_UART_BASE, 0x100, &uart16550_ops, &m->uart);
	return 0;
}

int bare_init(struct bare *m, uint64_t mem, const char *elf, FILE *console, char *err,
	      size_t errlen)
{
	if (bare_init_blank(m, mem, console, err, errlen))
		return -1;
	struct elf_image img;
	if (elf_load(elf, &m->ram, &img, err, errlen)) {
		bare_free(m);
		return -1;
	}
	m->has_tohost = img.has_tohost;
	m->tohost = img.tohost;
	m->cpu.pc = img.entry;
	return 0;
}

void bare_free(struct bare *m)
{
	cpu_free(&m->cpu);
	ram_free(&m->ram);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

enum bare_stop bare_run(struct bare *m, uint64_t max_insns)
{
	struct cpu *c = &m->cpu;
	while (!m->stopped) {
		clint_update(&m->clint);
		uint64_t left =
		    max_insns ? max_insns - min_u64(cpu_steps(c), max_insns) : UINT64_MAX;
		if (left == 0) {
			stop_with(m, BARE_BUDGET, 0);
			break;
		}
		uint64_t deadline = clint_ticks_to_deadline(&m->clint);
		if (c->wfi && !(c->csr.mip & c->csr.mie)) {
			bool timer_wakes =
			    (c->csr.mie & (1ULL << IRQ_MTI)) && deadline != UINT64_MAX;
			if (!timer_wakes) {
				stop_with(m, BARE_DEADLOCK, 0);
				break;
			}
			c->time_skip += deadline; /* sleep until the timer fires */
			continue;
		}
		uint64_t slice =
		    min_u64(min_u64(left, BARE_SLICE), deadline ? deadline : BARE_SLICE);
		cpu_run(c, slice);
	}
	return m->stop;
}
