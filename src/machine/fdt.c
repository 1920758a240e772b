/* fdt.c - see fdt.h. The layout follows QEMU virt's tree closely (node
 * names, compatibles, interrupt wiring), minus what Linux in S-mode never
 * uses (the CLINT) and with only the virtio-mmio slots that hold a disk
 * (the board lists only those). libfdt's sequential-write API keeps this a
 * straight walk down the tree. */
#include <libfdt.h>
#include <stdio.h>

#include "fdt.h"
#include "virt_map.h"

enum { PH_CPU_INTC = 1, PH_PLIC = 2, PH_TEST = 3 };

/* Every call returns 0 or a negative libfdt error; fold them into one. */
#define TRY(expr)                                                                                  \
	do {                                                                                       \
		if ((expr) < 0)                                                                    \
			return -1;                                                                 \
	} while (0)

static int prop_reg(void *fdt, uint64_t base, uint64_t size)
{
	fdt64_t reg[2] = {cpu_to_fdt64(base), cpu_to_fdt64(size)};
	return fdt_property(fdt, "reg", reg, sizeof(reg));
}

static int begin_node_at(void *fdt, const char *name, uint64_t addr)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s@%llx", name, (unsigned long long)addr);
	return fdt_begin_node(fdt, buf);
}

static int add_chosen(void *fdt, const struct fdt_config *cfg)
{
	TRY(fdt_begin_node(fdt, "chosen"));
	TRY(fdt_property_string(fdt, "bootargs", cfg->bootargs ? cfg->bootargs : ""));
	TRY(fdt_property_string(fdt, "stdout-path", "/soc/serial@10000000"));
	if (cfg->initrd_end > cfg->initrd_start) {
		TRY(fdt_property_u64(fdt, "linux,initrd-start", cfg->initrd_start));
		TRY(fdt_property_u64(fdt, "linux,initrd-end", cfg->initrd_end));
	}
	if (cfg->rng_seed_len)
		TRY(fdt_property(fdt, "rng-seed", cfg->rng_seed, (int)cfg->rng_seed_len));
	return fdt_end_node(fdt);
}

static int add_cpus(void *fdt)
{
	TRY(fdt_begin_node(fdt, "cpus"));
	TRY(fdt_property_u32(fdt, "#address-cells", 1));
	TRY(fdt_property_u32(fdt, "#size-cells", 0));
	TRY(fdt_property_u32(fdt, "timebase-frequency", (uint32_t)VIRT_TIMEBASE_HZ));
	TRY(fdt_begin_node(fdt, "cpu@0"));
	TRY(fdt_property_string(fdt, "device_type", "cpu"));
	TRY(fdt_property_u32(fdt, "reg", 0));
	TRY(fdt_property_string(fdt, "status", "okay"));
	TRY(fdt_property_string(fdt, "compatible", "riscv"));
	TRY(fdt_property_string(fdt, "riscv,isa", "rv64imafdc"));
	TRY(fdt_property_string(fdt, "mmu-type", "riscv,sv39"));
	TRY(fdt_begin_node(fdt, "interrupt-controller"));
	TRY(fdt_property_u32(fdt, "#interrupt-cells", 1));
	TRY(fdt_property(fdt, "interrupt-controller", NULL, 0));
	TRY(fdt_property_string(fdt, "compatible", "riscv,cpu-intc"));
	TRY(fdt_property_u32(fdt, "phandle", PH_CPU_INTC));
	TRY(fdt_end_node(fdt));
	TRY(fdt_end_node(fdt));
	return fdt_end_node(fdt);
}

int fdt_node_plic(void *fdt, const struct fdt_node *n)
{
	/* Context 0 is M-mode external (11), context 1 S-mode external (9). */
	fdt32_t ext[4] = {cpu_to_fdt32(PH_CPU_INTC), cpu_to_fdt32(11), cpu_to_fdt32(PH_CPU_INTC),
			  cpu_to_fdt32(9)};
	TRY(begin_node_at(fdt, n->name, n->base));
	TRY(fdt_property(fdt, "compatible", n->compatible, (int)n->compatible_len));
	TRY(prop_reg(fdt, n->base, n->size));
	TRY(fdt_property_u32(fdt, "#interrupt-cells", 1));
	TRY(fdt_property_u32(fdt, "#address-cells", 0));
	TRY(fdt_property(fdt, "interrupt-controller", NULL, 0));
	TRY(fdt_property(fdt, "interrupts-extended", ext, sizeof(ext)));
	TRY(fdt_property_u32(fdt, "riscv,ndev", VIRT_PLIC_NDEV));
	TRY(fdt_property_u32(fdt, "phandle", PH_PLIC));
	return fdt_end_node(fdt);
}

