/* virt.c - see virt.h: the board and its run loop. The bus (how the hart
 * and the devices reach RAM and each other), the device list the board is
 * built from, the boot (kernel, initrd, device tree, hart state as after
 * firmware), and the run loop, which slices execution at the next timer or
 * alarm deadline so every interrupt arrives at the same instruction on
 * every run. The link to the guest agent is in virt_agent.c, the fork in
 * virt_fork.c, the hashes in virt_hash.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../proto/doorbell.h"
#include "../util/rng.h"
#include "fdt.h"
#include "image.h"
#include "sbi.h"
#include "virt_internal.h"
#include "virt_sample.h"

#define VIRT_SLICE	  (1ULL << 20)
#define VIRT_FDT_MAX	  (64u << 10)
#define VIRT_NS_PER_TICK  (1000000000ULL / VIRT_TIMEBASE_HZ)
#define VIRT_PANIC_GRACE  20000000ULL /* instructions to let a panic finish printing */
#define VIRT_RNG_SEED_LEN 64

/* Exceptions the S-mode kernel handles itself: all but ecall from S (the
 * SBI) and from M. Without M-mode software every other trap must land in S. */
#define VIRT_MEDELEG 0xb1ffULL
#define VIRT_MIDELEG ((1ULL << IRQ_SSI) | (1ULL << IRQ_STI) | (1ULL << IRQ_SEI))

void virt_stop_with(struct virt *v, enum virt_stop why, const char *detail)
{
	if (v->stop != VIRT_RUNNING)
		return;
	v->stop = why;
	snprintf(v->stop_detail, sizeof(v->stop_detail), "%s", detail ? detail : "");
	cpu_stop(&v->cpu);
}

const char *virt_stop_name(enum virt_stop stop)
{
	static const char *const names[] = {
#define VIRT_STOP_TEXT(name, text) [VIRT_##name] = text,
	    VIRT_STOPS(VIRT_STOP_TEXT)
#undef VIRT_STOP_TEXT
	};
	return (unsigned)stop < sizeof(names) / sizeof(names[0]) ? names[stop] : "?";
}

/* ---- the bus ---- */

static uint8_t *bus_ram(void *opaque, uint64_t pa, bool write)
{
	struct virt *v = opaque;
	return write ? ram_page_w(&v->ram, pa) : (uint8_t *)ram_page(&v->ram, pa);
}

static bool bus_load(void *opaque, uint64_t pa, int size, uint64_t *val)
{
	struct virt *v = opaque;
	return mmio_read(&v->bus, pa, size, val);
}

/* A store to a device ends the run: it may have moved what bounds the
 * slice (the RTC's alarm) or raised what the next run must see. */
static bool bus_store(void *opaque, uint64_t pa, int size, uint64_t val)
{
	struct virt *v = opaque;
	cpu_stop(&v->cpu);
	return mmio_write(&v->bus, pa, size, val);
}

static bool dma_ram_read(void *opaque, uint64_t pa, void *buf, uint64_t len)
{
	struct virt *v = opaque;
	return ram_read(&v->ram, pa, buf, len);
}

bool virt_dma_write(void *opaque, uint64_t pa, const void *buf, uint64_t len)
{
	struct virt *v = opaque;
	const uint8_t *in = buf;
	if (!ram_contains(&v->ram, pa, len))
		return false;
	while (len) {
		uint64_t off = pa % RAM_PAGE_SIZE, n = RAM_PAGE_SIZE - off;
		if (n > len)
			n = len;
		uint8_t *page = ram_page_w(&v->ram, pa);
		if (!page)
			return false;
		memcpy(page + off, in, n);
		cpu_ram_written(&v->cpu, page + off, n);
		in += n, pa += n, len -= n;
	}
	return true;
}

static void bus_m_trap(void *opaque, uint64_t mcause, uint64_t tval)
{
	struct virt *v = opaque;
	char detail[VIRT_LINE_MAX];
	snprintf(detail, sizeof(detail), "trap into M-mode: mcause 0x%llx, mtval 0x%llx, pc 0x%llx",
		 (unsigned long long)mcause, (unsigned long long)tval,
		 (unsigned long long)v->cpu.pc);
	virt_stop_with(v, VIRT_MTRAP, detail);
}

