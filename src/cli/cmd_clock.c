/* cmd_clock.c - `themis clock`: what every filesystem can store of time
 * (src/tools/clock.c, the sweep), and `themis clock --raw IMG NAME INO`:
 * one file's mtime as stored on an image (src/format/rawtime.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include "../fs/fs.h"
#include "../tools/clock.h"
#include "../format/rawtime.h"
#include "../util/clock.h"
#include "../util/epoch.h"
#include "../check/rules.h"
#include "cli.h"

#define CLOCK_DEFAULT_MEM (256ULL << 20)

static const char clock_help[] =
    "usage: themis clock [VARIANT|DRIVER...] [--times LIST] [--json FILE] [--declare D]\n"
    "                    [--kernel IMAGE] [--initrd FILE] [--mem SIZE]\n"
    "       themis clock --raw IMG NAME INO\n"
    "\n"
    "The time-range table: for every on-disk variant (default: all; a driver\n"
    "name picks every variant it mounts), make a fresh image with its mkfs line,\n"
    "boot it, and for each adversarial instant set a new file's times with\n"
    "utimensat, and separately set the clock and create a file; read stat\n"
    "before and after a remount, and the stored fields from the image below\n"
    "the filesystem. Prints, as Markdown: the smallest and largest second\n"
    "stored exactly, the granularity, what happens past either end (clamp,\n"
    "wrap, error), whether a remount or the raw fields disagree with stat,\n"
    "and whether it all matches what Linux 6.1 declares for the variant;\n"
    "then the kernel's mount warnings about time.\n"
    "\n"
    "  --times LIST   comma list of instants (default: all): INSTANTS\n"
    "  --declare VARIANT:gran=NS,min=S,max=S\n"
    "                 judge VARIANT against these limits instead of what\n"
    "                 Linux 6.1 declares (repeatable)\n"
    "  --json FILE    the table as JSON: one object per variant with driver,\n"
    "                 mkfs, max_seconds, min_seconds, granularity_ns,\n"
    "                 behaviour and stored (per instant and way: set, stat\n"
    "                 before and after the remount, raw fields)\n"
    "  --raw IMG NAME INO   the mtime of the file NAME (root directory, inode\n"
    "                 number INO) as stored on the image IMG: the raw fields and\n"
    "                 the time they decode to, then the ctime likewise where the\n"
    "                 format stores one (not the FAT family); IMG is only read\n"
    "\n"
    "variants: VARIANTS\n"
    "\n"
    "exit status: 0 every variant behaves as declared; 1 some variant does not\n"
    "(the table says where); 2 bad usage, or a variant that could not run.\n";

/* --raw IMG NAME INO */
static int clock_raw(int argc, char **argv)
{
	uint64_t ino;
	if (argc != 3)
		return usage_error("%s", "--raw needs IMG NAME INO");
	if (!parse_u64(argv[2], &ino))
		return usage_error("--raw: INO must be an inode number, got '%s'", argv[2]);
	char err[256];
	uint64_t size;
	int fd = layout_open_file(argv[0], &size, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "themis: %s: %s\n", argv[0], err);
		return EXIT_USAGE;
	}
	const char *fs = fs_detect(argv[0]);
	struct rawtime t;
	int rc =
	    fs ? rawtime_mtime(fs, layout_read_fd, &fd, size, argv[1], ino, &t, err, sizeof(err))
	       : -1;
	close(fd);
	if (!fs)
		snprintf(err, sizeof(err), "not a filesystem Themis knows");
	else if (rc > 0)
		snprintf(err, sizeof(err), "%s: no raw-time parser for this format", fs);
	if (rc) {
		fprintf(stderr, "themis: %s: %s\n", argv[0], err);
		return EXIT_USAGE;
	}
	printf("%s %s mtime=%lld.%09u %s", fs, argv[1], (long long)t.sec, t.nsec, t.fields);
	if (t.have_ctime)
		printf(" ctime=%lld.%09u %s", (long long)t.csec, t.cnsec, t.cfields);
	printf("\n");
	return 0;
}

/* The help with its lists filled in from the tables. */
static void print_help(void)
{
	const char *h = clock_help;
	const char *ins = strstr(h, "INSTANTS"), *var = strstr(h, "VARIANTS");
	fwrite(h, 1, (size_t)(ins - h), stdout);
	for (int i = 0; i < clock_ninstants; i++)
		printf("%s%s (%s)", i ? ", " : "", clock_instants[i].name, clock_instants[i].arg);
	fwrite(ins + 8, 1, (size_t)(var - ins - 8), stdout);
	for (int i = 0; i < clock_variant_count(); i++)
		printf("%s%s", i ? ", " : "", clock_variant_at(i)->name);
	fputs(var + 8, stdout);
}

