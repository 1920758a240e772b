/* cmd_bare.c - `themis bare FILE.elf`: run a bare-metal RV64GC program on
 * the bare board until it reports through tohost or the test finisher.
 * Exit status: 0 pass, the failing test number on failure, 2 for bad usage
 * or input, 124 when --max-insns stopped the program, 125 when the hart
 * waits for an interrupt that can never come. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../machine/bare.h"
#include "cli.h"

static const char bare_help[] =
    "usage: themis bare [options] FILE.elf\n"
    "\n"
    "bare options:\n"
    "  --max-insns N   stop after N instructions (exit status 124)\n"
    "  --mem SIZE      RAM size, e.g. 128M or 1G (default 128M)\n"
    "  --stats         print instructions, wall time and MIPS to stderr\n"
    "\n"
    "bare exit status: 0 pass; n when test n failed (tohost = n << 1 | 1);\n"
    "2 bad usage or input; 124 instruction budget exhausted; 125 hart asleep\n"
    "with no interrupt that could wake it.\n";

struct bare_args {
	const char *elf;
	uint64_t max_insns, mem;
	bool stats;
};

static int parse_bare_args(int argc, char **argv, struct bare_args *a)
{
	*a = (struct bare_args){.mem = BARE_RAM_DEFAULT};
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		bool has_value = i + 1 < argc;
		if (!strcmp(arg, "--stats")) {
			a->stats = true;
		} else if (!strcmp(arg, "--max-insns")) {
			if (!has_value || !parse_u64(argv[++i], &a->max_insns) || !a->max_insns)
				return usage_error("--max-insns needs a positive count, got '%s'",
						   has_value ? argv[i] : "");
		} else if (!strcmp(arg, "--mem")) {
			if (!has_value || !parse_size(argv[++i], &a->mem) || a->mem < 4096 ||
			    a->mem % 4096 || a->mem > (64ULL << 30))
				return usage_error(
				    "--mem needs a size in 4 KiB multiples up to 64G, got '%s'",
				    has_value ? argv[i] : "");
		} else if (arg[0] == '-' && arg[1]) {
			return unknown_option(arg);
		} else if (a->elf) {
			return usage_error("'bare' takes one ELF file; extra argument '%s'", arg);
		} else {
			a->elf = arg;
		}
	}
	if (!a->elf)
		return usage_error("%s", "'bare' needs an ELF file to run");
	return 0;
}

int cmd_bare(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(bare_help, stdout);
		return 0;
	}
	struct bare_args a;
	int rc = parse_bare_args(argc, argv, &a);
	if (rc)
		return rc;
	struct bare *m = malloc(sizeof(*m));
	char err[256];
	if (!m) {
		fprintf(stderr, "themis: out of memory\n");
		return EXIT_USAGE;
	}
	if (bare_init(m, a.mem, a.elf, stdout, err, sizeof(err))) {
		fprintf(stderr, "themis: %s: %s\n", a.elf, err);
		free(m);
		return EXIT_USAGE;
	}
	double t0 = host_seconds();
	enum bare_stop stop = bare_run(m, a.max_insns);
	double secs = host_seconds() - t0;
	fflush(stdout);
	uint64_t n = cpu_steps(&m->cpu);
	switch (stop) {
	case BARE_PASS: rc = 0; break;
	case BARE_FAIL:
		fprintf(stderr, "themis: %s: test %d failed\n", a.elf, m->code);
		rc = m->code;
		break;
	case BARE_BUDGET:
		fprintf(stderr,
			"themis: %s: stopped after %" PRIu64 " instructions (--max-insns)"
			" at pc 0x%" PRIx64 "\n",
			a.elf, n, m->cpu.pc);
		rc = EXIT_BUDGET;
		break;
	default:
		fprintf(stderr,
			"themis: %s: hart waits (wfi) at pc 0x%" PRIx64
			" with no interrupt enabled that could wake it\n",
			a.elf, m->cpu.pc);
		rc = EXIT_DEADLOCK;
		break;
	}
	/* instructions: stepped (the cycle count); retired: those that did not trap */
	if (a.stats)
		fprintf(stderr,
			"instructions %" PRIu64 "\nretired %" PRIu64
			"\nwall-seconds %.3f\nmips %.1f\n",
			n, cpu_retired(&m->cpu), secs, secs > 0 ? n / secs / 1e6 : 0.0);
	bare_free(m);
	free(m);
	return rc;
}
