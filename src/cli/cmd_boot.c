/* cmd_boot.c - `themis boot`: build the Linux board, boot the kernel to the
 * guest agent and stop when it reports ready (or, with --script, let it run
 * its fixed filesystem script and power off). Exit status: 0 when the agent
 * was reached (and, with --script, the guest powered off), 1 when the guest
 * panicked, hung, ran out of budget or stopped early, 2 for bad usage or
 * input. */
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../proto/doorbell.h"
#include "../fs/fs.h"
#include "../machine/snapshot.h"
#include "../machine/virt.h"
#include "cli.h"

#define BOOT_DEFAULT_MEM       (256ULL << 20)
#define BOOT_DEFAULT_CLOCK     "2026-01-01T00:00:00Z"
#define BOOT_DEFAULT_MAX_INSNS 40000000000ULL
#define BOOT_CMDLINE_MAX       1024

static const char boot_help[] =
    "usage: themis boot [options]\n"
    "\n"
    "boot options:\n"
    "  --kernel IMAGE      a RISC-V Linux Image (default: $THEMIS_KERNEL if set,\n"
    "                      else build/guest/Image)\n"
    "  --initrd FILE       initramfs (default: build/guest/initramfs.cpio.gz)\n"
    "  --disk IMG[,ro]     a virtio-blk disk (repeatable, up to 8); the base image\n"
    "                      is never written: the guest writes to a private copy\n"
    "  --append ARGS       more kernel command line (themis.fs= is added from the\n"
    "                      filesystems found on the disks)\n"
    "  --mem SIZE          RAM (default 256M)\n"
    "  --clock T           wall clock at power-on: 2026-01-01T00:00:00Z (default),\n"
    "                      @SECONDS, or 'host' (nondeterministic)\n"
    "  --seed N            seed of the guest's random numbers (default 0)\n"
    "  --max-insns N       give up after N instructions (default 40e9)\n"
    "  --script            let the agent run its filesystem script, then power off\n"
    "  --list              let the agent list t/ on every disk, then power off\n"
    "  --save-disks DIR    write each disk's final content to DIR/diskN.img\n"
    "  --save FILE         boot to the agent's command loop and save the machine\n"
    "  --load FILE         start from a saved machine instead of booting (the\n"
    "                      disks must be the same base images; --disk may name\n"
    "                      them, else the paths saved in FILE are used)\n"
    "  --stats             print instructions, time, MIPS and a hash of RAM\n"
    "\n"
    "boot exit status: 0 agent reached; 1 the guest panicked, hung or stopped\n"
    "early; 2 bad usage or input.\n";

struct boot_args {
	struct virt_config cfg;
	const char *save_dir;
	const char *save, *load; /* --save / --load snapshot files */
	uint64_t max_insns;
	bool stats;
	char kernel[PATH_MAX], initrd[PATH_MAX];
	char cmdline[BOOT_CMDLINE_MAX];
	const char *user_append;
};

static int parse_disk(struct boot_args *a, char *spec)
{
	struct virt_config *cfg = &a->cfg;
	if (cfg->ndisks == VIRT_MAX_DISKS)
		return usage_error("too many disks: the board has %s virtio slots", "8");
	char *comma = strchr(spec, ',');
	bool ro = false;
	if (comma) {
		if (strcmp(comma, ",ro") != 0)
			return usage_error("unknown disk option in '%s' (only ',ro')", spec);
		*comma = 0;
		ro = true;
	}
	cfg->disks[cfg->ndisks++] = (struct virt_disk_config){spec, ro};
	return 0;
}

