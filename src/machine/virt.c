/* virt.c - see virt.h. Three parts: the bus (how the hart and the devices
 * reach RAM and each other), the boot (kernel, initrd, device tree, hart
 * state as after firmware), and the run loop, which slices execution at the
 * next timer or alarm deadline so every interrupt arrives at the same
 * instruction on every run. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../guest/agent/doorbell.h"
#include "../util/rng.h"
#include "fdt.h"
#include "image.h"
#include "sbi.h"
#include "virt.h"

#include <xxhash.h>

#define VIRT_SLICE	  (1ULL << 20)
#define VIRT_FDT_MAX	  (64u << 10)
#define VIRT_NS_PER_TICK  (1000000000ULL / VIRT_TIMEBASE_HZ)
#define VIRT_PANIC_GRACE  20000000ULL /* instructions to let a panic finish printing */
#define VIRT_RNG_SEED_LEN 64

/* Exceptions the S-mode kernel handles itself: all but ecall from S (the
 * SBI) and from M. Without M-mode software every other trap must land in S. */
#define VIRT_MEDELEG 0xb1ffULL
#define VIRT_MIDELEG ((1ULL << IRQ_SSI) | (1ULL << IRQ_STI) | (1ULL << IRQ_SEI))

static void stop_with(struct virt *v, enum virt_stop why, const char *detail)
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

/* A device writes RAM: page by page, copy-on-write, and the hart's decoded
 * instructions of those bytes dropped. */
static bool dma_ram_write(void *opaque, uint64_t pa, const void *buf, uint64_t len)
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

/* Copy a guest-virtual buffer of the calling process out; false if any
 * page is unmapped or outside RAM. */
static bool copy_from_guest(struct virt *v, uint64_t va, void *buf, uint64_t len)
{
	uint8_t *out = buf;
	while (len) {
		uint64_t pa, n = 4096 - (va & 0xfff);
		if (n > len)
			n = len;
		if (!cpu_virt_to_phys(&v->cpu, va, false, &pa) || !ram_read(&v->ram, pa, out, n))
			return false;
		out += n, va += n, len -= n;
	}
	return true;
}

/* Copy into a guest-virtual buffer of the calling process. */
static bool copy_to_guest(struct virt *v, uint64_t va, const void *buf, uint64_t len)
{
	const uint8_t *in = buf;
	while (len) {
		uint64_t pa, n = 4096 - (va & 0xfff);
		if (n > len)
			n = len;
		if (!cpu_virt_to_phys(&v->cpu, va, true, &pa) || !dma_ram_write(v, pa, in, n))
			return false;
		in += n, va += n, len -= n;
	}
	return true;
}

static void log_append(struct virt *v, const char *line)
{
	size_t n = strlen(line);
	if (v->log_len + n + 2 > v->log_cap) {
		size_t cap = (v->log_cap ? v->log_cap * 2 : 4096) + n;
		char *nl = realloc(v->log, cap);
		if (!nl)
			return;
		v->log = nl;
		v->log_cap = cap;
	}
	memcpy(v->log + v->log_len, line, n);
	v->log_len += n;
	v->log[v->log_len++] = '\n';
	v->log[v->log_len] = 0;
}

void virt_clear_log(struct virt *v)
{
	v->log_len = 0;
	if (v->log)
		v->log[0] = 0;
}

int virt_command(struct virt *v, const char *cmd)
{
	size_t n = strlen(cmd);
	if (v->stop != VIRT_WAITING || n >= sizeof(v->cmd))
		return -EINVAL;
	memcpy(v->cmd, cmd, n);
	v->cmd_len = n;
	v->cmd_pending = true;
	v->stop = VIRT_RUNNING;
	return 0;
}

/* A text buffer of the agent, as one printable line. */
static bool guest_text(struct virt *v, uint64_t va, uint64_t len, char *out, size_t outlen)
{
	if (len > DB_MAX_LEN || len >= outlen)
		len = outlen - 1;
	if (!copy_from_guest(v, va, out, len))
		return false;
	out[len] = 0;
	for (uint64_t i = 0; i < len; i++)
		if (out[i] == '\n' && i + 1 == len)
			out[i] = 0;
		else if ((unsigned char)out[i] < ' ' && out[i] != '\n')
			out[i] = '?';
	return true;
}