/* ---- the SBI's effects ---- */

static void update_timer(struct virt *v)
{
	bool due = cpu_time(&v->cpu) >= v->dev.timer_deadline;
	if (due != !!(v->cpu.csr.mip & (1ULL << IRQ_STI)))
		cpu_set_irq(&v->cpu, 1ULL << IRQ_STI, due);
}

static void sbi_set_timer(void *opaque, uint64_t deadline)
{
	struct virt *v = opaque;
	v->dev.timer_deadline = deadline;
	update_timer(v);
	cpu_stop(&v->cpu); /* the run's slice was cut for the old deadline */
}

static void sbi_putchar(void *opaque, int ch)
{
	struct virt *v = opaque;
	fputc(ch, v->console);
}

static void sbi_reset(void *opaque, enum sbi_reset type, uint32_t reason)
{
	struct virt *v = opaque;
	char detail[64];
	snprintf(detail, sizeof(detail), "SBI system reset, reason %u", reason);
	virt_stop_with(v, type == SBI_RESET_SHUTDOWN ? VIRT_POWEROFF : VIRT_REBOOT, detail);
}

static bool bus_sbi(void *opaque, struct cpu *c)
{
	struct virt *v = opaque;
	const struct sbi_board b = {v, sbi_set_timer, sbi_putchar, sbi_reset};
	return sbi_call(&b, c);
}

static void test_finished(void *opaque)
{
	struct virt *v = opaque;
	if (v->dev.test.kind == SIFIVE_TEST_RESET)
		virt_stop_with(v, VIRT_REBOOT, "syscon reboot");
	else if (v->dev.test.kind == SIFIVE_TEST_FAIL)
		virt_stop_with(v, VIRT_POWEROFF, "syscon power-off with a failure code");
	else
		virt_stop_with(v, VIRT_POWEROFF, "syscon power-off");
}

static uint64_t rtc_now_ns(void *opaque)
{
	struct virt *v = opaque;
	return v->clock_base_ns + cpu_time(&v->cpu) * VIRT_NS_PER_TICK;
}

/* ---- the console: a stream that tees into the lines kept for reports ---- */

static void console_line_done(struct virt *v)
{
	v->line[v->line_len] = 0;
	memcpy(v->lines[v->nlines % VIRT_CONSOLE_KEEP], v->line, v->line_len + 1);
	v->nlines++;
	if (!v->dev.panic_at && strstr(v->line, "Kernel panic - not syncing"))
		v->dev.panic_at = cpu_steps(&v->cpu) + 1;
	splat_line(&v->splat, v->line);
	v->line_len = 0;
}

static ssize_t console_write(void *cookie, const char *buf, size_t n)
{
	struct virt *v = cookie;
	if (v->console_out)
		fwrite(buf, 1, n, v->console_out);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			console_line_done(v);
		else if (buf[i] != '\r' && v->line_len < VIRT_LINE_MAX - 1)
			v->line[v->line_len++] = buf[i];
	}
	return (ssize_t)n;
}

void virt_print_last_lines(const struct virt *v, FILE *out, unsigned n)
{
	unsigned have = v->nlines < VIRT_CONSOLE_KEEP ? v->nlines : VIRT_CONSOLE_KEEP;
	if (n > have)
		n = have;
	for (unsigned i = v->nlines - n; i < v->nlines; i++)
		fprintf(out, "  | %s\n", v->lines[i % VIRT_CONSOLE_KEEP]);
	if (v->line_len)
		fprintf(out, "  | %.*s\n", (int)v->line_len, v->line);
}

bool virt_console_has(const struct virt *v, const char *needle)
{
	unsigned have = v->nlines < VIRT_CONSOLE_KEEP ? v->nlines : VIRT_CONSOLE_KEEP;
	for (unsigned i = v->nlines - have; i < v->nlines; i++)
		if (strstr(v->lines[i % VIRT_CONSOLE_KEEP], needle))
			return true;
	return v->line_len && memmem(v->line, v->line_len, needle, strlen(needle));
}

/* ---- building the board ---- */

/* What the board hands a device's glue. */
struct virt_attach {
	const struct virt_config *cfg;
	int i;		     /* the instance: slot i holds disk i */
	void *state;	     /* the instance's state, which the device's init resets */
	struct irq_line irq; /* its PLIC source (unconnected if it has none) */
	char *err;
	size_t errlen;
};