static int parse_option(struct boot_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	struct virt_config *cfg = &a->cfg;
	if (!strcmp(arg, "--stats")) {
		a->stats = true;
		return 0;
	}
	if (!strcmp(arg, "--script") || !strcmp(arg, "--list")) {
		cfg->next = arg[2] == 's' ? DB_NEXT_SCRIPT : DB_NEXT_LIST;
		return 0;
	}
	static const char *const with_value[] = {"--kernel",	 "--initrd", "--disk",	"--append",
						 "--save-disks", "--mem",    "--clock", "--seed",
						 "--max-insns",	 "--save",   "--load"};
	bool known = false;
	for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
		known |= !strcmp(arg, with_value[k]);
	if (!known)
		return unknown_option(arg);
	if (!val)
		return missing_value(arg);
	(*i)++;
	if (!strcmp(arg, "--kernel"))
		snprintf(a->kernel, sizeof(a->kernel), "%s", val);
	else if (!strcmp(arg, "--initrd"))
		snprintf(a->initrd, sizeof(a->initrd), "%s", val);
	else if (!strcmp(arg, "--disk"))
		return parse_disk(a, argv[*i]);
	else if (!strcmp(arg, "--append"))
		a->user_append = val;
	else if (!strcmp(arg, "--save-disks"))
		a->save_dir = val;
	else if (!strcmp(arg, "--save"))
		a->save = val;
	else if (!strcmp(arg, "--load"))
		a->load = val;
	else if (!strcmp(arg, "--mem")) {
		if (!parse_size(val, &cfg->mem) || cfg->mem < VIRT_MEM_MIN ||
		    cfg->mem % (1ULL << 20) || cfg->mem > VIRT_MEM_MAX)
			return usage_error("--mem needs a size in MiB from 16M to 16G, got '%s'",
					   val);
	} else if (!strcmp(arg, "--clock")) {
		if (!strcmp(val, "host"))
			cfg->clock_host = true;
		else if (!parse_clock(val, &cfg->clock_ns))
			return usage_error("--clock needs " CLOCK_FORMS ", or 'host', got '%s'",
					   val);
	} else if (!strcmp(arg, "--seed")) {
		if (!parse_u64(val, &cfg->seed))
			return usage_error("--seed needs a whole number, got '%s'", val);
	} else if (!strcmp(arg, "--max-insns")) {
		if (!parse_u64(val, &a->max_insns) || !a->max_insns)
			return usage_error("--max-insns needs a positive count, got '%s'", val);
	} else {
		return unknown_option(arg);
	}
	return 0;
}

/* console=ttyS0 panic=-1 [user's] themis.fs=<detected types>. */
static int build_cmdline(struct boot_args *a)
{
	struct virt_config *cfg = &a->cfg;
	char fs[256] = "";
	size_t used = 0;
	for (int i = 0; i < cfg->ndisks; i++) {
		const char *t = fs_detect(cfg->disks[i].path);
		used += (size_t)snprintf(fs + used, sizeof(fs) - used, "%s%s", i ? "," : "",
					 t ? t : "none");
		if (used >= sizeof(fs))
			return usage_error("%s", "too many disks for the command line");
	}
	const char *user = a->user_append ? a->user_append : "";
	bool has_fs = strstr(user, "themis.fs=") != NULL;
	int n = snprintf(a->cmdline, sizeof(a->cmdline), "console=ttyS0 panic=-1%s%s%s%s",
			 *user ? " " : "", user, cfg->ndisks && !has_fs ? " themis.fs=" : "",
			 cfg->ndisks && !has_fs ? fs : "");
	if (n < 0 || (size_t)n >= sizeof(a->cmdline))
		return usage_error("%s", "kernel command line too long");
	cfg->append = a->cmdline;
	return 0;
}

static int parse_boot_args(int argc, char **argv, struct boot_args *a)
{
	memset(a, 0, sizeof(*a));
	a->cfg.mem = BOOT_DEFAULT_MEM;
	a->max_insns = BOOT_DEFAULT_MAX_INSNS;
	if (!parse_clock(BOOT_DEFAULT_CLOCK, &a->cfg.clock_ns))
		return EXIT_USAGE;
	default_kernel(a->kernel, sizeof(a->kernel));
	beside_exe("guest", "initramfs.cpio.gz", a->initrd, sizeof(a->initrd));
	for (int i = 0; i < argc; i++) {
		int rc = argv[i][0] == '-' ? parse_option(a, argc, argv, &i)
					   : usage_error("unexpected argument '%s'", argv[i]);
		if (rc)
			return rc;
	}
	if (!a->load && resolve_kernel(a->kernel, sizeof(a->kernel)))
		return EXIT_USAGE;
	a->cfg.kernel = a->kernel;
	a->cfg.initrd = a->initrd[0] ? a->initrd : NULL;
	a->cfg.console = stdout;
	if (a->save && (a->cfg.next || a->load))
		return usage_error("%s", "--save keeps the machine at the agent's command loop: "
					 "it goes with neither --script, --list nor --load");
	a->cfg.wait = a->save != NULL;
	return build_cmdline(a);
}