static uint64_t bus_doorbell(void *opaque, uint64_t cmd, uint64_t buf, uint64_t len)
{
	struct virt *v = opaque;
	char text[DB_MAX_LEN + 1];
	switch (cmd) {
	case DB_PING: return DB_MAGIC;
	case DB_READY:
		if (!guest_text(v, buf, len, v->ready_report, sizeof(v->ready_report)))
			return DB_ERROR;
		if (v->wait)
			return DB_NEXT_WAIT;
		if (v->next)
			return (uint64_t)v->next;
		stop_with(v, VIRT_READY, NULL);
		return DB_NEXT_POWEROFF;
	case DB_LOG:
		if (!guest_text(v, buf, len, text, sizeof(text)))
			return DB_ERROR;
		fprintf(v->console, "%s\n", text); /* as the agent prints without a host */
		log_append(v, text);
		return 0;
	case DB_WAIT:
		if (!v->cmd_pending) {
			stop_with(v, VIRT_WAITING, NULL);
			return CPU_DOORBELL_STALL; /* executed again once a command is there */
		}
		if (v->cmd_len > len || !copy_to_guest(v, buf, v->cmd, v->cmd_len))
			return DB_ERROR;
		v->cmd_pending = false;
		return v->cmd_len;
	default: return DB_ERROR;
	}
}