struct clock_args {
	char *names[64];
	int nnames;
	const char *times, *json;
	const char *declare[8]; /* --declare VARIANT:key=value,... */
	int ndeclare;
	bool instants[CLOCK_MAX_TRIES];
	struct check_machine m;
	char kernel[PATH_MAX], initrd[PATH_MAX];
	struct rules rules; /* every driver's, for the fields the agent ignores */
};

static int parse_instants(const char *list, bool *on)
{
	memset(on, 0, sizeof(bool) * CLOCK_MAX_TRIES);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		int k = 0;
		while (k < clock_ninstants && (strlen(clock_instants[k].name) != n ||
					       strncmp(p, clock_instants[k].name, n)))
			k++;
		if (k == clock_ninstants) {
			fprintf(stderr,
				"themis: unknown instant '%.*s' in --times (themis clock --help)\n",
				(int)n, p);
			return EXIT_USAGE;
		}
		on[k] = true;
		p += n + (p[n] == ',');
	}
	return 0;
}

static int declared(const struct clock_args *a, const struct clock_variant *v,
		    struct clock_variant *out);

static int parse_clock_args(int argc, char **argv, struct clock_args *a)
{
	a->m.mem = CLOCK_DEFAULT_MEM;
	a->m.clock_ns = (uint64_t)THEMIS_EPOCH * 1000000000ULL;
	a->m.durability = CHECK_DURABLE_OFF;
	for (int i = 0; i < argc; i++) {
		/* "" for a missing value, so that an unknown option is said first */
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : "";
		if (opt[0] != '-') {
			if (a->nnames == 64)
				return usage_error("%s", "too many variants named");
			a->names[a->nnames++] = argv[i];
			continue;
		}
		i++;
		if (!strcmp(opt, "--times"))
			a->times = val;
		else if (!strcmp(opt, "--json"))
			a->json = val;
		else if (!strcmp(opt, "--declare")) {
			if (a->ndeclare == 8)
				return usage_error("%s", "at most 8 --declare");
			a->declare[a->ndeclare++] = val;
		} else if (!strcmp(opt, "--kernel"))
			snprintf(a->kernel, sizeof(a->kernel), "%s", val);
		else if (!strcmp(opt, "--initrd"))
			snprintf(a->initrd, sizeof(a->initrd), "%s", val);
		else if (!strcmp(opt, "--mem")) {
			if (!parse_size(val, &a->m.mem) || a->m.mem < (64ULL << 20))
				return usage_error("--mem needs a size of at least 64M, got '%s'",
						   val);
		} else
			return unknown_option(opt);
		if (i == argc)
			return missing_value(opt);
	}
	if (a->times && parse_instants(a->times, a->instants))
		return EXIT_USAGE;
	for (int k = 0; k < a->ndeclare; k++) { /* each names a variant, and parses */
		struct clock_variant v;
		int i = 0;
		while (i < clock_variant_count() &&
		       (strncmp(a->declare[k], clock_variant_at(i)->name,
				strlen(clock_variant_at(i)->name)) ||
			a->declare[k][strlen(clock_variant_at(i)->name)] != ':'))
			i++;
		if (i == clock_variant_count())
			return usage_error("--declare names no variant: '%s'", a->declare[k]);
		if (declared(a, clock_variant_at(i), &v))
			return EXIT_USAGE;
	}
	if (!a->kernel[0])
		default_kernel(a->kernel, sizeof(a->kernel));
	if (!a->initrd[0])
		beside_exe("guest", "initramfs.cpio.gz", a->initrd, sizeof(a->initrd));
	a->m.kernel = a->kernel, a->m.initrd = a->initrd;
	const char *drivers[64];
	int ndrivers = 0;
	for (int i = 0; i < clock_variant_count() && ndrivers < 64; i++)
		drivers[ndrivers++] = clock_variant_at(i)->driver;
	if (load_rules(&a->rules, NULL, drivers, ndrivers))
		return EXIT_USAGE;
	a->m.rules = &a->rules;
	if (resolve_kernel(a->kernel, sizeof(a->kernel)))
		return EXIT_USAGE;
	if (access(a->initrd, R_OK)) {
		fprintf(stderr, "themis: %s: cannot read: %s (make guest builds it)\n", a->initrd,
			strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* The variant as declared, with every --declare for it applied: "ext4-256:max=2147483647,gran=1".
 * 0, or EXIT_USAGE for a malformed one. */
static int declared(const struct clock_args *a, const struct clock_variant *v,
		    struct clock_variant *out)
{
	*out = *v;
	size_t n = strlen(v->name);
	for (int i = 0; i < a->ndeclare; i++) {
		const char *d = a->declare[i];
		if (strncmp(d, v->name, n) || d[n] != ':')
			continue;
		for (const char *p = d + n + 1; *p;) {
			char key[8];
			long long val;
			int used = 0;
			if (sscanf(p, "%7[a-z]=%lld%n", key, &val, &used) != 2 ||
			    (strcmp(key, "gran") && strcmp(key, "min") && strcmp(key, "max")) ||
			    (!strcmp(key, "gran") && val < 1))
				return usage_error(
				    "--declare needs VARIANT:gran=NS,min=S,max=S, got '%s'", d);
			if (!strcmp(key, "gran"))
				out->gran_ns = (uint64_t)val;
			else if (!strcmp(key, "min"))
				out->tmin = val;
			else
				out->tmax = val;
			p += used;
			p += *p == ',';
		}
	}
	return 0;
}

struct clock_out {
	const struct clock_result *r;
	int n;
};

static void put_json(const void *obj, FILE *f)
{
	const struct clock_out *o = obj;
	clock_json(o->r, o->n, f);
}

static int write_json(const char *path, const struct clock_result *r, int n)
{
	return write_out(path, put_json, &(struct clock_out){r, n});
}

static int clock_sweep(struct clock_args *a)
{
	bool selected[64];
	char err[256];
	if (clock_select(a->names, a->nnames, selected, err, sizeof(err)))
		return usage_error("%s (themis clock --help lists them)", err);
	char tmp[] = "/tmp/themis-clock.XXXXXX";
	struct clock_result *r = calloc((size_t)clock_variant_count(), sizeof(*r));
	struct clock_variant *vars = calloc((size_t)clock_variant_count(), sizeof(*vars));
	if (!r || !vars || !mkdtemp(tmp)) {
		fprintf(stderr, "themis: clock: %s\n",
			r && vars ? strerror(errno) : "out of memory");
		free(r);
		free(vars);
		return EXIT_USAGE;
	}
	int n = 0, rc = 0;
	double t0 = host_seconds();
	for (int i = 0; i < clock_variant_count() && !rc; i++) {
		if (!selected[i])
			continue;
		fprintf(stderr, "clock: %-14s ", clock_variant_at(i)->name);
		fflush(stderr);
		if (declared(a, clock_variant_at(i), &vars[n])) {
			rc = -1;
			snprintf(err, sizeof(err), "bad --declare");
			break;
		}
		rc = clock_run(&a->m, &vars[n], a->times ? a->instants : NULL, tmp, &r[n], err,
			       sizeof(err));
		fprintf(stderr, "%s (%.1f s)\n",
			rc		  ? err
			: r[n].refused[0] ? r[n].refused
			: r[n].consistent ? "as declared"
					  : "NOT as declared",
			r[n].seconds);
		n += !rc;
	}
	rmdir(tmp);
	if (rc) {
		free(r);
		free(vars);
		return EXIT_USAGE;
	}
	fprintf(stderr, "clock: %d variants in %.1f s\n", n, host_seconds() - t0);
	clock_markdown(r, n, stdout);
	int status = a->json ? write_json(a->json, r, n) : 0;
	for (int i = 0; i < n && !status; i++)
		if (r[i].mounted && !r[i].consistent)
			status = 1;
	for (int i = 0; i < n && !status; i++)
		if (!r[i].mounted && strstr(r[i].refused, "failed"))
			status = EXIT_USAGE;
	free(r);
	free(vars);
	return status;
}

int cmd_clock(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_help();
			return 0;
		}
	if (argc >= 1 && !strcmp(argv[0], "--raw"))
		return clock_raw(argc - 1, argv + 1);
	struct clock_args a;
	memset(&a, 0, sizeof(a));
	int rc = parse_clock_args(argc, argv, &a);
	return rc ? rc : clock_sweep(&a);
}