static int save_disks(struct virt *v, const char *dir)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "themis: %s: cannot create: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < v->ndisks; i++) {
		char path[PATH_MAX], err[256];
		snprintf(path, sizeof(path), "%s/disk%d.img", dir, i);
		if (disk_save(&v->disks[i], path, err, sizeof(err))) {
			fprintf(stderr, "themis: %s: %s\n", path, err);
			return -1;
		}
	}
	return 0;
}

/* Report how the run ended; returns the exit status. */
static int report_stop(struct virt *v, const struct boot_args *a, enum virt_stop stop)
{
	bool ok = stop == VIRT_READY || stop == VIRT_WAITING ||
		  (a->cfg.next && stop == VIRT_POWEROFF && v->ready_report[0]);
	if (v->dev.panic_at) { /* whatever came after (panic=-1 reboots) */
		stop = VIRT_PANIC;
		v->stop_detail[0] = 0;
		ok = false;
	}
	if (ok) {
		fprintf(stderr, "themis: %s after %" PRIu64 " instructions: %s\n",
			virt_stop_name(stop), cpu_steps(&v->cpu), v->ready_report);
		return 0;
	}
	fprintf(stderr,
		"themis: boot failed: %s%s%s (after %" PRIu64 " instructions, pc 0x%" PRIx64 ")\n",
		virt_stop_name(stop), v->stop_detail[0] ? ": " : "", v->stop_detail,
		cpu_steps(&v->cpu), v->cpu.pc);
	fprintf(stderr, "themis: last console lines:\n");
	virt_print_last_lines(v, stderr, 10);
	return EXIT_FINDING;
}

/* A loaded machine waits at the agent's command loop: give it what
 * --script or --list asks, then power off; without either, stay there. */
static enum virt_stop run_loaded(struct virt *v, const struct boot_args *a)
{
	if (!a->cfg.next)
		return VIRT_WAITING;
	snprintf(v->ready_report, sizeof(v->ready_report), "loaded from %.200s", a->load);
	virt_command(v, a->cfg.next == DB_NEXT_SCRIPT ? "script" : "list");
	if (virt_run(v, a->max_insns) != VIRT_WAITING)
		return v->stop;
	virt_command(v, "poweroff");
	return virt_run(v, a->max_insns);
}

int cmd_boot(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(boot_help, stdout);
		return 0;
	}
	struct boot_args a;
	int rc = parse_boot_args(argc, argv, &a);
	if (rc)
		return rc;
	struct virt *v = malloc(sizeof(*v));
	char err[512];
	if (!v) {
		fprintf(stderr, "themis: out of memory\n");
		return EXIT_USAGE;
	}
	if (a.load ? virt_load(v, &a.cfg, a.load, err, sizeof(err))
		   : virt_init(v, &a.cfg, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		free(v);
		return EXIT_USAGE;
	}
	double t0 = host_seconds();
	uint64_t steps0 = cpu_steps(&v->cpu);
	enum virt_stop stop = a.load ? run_loaded(v, &a) : virt_run(v, a.max_insns);
	double secs = host_seconds() - t0;
	fflush(stdout);
	rc = report_stop(v, &a, stop);
	if (rc == 0 && a.save) {
		if (virt_save(v, &a.cfg, a.save, err, sizeof(err))) {
			fprintf(stderr, "themis: %s\n", err);
			rc = EXIT_USAGE;
		} else {
			fprintf(stderr, "themis: machine saved to %s\n", a.save);
		}
	}
	if (a.stats) {
		char hash[33];
		uint64_t n = cpu_steps(&v->cpu) - steps0; /* this run's, after a --load */
		if (virt_ram_hash(v, hash) && rc == 0)
			rc = EXIT_USAGE; /* as any other out of memory */
		fprintf(stderr,
			"instructions %" PRIu64 "\nwall-seconds %.3f\nmips %.1f\nram-hash %s\n"
			"timer-late %" PRIu64 "\n",
			n, secs, secs > 0 ? n / secs / 1e6 : 0.0, hash, v->timer_late);
	}
	if (a.save_dir && save_disks(v, a.save_dir))
		rc = EXIT_USAGE;
	virt_free(v);
	free(v);
	return rc;
}