static void bus_m_trap(void *opaque, uint64_t mcause, uint64_t tval)
{
	struct virt *v = opaque;
	char detail[VIRT_LINE_MAX];
	snprintf(detail, sizeof(detail), "trap into M-mode: mcause 0x%llx, mtval 0x%llx, pc 0x%llx",
		 (unsigned long long)mcause, (unsigned long long)tval,
		 (unsigned long long)v->cpu.pc);
	stop_with(v, VIRT_MTRAP, detail);
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
	stop_with(v, type == SBI_RESET_SHUTDOWN ? VIRT_POWEROFF : VIRT_REBOOT, detail);
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
		stop_with(v, VIRT_REBOOT, "syscon reboot");
	else if (v->dev.test.kind == SIFIVE_TEST_FAIL)
		stop_with(v, VIRT_POWEROFF, "syscon power-off with a failure code");
	else
		stop_with(v, VIRT_POWEROFF, "syscon power-off");
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

/* ---- building the board ---- */

static int attach_disks(struct virt *v, const struct virt_config *cfg, char *err, size_t errlen)
{
	const struct dma dma = {v, dma_ram_read, dma_ram_write};
	if (cfg->ndisks > VIRT_MAX_DISKS) {
		snprintf(err, errlen, "%d disks given, the board has %d virtio slots", cfg->ndisks,
			 VIRT_MAX_DISKS);
		return -1;
	}
	for (int i = 0; i < cfg->ndisks; i++) {
		char why[200], serial[24];
		if (disk_open(&v->disks[i], cfg->disks[i].path, cfg->disks[i].read_only, why,
			      sizeof(why))) {
			snprintf(err, errlen, "%s: %s", cfg->disks[i].path, why);
			return -1;
		}
		v->ndisks = i + 1;
		if (!(v->disk_path[i] = strdup(cfg->disks[i].path))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		struct irq_line irq = plic_line(&v->dev.plic, VIRT_IRQ_VIRTIO0 + i);
		snprintf(serial, sizeof(serial), "themis-disk%d", i);
		if (virtio_blk_init(&v->dev.blk[i], &v->disks[i], serial, &dma, &irq)) {
			snprintf(err, errlen, "%s: cannot attach as virtio-blk",
				 cfg->disks[i].path);
			return -1;
		}
		mmio_add(&v->bus, VIRT_VIRTIO_BASE + (uint64_t)i * VIRT_VIRTIO_SIZE,
			 VIRT_VIRTIO_SIZE, &virtio_mmio_ops, &v->dev.blk[i].vio);
	}
	return 0;
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
	struct fdt_config fc = {
	    .ram_size = v->ram.size,
	    .bootargs = cfg->append,
	    .initrd_start = initrd,
	    .initrd_end = initrd + initrd_size,
	    .rng_seed = seed,
	    .rng_seed_len = sizeof(seed),
	    .ndisks = v->ndisks,
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
	plic_init(&v->dev.plic, &v->cpu);
	uart16550_init(&v->dev.uart, v->console);
	uart16550_set_irq_line(&v->dev.uart, plic_line(&v->dev.plic, VIRT_IRQ_UART));
	goldfish_rtc_init(&v->dev.rtc, rtc_now_ns, v, plic_line(&v->dev.plic, VIRT_IRQ_RTC));
	sifive_test_init(&v->dev.test, test_finished, v);
	mmio_add(&v->bus, VIRT_TEST_BASE, VIRT_TEST_SIZE, &sifive_test_ops, &v->dev.test);
	mmio_add(&v->bus, VIRT_RTC_BASE, VIRT_RTC_SIZE, &goldfish_rtc_ops, &v->dev.rtc);
	mmio_add(&v->bus, VIRT_PLIC_BASE, VIRT_PLIC_SIZE, &plic_ops, &v->dev.plic);
	mmio_add(&v->bus, VIRT_UART_BASE, VIRT_UART_SIZE, &uart16550_ops, &v->dev.uart);
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
				    .doorbell = bus_doorbell,
				    .sbi_call = bus_sbi,
				    .m_trap = bus_m_trap};
	uint64_t entry, dtb;
	if (cpu_init(&v->cpu, &bus, 0)) {
		snprintf(err, errlen, "out of memory for the hart");
		virt_free(v);
		return -1;
	}
	v->ram.homed = cpu_ram_homed, v->ram.homed_opaque = &v->cpu;
	if (init_devices(v, cfg, err, errlen) || attach_disks(v, cfg, err, errlen) ||
	    (!cfg->no_boot && load_boot(v, cfg, &entry, &dtb, err, errlen))) {
		virt_free(v);
		return -1;
	}
	if (!cfg->no_boot)
		enter_kernel(v, entry, dtb);
	return 0;
}

void virt_free(struct virt *v)
{
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
	uint64_t alarm_ns = goldfish_rtc_ns_to_alarm(&v->dev.rtc);
	if (alarm_ns != UINT64_MAX)
		next = min_u64(next, (alarm_ns + VIRT_NS_PER_TICK - 1) / VIRT_NS_PER_TICK);
	return next;
}

enum virt_stop virt_run(struct virt *v, uint64_t max_insns)
{
	struct cpu *c = &v->cpu;
	while (v->stop == VIRT_RUNNING) {
		if (cpu_time(c) > v->dev.timer_deadline && !(c->csr.mip & (1ULL << IRQ_STI)))
			v->timer_late++;
		update_timer(v);
		goldfish_rtc_update(&v->dev.rtc);
		uint64_t steps = cpu_steps(c);
		if (v->dev.panic_at && steps - v->dev.panic_at >= VIRT_PANIC_GRACE) {
			stop_with(v, VIRT_PANIC, "kernel panic");
			break;
		}
		uint64_t left = max_insns ? max_insns - min_u64(steps, max_insns) : UINT64_MAX;
		if (left == 0) {
			stop_with(v, VIRT_BUDGET, NULL);
			break;
		}
		uint64_t next = ticks_to_next_event(v);
		if (c->wfi && !(c->csr.mip & c->csr.mie)) {
			if (next == UINT64_MAX) {
				stop_with(v, VIRT_HUNG, "the hart sleeps with no timer armed");
				break;
			}
			c->time_skip += next;
			continue;
		}
		uint64_t slice = min_u64(min_u64(left, VIRT_SLICE), next ? next : VIRT_SLICE);
		if (v->dev.panic_at)
			slice = min_u64(slice, VIRT_PANIC_GRACE);
		cpu_run(c, slice);
	}
	return v->stop;
}

int virt_ram_hash(const struct virt *v, char out[33])
{
	uint8_t h[16];
	if (ram_hash(&v->ram, h)) {
		snprintf(out, 33, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
	return 0;
}

/* ---- the fork ---- */

static void forget_page(void *opaque, const uint8_t *page)
{
	struct virt *v = opaque;
	cpu_forget_page(&v->cpu, page);
}

static bool depths_agree(const struct virt *v)
{
	for (int i = 0; i < v->ndisks; i++)
		if (disk_depth(&v->disks[i]) != v->depth)
			return false;
	return ram_depth(&v->ram) == v->depth;
}

int virt_fork(struct virt *v)
{
	if (v->depth == VIRT_MAX_LEVELS)
		return -EOVERFLOW;
	int rc = ram_fork(&v->ram);
	for (int i = 0; rc == 0 && i < v->ndisks; i++)
		if ((rc = disk_fork(&v->disks[i])) != 0) {
			while (i--)
				disk_release(&v->disks[i]);
			ram_release(&v->ram, forget_page, v);
		}
	if (rc)
		return rc;
	struct virt_level *l = &v->levels[v->depth++];
	cpu_state_save(&v->cpu, l->cpu);
	l->dev = v->dev;
	l->stop = v->stop;
	/* Every page now belongs to an older level: no write may bypass
	 * ram_page_w through a cached pointer. Reads and fetches may. */
	cpu_flush_writable(&v->cpu);
	cpu_tlb_save(&v->cpu, &l->tlb);
	assert(depths_agree(v));
	return 0;
}

int virt_restore(struct virt *v)
{
	if (v->depth == 0)
		return -EINVAL;
	struct virt_level *l = &v->levels[v->depth - 1];
	int rc = ram_restore(&v->ram, forget_page, v);
	for (int i = 0; rc == 0 && i < v->ndisks; i++)
		rc = disk_restore(&v->disks[i]);
	if (rc)
		return rc;		 /* cannot happen with depths in lockstep */
	cpu_state_load(&v->cpu, l->cpu); /* drops the TLB: pages moved */
	cpu_tlb_load(&v->cpu, &l->tlb);	 /* but what still holds of the fork's */
	v->dev = l->dev;
	v->stop = (enum virt_stop)l->stop;
	v->cmd_pending = false;
	assert(depths_agree(v));
	return 0;
}

int virt_release(struct virt *v)
{
	int rc = virt_restore(v);
	if (rc)
		return rc;
	ram_release(&v->ram, forget_page, v);
	for (int i = 0; i < v->ndisks; i++)
		disk_release(&v->disks[i]);
	v->depth--;
	assert(depths_agree(v));
	return 0;
}

/* The device block with every pointer cleared: what is hashed and saved. */
void virt_devs_scrub(const struct virt_devs *d, struct virt_devs *out)
{
	memcpy(out, d, sizeof(*out)); /* padding too: the bytes are hashed */
	out->plic.cpu = NULL;
	out->uart.irq = (struct irq_line){0};
	out->uart.out = NULL;
	out->rtc.now_ns = NULL;
	out->rtc.opaque = NULL;
	out->rtc.irq = (struct irq_line){0};
	out->test.on_finish = NULL;
	out->test.opaque = NULL;
	for (int i = 0; i < VIRT_MAX_DISKS; i++) {
		struct virtio_blk *b = &out->blk[i];
		b->disk = NULL;
		b->vio.ops = NULL;
		b->vio.dma = (struct dma){0};
		b->vio.irq = (struct irq_line){0};
	}
}

/* Pages and chunks as the machine holds them: (index, content) of every
 * one that is not the never-written / still-the-base kind. Stricter than a
 * content hash (a restore must also put back what was never written) and
 * proportional to what the guest touched, not to RAM or disk size. */
static void hash_table(XXH3_state_t *st, uint8_t *const *table, uint64_t n, size_t size)
{
	for (uint64_t i = 0; i < n; i++)
		if (table[i]) {
			XXH3_128bits_update(st, &i, sizeof(i));
			XXH3_128bits_update(st, table[i], size);
		}
	XXH3_128bits_update(st, &n, sizeof(n));
}

/* Put back the pointers virt_devs_scrub cleared, from a wired block. */
void virt_devs_rewire(struct virt_devs *d, const struct virt_devs *w)
{
	d->plic.cpu = w->plic.cpu;
	d->uart.irq = w->uart.irq;
	d->uart.out = w->uart.out;
	d->rtc.now_ns = w->rtc.now_ns;
	d->rtc.opaque = w->rtc.opaque;
	d->rtc.irq = w->rtc.irq;
	d->test.on_finish = w->test.on_finish;
	d->test.opaque = w->test.opaque;
	for (int i = 0; i < VIRT_MAX_DISKS; i++) {
		struct virtio_blk *b = &d->blk[i];
		const struct virtio_blk *wb = &w->blk[i];
		b->disk = wb->disk;
		b->vio.ops = wb->vio.ops;
		b->vio.dma = wb->vio.dma;
		b->vio.irq = wb->vio.irq;
	}
}

int virt_state_hash(const struct virt *v, uint8_t out[16])
{
	uint8_t cpu[CPU_STATE_SIZE];
	struct virt_devs dev;
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		memset(out, 0, 16);
		return -ENOMEM;
	}
	XXH3_128bits_reset(st);
	hash_table(st, v->ram.pages, v->ram.npages, RAM_PAGE_SIZE);
	cpu_state_save(&v->cpu, cpu);
	XXH3_128bits_update(st, cpu, sizeof(cpu));
	virt_devs_scrub(&v->dev, &dev);
	XXH3_128bits_update(st, &dev, sizeof(dev));
	for (int i = 0; i < v->ndisks; i++)
		hash_table(st, v->disks[i].chunks, v->disks[i].nchunks, DISK_CHUNK_SIZE);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	memcpy(out, c.digest, 16);
	XXH3_freeState(st);
	return 0;
}