/* Each device's glue: wire it to the board and return what its mmio ops
 * take; NULL with a.err. */

static void *attach_test(struct virt *v, const struct virt_attach *a)
{
	sifive_test_init(&v->wire.test, a->state, test_finished, v);
	return &v->wire.test;
}

static void *attach_rtc(struct virt *v, const struct virt_attach *a)
{
	goldfish_rtc_init(&v->wire.rtc, a->state, rtc_now_ns, v, a->irq);
	return &v->wire.rtc;
}

static void *attach_uart(struct virt *v, const struct virt_attach *a)
{
	uart16550_init(&v->wire.uart, a->state, v->console);
	uart16550_set_irq_line(&v->wire.uart, a->irq);
	return &v->wire.uart;
}

static void *attach_blk(struct virt *v, const struct virt_attach *a)
{
	const struct dma dma = {v, dma_ram_read, virt_dma_write};
	const struct virt_disk_config *dc = &a->cfg->disks[a->i];
	char why[200], serial[24];
	if (disk_open(&v->disks[a->i], dc->path, dc->read_only, why, sizeof(why))) {
		snprintf(a->err, a->errlen, "%s: %s", dc->path, why);
		return NULL;
	}
	v->ndisks = a->i + 1;
	if (!(v->disk_path[a->i] = strdup(dc->path))) {
		snprintf(a->err, a->errlen, "out of memory");
		return NULL;
	}
	snprintf(serial, sizeof(serial), "themis-disk%d", a->i);
	if (virtio_blk_init(&v->wire.blk[a->i], a->state, &v->disks[a->i], serial, &dma, &a->irq)) {
		snprintf(a->err, a->errlen, "%s: cannot attach as virtio-blk", dc->path);
		return NULL;
	}
	return &v->wire.blk[a->i].vio;
}

/* Wired before every other device, which drive lines into it (see
 * init_devices). */
static void *attach_plic(struct virt *v, const struct virt_attach *a)
{
	(void)a;
	return &v->wire.plic;
}

/* One entry of the board's device list. */
struct virt_device {
	const char *name;	/* device tree node name */
	const char *compatible; /* its compatible list, NUL-separated */
	size_t compatible_len;	/* with every NUL of the list */
	uint64_t base, size;	/* register window; slot i at base + i * size */
	int irq;		/* PLIC source; slot i has irq + i; 0: none */
	bool per_disk;		/* one slot per disk, else one instance */
	const struct mmio_ops *mmio;
	const struct dev_state_desc *state;
	size_t state_at; /* offsetof(struct virt_devs, its state) */
	void *(*attach)(struct virt *v, const struct virt_attach *a);
	int (*fdt_node)(void *fdt, const struct fdt_node *n);
};

#define COMPAT(list)	   .compatible = list, .compatible_len = sizeof(list)
#define STATE(field, desc) .state = &desc, .state_at = offsetof(struct virt_devs, field)

/* The board, as QEMU virt's memmap: every device once, in device-tree order
 * (the kernel probes in that order: changing it changes the machine). The
 * MMIO bus, the device tree, the fork, the machine hash and snapshots all
 * take the devices from here. */