/* A device node with one register window and its PLIC interrupt, if any;
 * left open for the caller's own properties. */
static int begin_device(void *fdt, const struct fdt_node *n)
{
	TRY(begin_node_at(fdt, n->name, n->base));
	TRY(fdt_property(fdt, "compatible", n->compatible, (int)n->compatible_len));
	TRY(prop_reg(fdt, n->base, n->size));
	if (n->irq) {
		TRY(fdt_property_u32(fdt, "interrupt-parent", PH_PLIC));
		TRY(fdt_property_u32(fdt, "interrupts", n->irq));
	}
	return 0;
}

int fdt_node_device(void *fdt, const struct fdt_node *n)
{
	TRY(begin_device(fdt, n));
	return fdt_end_node(fdt);
}

int fdt_node_serial(void *fdt, const struct fdt_node *n)
{
	TRY(begin_device(fdt, n));
	TRY(fdt_property_u32(fdt, "clock-frequency", 3686400));
	return fdt_end_node(fdt);
}

int fdt_node_syscon(void *fdt, const struct fdt_node *n)
{
	TRY(begin_device(fdt, n));
	TRY(fdt_property_u32(fdt, "phandle", PH_TEST));
	TRY(fdt_end_node(fdt));
	static const struct {
		const char *name;
		uint32_t value;
	} regs[] = {{"poweroff", 0x5555}, {"reboot", 0x7777}};
	for (int i = 0; i < 2; i++) {
		char compat[32];
		snprintf(compat, sizeof(compat), "syscon-%s", regs[i].name);
		TRY(fdt_begin_node(fdt, regs[i].name));
		TRY(fdt_property_string(fdt, "compatible", compat));
		TRY(fdt_property_u32(fdt, "regmap", PH_TEST));
		TRY(fdt_property_u32(fdt, "offset", 0));
		TRY(fdt_property_u32(fdt, "value", regs[i].value));
		TRY(fdt_end_node(fdt));
	}
	return 0;
}

static int add_soc(void *fdt, const struct fdt_config *cfg)
{
	TRY(fdt_begin_node(fdt, "soc"));
	TRY(fdt_property_u32(fdt, "#address-cells", 2));
	TRY(fdt_property_u32(fdt, "#size-cells", 2));
	TRY(fdt_property_string(fdt, "compatible", "simple-bus"));
	TRY(fdt_property(fdt, "ranges", NULL, 0));
	for (int i = 0; i < cfg->nsoc; i++)
		TRY(cfg->soc[i].emit(fdt, &cfg->soc[i]));
	return fdt_end_node(fdt);
}

static int build(const struct fdt_config *cfg, void *fdt, size_t bufsize)
{
	TRY(fdt_create(fdt, (int)bufsize));
	TRY(fdt_finish_reservemap(fdt));
	TRY(fdt_begin_node(fdt, ""));
	TRY(fdt_property_u32(fdt, "#address-cells", 2));
	TRY(fdt_property_u32(fdt, "#size-cells", 2));
	TRY(fdt_property_string(fdt, "compatible", "riscv-virtio"));
	TRY(fdt_property_string(fdt, "model", "themis,virt"));
	TRY(add_chosen(fdt, cfg));
	TRY(begin_node_at(fdt, "memory", VIRT_DRAM_BASE));
	TRY(fdt_property_string(fdt, "device_type", "memory"));
	TRY(prop_reg(fdt, VIRT_DRAM_BASE, cfg->ram_size));
	TRY(fdt_end_node(fdt));
	TRY(add_cpus(fdt));
	TRY(add_soc(fdt, cfg));
	TRY(fdt_end_node(fdt));
	TRY(fdt_finish(fdt));
	return fdt_totalsize(fdt);
}

int fdt_build(const struct fdt_config *cfg, void *buf, size_t bufsize)
{
	return build(cfg, buf, bufsize);
}
