/* main.c - the `themis` command line: one verb per capability. Today:
 *   themis bare [options] FILE.elf   run a bare-metal RV64GC program
 * Exit status of `bare`: 0 pass, the failing test number on failure,
 * 2 for bad usage or input, 124 when --max-insns stopped the program,
 * 125 when the hart waits for an interrupt that can never come. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../machine/bare.h"

#define EXIT_USAGE    2
#define EXIT_BUDGET   124
#define EXIT_DEADLOCK 125

static const char usage_text[] =
	"usage: themis <command> [options]\n"
	"\n"
	"commands:\n"
	"  bare [options] FILE.elf   run a bare-metal RV64GC ELF in M-mode until it\n"
	"                            writes its tohost word or the test finisher\n"
	"  help                      show this text\n"
	"\n"
	"bare options:\n"
	"  --max-insns N   stop after N instructions (exit status 124)\n"
	"  --mem SIZE      RAM size, e.g. 128M or 1G (default 128M)\n"
	"  --stats         print instructions, wall time and MIPS to stderr\n"
	"\n"
	"bare exit status: 0 pass; n when test n failed (tohost = n << 1 | 1);\n"
	"2 bad usage or input; 124 instruction budget exhausted; 125 hart asleep\n"
	"with no interrupt that could wake it.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "themis: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'themis help'.\n");
	return EXIT_USAGE;
}

/* Parse a decimal count; false if not a whole non-negative number. */
static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* Parse a size such as 4096, 64K, 128M, 2G. */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (errno || *end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* host clock for --stats only */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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
			return usage_error("unknown option '%s' for 'bare'", arg);
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

static int cmd_bare(int argc, char **argv)
{
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
	double t0 = now_seconds();
	enum bare_stop stop = bare_run(m, a.max_insns);
	double secs = now_seconds() - t0;
	fflush(stdout);
	uint64_t n = cpu_steps(&m->cpu);
	switch (stop) {
	case BARE_PASS: rc = 0; break;
	case BARE_FAIL:
		fprintf(stderr, "themis: %s: test %d failed\n", a.elf, m->code);
		rc = m->code;
		break;
	case BARE_BUDGET:
		fprintf(stderr, "themis: %s: stopped after %" PRIu64 " instructions (--max-insns)"
			" at pc 0x%" PRIx64 "\n", a.elf, n, m->cpu.pc);
		rc = EXIT_BUDGET;
		break;
	default:
		fprintf(stderr, "themis: %s: hart waits (wfi) at pc 0x%" PRIx64
			" with no interrupt enabled that could wake it\n", a.elf, m->cpu.pc);
		rc = EXIT_DEADLOCK;
		break;
	}
	if (a.stats)
		fprintf(stderr, "instructions %" PRIu64 "\nwall-seconds %.3f\nmips %.1f\n", n, secs,
			secs > 0 ? n / secs / 1e6 : 0.0);
	bare_free(m);
	free(m);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("%s", "missing command");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(cmd, "bare"))
		return cmd_bare(argc - 2, argv + 2);
	return usage_error("unknown command '%s'", cmd);
}