static const struct virt_device virt_devices[] = {
    {.name = "test",
     COMPAT("sifive,test1\0sifive,test0\0syscon"),
     .base = VIRT_TEST_BASE,
     .size = VIRT_TEST_SIZE,
     .mmio = &sifive_test_ops,
     STATE(test, sifive_test_state_desc),
     .attach = attach_test,
     .fdt_node = fdt_node_syscon},
    {.name = "rtc",
     COMPAT("google,goldfish-rtc"),
     .base = VIRT_RTC_BASE,
     .size = VIRT_RTC_SIZE,
     .irq = VIRT_IRQ_RTC,
     .mmio = &goldfish_rtc_ops,
     STATE(rtc, goldfish_rtc_state_desc),
     .attach = attach_rtc,
     .fdt_node = fdt_node_device},
    {.name = "serial",
     COMPAT("ns16550a"),
     .base = VIRT_UART_BASE,
     .size = VIRT_UART_SIZE,
     .irq = VIRT_IRQ_UART,
     .mmio = &uart16550_ops,
     STATE(uart, uart16550_state_desc),
     .attach = attach_uart,
     .fdt_node = fdt_node_serial},
    {.name = "virtio_mmio",
     COMPAT("virtio,mmio"),
     .base = VIRT_VIRTIO_BASE,
     .size = VIRT_VIRTIO_SIZE,
     .irq = VIRT_IRQ_VIRTIO0,
     .per_disk = true,
     .mmio = &virtio_mmio_ops,
     STATE(blk, virtio_blk_state_desc),
     .attach = attach_blk,
     .fdt_node = fdt_node_device},
    {.name = "plic",
     COMPAT("sifive,plic-1.0.0"),
     .base = VIRT_PLIC_BASE,
     .size = VIRT_PLIC_SIZE,
     .mmio = &plic_ops,
     STATE(plic, plic_state_desc),
     .attach = attach_plic,
     .fdt_node = fdt_node_plic},
};

#define VIRT_NDEVICES		 (int)(sizeof(virt_devices) / sizeof(virt_devices[0]))
#define VIRT_BOARD_STATE_VERSION 1

/* Every instance (one device is per disk) and the board's own part. */
_Static_assert(VIRT_NDEVICES + VIRT_MAX_DISKS <= VIRT_MAX_PARTS, "VIRT_MAX_PARTS too small");
/* One device list: a VIRT_DEVICES state with no entry above would be
 * forked but never attached, hashed or saved. (The entries' order and
 * their cover of struct virt_devs: tests/unit/test_devices.c, board_parts.) */
#define VIRT_DEV_ONE(field, type, dims) +1
_Static_assert(VIRT_NDEVICES == 0 VIRT_DEVICES(VIRT_DEV_ONE),
	       "every VIRT_DEVICES line needs its virt_devices[] entry, and no more");
#undef VIRT_DEV_ONE
_Static_assert(VIRT_NDEVICES - 1 + VIRT_MAX_DISKS <= MMIO_MAX_REGIONS, "too many windows");

static int instances(const struct virt_device *d, int ndisks)
{
	return d->per_disk ? ndisks : 1;
}

int virt_parts(const struct virt *v, struct virt_part parts[VIRT_MAX_PARTS])
{
	int n = 0;
	for (int k = 0; k < VIRT_NDEVICES; k++) {
		const struct virt_device *d = &virt_devices[k];
		for (int i = 0; i < instances(d, v->ndisks); i++)
			parts[n++] = (struct virt_part){d->state->name, d->state->version,
							d->state_at + (size_t)i * d->state->size,
							d->state->size};
	}
	size_t own = offsetof(struct virt_devs, timer_deadline);
	parts[n++] = (struct virt_part){"board", VIRT_BOARD_STATE_VERSION, own,
					sizeof(struct virt_devs) - own};
	return n;
}

/* The device tree's nodes under /soc, from the device list. */
static int soc_nodes(const struct virt *v, struct fdt_node nodes[VIRT_MAX_PARTS])
{
	int n = 0;
	for (int k = 0; k < VIRT_NDEVICES; k++) {
		const struct virt_device *d = &virt_devices[k];
		for (int i = 0; i < instances(d, v->ndisks); i++)
			nodes[n++] = (struct fdt_node){
			    .emit = d->fdt_node,
			    .name = d->name,
			    .compatible = d->compatible,
			    .compatible_len = d->compatible_len,
			    .base = d->base + (uint64_t)i * d->size,
			    .size = d->size,
			    .irq = d->irq ? (uint32_t)(d->irq + i) : 0,
			};
	}
	return n;
}

static void rng_seed_bytes(uint64_t seed, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t z = splitmix64(&seed);
		memcpy(out + i, &z, n - i < 8 ? n - i : 8);
	}
}

/* Kernel low, device tree at the top of RAM, initrd just below it. */
static int load_boot(struct virt *v, const struct virt_config *cfg, uint64_t *entry, uint64_t *dtb,
		     char *err, size_t errlen)
{
	uint64_t kend, initrd = 0, initrd_size = 0;
	if (image_load_kernel(&v->ram, cfg->kernel, entry, &kend, err, errlen))
		return -1;
	*dtb = v->ram.base + v->ram.size - VIRT_FDT_MAX;
	if (cfg->initrd &&
	    image_load_below(&v->ram, cfg->initrd, kend, *dtb, &initrd, &initrd_size, err, errlen))
		return -1;
	uint8_t seed[VIRT_RNG_SEED_LEN];
	rng_seed_bytes(cfg->seed, seed, sizeof(seed));
	struct fdt_node soc[VIRT_MAX_PARTS];
	struct fdt_config fc = {
	    .ram_size = v->ram.size,
	    .bootargs = cfg->append,
	    .initrd_start = initrd,
	    .initrd_end = initrd + initrd_size,
	    .rng_seed = seed,
	    .rng_seed_len = sizeof(seed),
	    .soc = soc,
	    .nsoc = soc_nodes(v, soc),
	};
	uint8_t *fdt = malloc(VIRT_FDT_MAX);
	int size = fdt ? fdt_build(&fc, fdt, VIRT_FDT_MAX) : -1;
	bool ok = size >= 0 && ram_write(&v->ram, *dtb, fdt, (uint64_t)size);
	free(fdt);
	if (!ok) {
		snprintf(err, errlen, "cannot build the device tree (%s)",
			 size < 0 ? "larger than 64 KiB" : "out of memory");
		return -1;
	}
	return 0;
}

/* The hart as firmware would leave it: S-mode, a0 = hart id, a1 = DTB. */
static void enter_kernel(struct virt *v, uint64_t entry, uint64_t dtb)
{
	struct cpu *c = &v->cpu;
	c->priv = PRV_S;
	c->pc = entry;
	c->x[10] = 0;
	c->x[11] = dtb;
	c->csr.medeleg = VIRT_MEDELEG;
	c->csr.mideleg = VIRT_MIDELEG;
	c->csr.mcounteren = 7; /* S may read cycle, time, instret */
	/* And U too, as Linux's SBI PMU driver grants under OpenSBI (6.1 sets
	 * scounteren nowhere else, and our firmware has no PMU extension):
	 * the vDSO's clock_gettime reads the time CSR from user mode. */
	c->csr.scounteren = 7;
	cpu_flush_tlb(c);
}

static int init_devices(struct virt *v, const struct virt_config *cfg, char *err, size_t errlen)
{
	static const cookie_io_functions_t console_io = {.write = console_write};
	v->console_out = cfg->console;
	v->console = fopencookie(v, "w", console_io);
	if (!v->console) {
		snprintf(err, errlen, "cannot open the console stream");
		return -1;
	}
	setvbuf(v->console, NULL, _IONBF, 0);
	if (cfg->ndisks > VIRT_MAX_DISKS) {
		snprintf(err, errlen, "%d disks given, the board has %d virtio slots", cfg->ndisks,
			 VIRT_MAX_DISKS);
		return -1;
	}
	/* The interrupt controller first: attaching a device drives its line. */
	plic_init(&v->wire.plic, &v->dev.plic, &v->cpu);
	for (int k = 0; k < VIRT_NDEVICES; k++) {
		const struct virt_device *d = &virt_devices[k];
		for (int i = 0; i < instances(d, cfg->ndisks); i++) {
			const struct virt_attach a = {
			    .cfg = cfg,
			    .i = i,
			    .state = (char *)&v->dev + d->state_at + (size_t)i * d->state->size,
			    .irq = d->irq ? plic_line(&v->wire.plic, d->irq + i)
					  : (struct irq_line){0},
			    .err = err,
			    .errlen = errlen,
			};
			void *dev = d->attach(v, &a);
			if (!dev)
				return -1;
			mmio_add(&v->bus, d->base + (uint64_t)i * d->size, d->size, d->mmio, dev);
		}
	}
	return 0;
}

static uint64_t host_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts); /* only with --clock host */
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int virt_init(struct virt *v, const struct virt_config *cfg, char *err, size_t errlen)
{
	memset(v, 0, sizeof(*v));
	v->dev.timer_deadline = UINT64_MAX;
	v->next = cfg->next;
	v->wait = cfg->wait;
	v->levels = calloc(VIRT_MAX_LEVELS, sizeof(*v->levels));
	v->clock_base_ns = cfg->clock_host ? host_clock_ns() : cfg->clock_ns;
	if (cfg->mem < VIRT_MEM_MIN || cfg->mem > VIRT_MEM_MAX || cfg->mem % (1ULL << 20)) {
		snprintf(err, errlen,
			 "%llu bytes of RAM: the board takes whole MiB, 16 MiB to 16 GiB",
			 (unsigned long long)cfg->mem);
		virt_free(v);
		return -1;
	}
	int rc = v->levels ? ram_init(&v->ram, VIRT_DRAM_BASE, cfg->mem) : -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "cannot allocate %llu MiB of RAM: %s",
			 (unsigned long long)(cfg->mem >> 20), strerror(-rc));
		virt_free(v);
		return -1;
	}
	const struct cpu_bus bus = {.opaque = v,
				    .ram = bus_ram,
				    .zero_page = ram_zero_page,
				    .load = bus_load,
				    .store = bus_store,
				    .doorbell = virt_doorbell,
				    .sbi_call = bus_sbi,
				    .m_trap = bus_m_trap,
				    .host_fn = virt_hostfn_call};
	uint64_t entry, dtb;
	if (cpu_init(&v->cpu, &bus, 0)) {
		snprintf(err, errlen, "out of memory for the hart");
		virt_free(v);
		return -1;
	}
	v->ram.homed = cpu_ram_homed, v->ram.homed_opaque = &v->cpu;
	if (init_devices(v, cfg, err, errlen) ||
	    (!cfg->no_boot && load_boot(v, cfg, &entry, &dtb, err, errlen))) {
		virt_free(v);
		return -1;
	}
	if (cfg->kernel && !(v->kernel_path = strdup(cfg->kernel))) {
		snprintf(err, errlen, "out of memory");
		virt_free(v);
		return -1;
	}
	virt_hostfn_setup(v, cfg->kernel, cfg->no_boot ? 0 : entry);
	if (!cfg->no_boot)
		enter_kernel(v, entry, dtb);
	return 0;
}

void virt_free(struct virt *v)
{
	if (getenv("THEMIS_DEBUG_HOLD"))
		fprintf(stderr, "holds_expired %llu steps %llu\n",
			(unsigned long long)v->holds_expired,
			(unsigned long long)cpu_steps(&v->cpu));
	virt_sampler_stop(v);
	if (v->peer) {
		virt_free(v->peer);
		free(v->peer);
		v->peer = NULL;
	}
	for (int i = 0; i < v->ndisks; i++) {
		disk_close(&v->disks[i]);
		free(v->disk_path[i]);
		v->disk_path[i] = NULL;
	}
	v->ndisks = 0;
	if (v->console)
		fclose(v->console);
	v->console = NULL;
	cpu_free(&v->cpu);
	ram_free(&v->ram);
	free(v->levels);
	v->levels = NULL;
	free(v->log);
	v->log = NULL;
	free(v->kernel_path);
	v->kernel_path = NULL;
}

/* ---- running ---- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Ticks until the next timer or RTC alarm; UINT64_MAX if none. */
static uint64_t ticks_to_next_event(const struct virt *v)
{
	uint64_t now = cpu_time(&v->cpu), next = UINT64_MAX;
	if (v->dev.timer_deadline != UINT64_MAX)
		next = v->dev.timer_deadline > now ? v->dev.timer_deadline - now : 0;
	uint64_t alarm_ns = goldfish_rtc_ns_to_alarm(&v->wire.rtc);
	if (alarm_ns != UINT64_MAX)
		next = min_u64(next, (alarm_ns + VIRT_NS_PER_TICK - 1) / VIRT_NS_PER_TICK);
	return next;
}

/* How far the hart may run before the board looks again: as far as the
 * next timer or alarm while time runs. While time is held no instruction
 * moves the clock, so nothing can come due inside a run: only the hold's
 * own limit bounds it (bounding it by the deadline's distance, which does
 * not shrink, cut the held stretch into runs that short, over and over). */
static uint64_t slice_bound(const struct virt *v, uint64_t next)
{
	const struct cpu *c = &v->cpu;
	if (c->time_held)
		return VIRT_HOLD_MAX - min_u64(cpu_steps(c) - c->time_held_from, VIRT_HOLD_MAX - 1);
	return next ? next : VIRT_SLICE;
}

void virt_hold_time(struct virt *v, bool hold)
{
	cpu_hold_time(&v->cpu, hold);
}

enum virt_stop virt_run(struct virt *v, uint64_t max_insns)
{
	struct cpu *c = &v->cpu;
	while (v->stop == VIRT_RUNNING) {
		if (cpu_time(c) > v->dev.timer_deadline && !(c->csr.mip & (1ULL << IRQ_STI)))
			v->timer_late++;
		update_timer(v);
		goldfish_rtc_update(&v->wire.rtc);
		uint64_t steps = cpu_steps(c);
		if (c->time_held && steps - c->time_held_from >= VIRT_HOLD_MAX) {
			cpu_hold_time(c, false); /* a guest spinning on the clock */
			v->holds_expired++;
		}
		if (v->dev.panic_at && steps - v->dev.panic_at >= VIRT_PANIC_GRACE) {
			virt_stop_with(v, VIRT_PANIC, "kernel panic");
			break;
		}
		uint64_t left = max_insns ? max_insns - min_u64(steps, max_insns) : UINT64_MAX;
		if (left == 0) {
			virt_stop_with(v, VIRT_BUDGET, NULL);
			break;
		}
		uint64_t next = ticks_to_next_event(v);
		if (c->wfi && !(c->csr.mip & c->csr.mie)) {
			if (next == UINT64_MAX) {
				virt_stop_with(v, VIRT_HUNG, "the hart sleeps with no timer armed");
				break;
			}
			cpu_advance_time(c, next);
			continue;
		}
		uint64_t slice = min_u64(min_u64(left, VIRT_SLICE), slice_bound(v, next));
		if (v->dev.panic_at)
			slice = min_u64(slice, VIRT_PANIC_GRACE);
		if (v->sampler)
			slice = virt_sample_slice(v, slice);
		uint64_t from = v->phase_from = steps;
		cpu_run(c, slice);
		v->phase_insns[v->phase] += cpu_steps(c) - v->phase_from;
		if (v->sampler)
			virt_sample_take(v, cpu_steps(c) - from);
	}
	return v->stop;
}

void virt_phase(struct virt *v, int phase, int tag)
{
	for (; v; v = v->peer) {
		v->phase = phase >= 0 && phase < VIRT_PHASES ? phase : 0;
		v->tag = tag;
	}
}

void virt_events_take(struct virt *v, uint64_t out[VIRT_NEVENTS])
{
	for (; v; v = v->peer) {
		for (int e = 0; e < CPU_NEVENTS; e++) {
			out[e] += v->cpu.events[e];
			v->cpu.events[e] = 0;
		}
		out[VIRT_EV_COPY] += v->ram.copies;
		v->ram.copies = 0;
	}
}

void virt_phase_take(struct virt *v, uint64_t out[VIRT_PHASES])
{
	for (; v; v = v->peer)
		for (int p = 0; p < VIRT_PHASES; p++) {
			out[p] += v->phase_insns[p];
			v->phase_insns[p] = 0;
		}
}

void virt_counts_clear(struct virt *v)
{
	uint64_t ph[VIRT_PHASES] = {0}, ev[VIRT_NEVENTS] = {0}, calls[VIRT_HOST_NKINDS] = {0},
		 bytes[VIRT_HOST_NKINDS] = {0};
	virt_phase_take(v, ph);
	virt_events_take(v, ev);
	virt_hostfn_take(v, calls, bytes);
}

void virt_counts_move(struct virt *to, struct virt *from)
{
	uint64_t ev[VIRT_NEVENTS] = {0}, calls[VIRT_HOST_NKINDS] = {0},
		 bytes[VIRT_HOST_NKINDS] = {0};
	virt_phase_take(from, to->phase_insns);
	virt_events_take(from, ev);
	for (int e = 0; e < CPU_NEVENTS; e++)
		to->cpu.events[e] += ev[e];
	to->ram.copies += ev[VIRT_EV_COPY];
	virt_hostfn_take(from, calls, bytes);
	for (int k = 0; k < VIRT_HOST_NKINDS; k++)
		to->hostfn_calls[k] += calls[k], to->hostfn_bytes[k] += bytes[k];
}
