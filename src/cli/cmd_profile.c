/* cmd_profile.c - `themis profile FS...`: per-operation I/O profiles below
 * each filesystem (src/tools/profile.h): sectors written and read cold,
 * named by structure, and the write amplification curve. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/profile.h"
#include "../tools/semantics.h"
#include "../fs/fs.h"
#include "cli.h"
#include "../util/epoch.h"

#define PROFILE_DEFAULT_MEM   (256ULL << 20)
#define PROFILE_DEFAULT_CLOCK ((uint64_t)THEMIS_EPOCH)
#define PROFILE_MAX_OPS	      256

static const char profile_help[] =
    "usage: themis profile [FS...] [--ops LIST] [--sizes LIST] [--json FILE] [--svg DIR]\n"
    "                      [--semantics] [--kernel IMAGE] [--initrd FILE] [--disk IMG]... [--mem "
    "SIZE]\n"
    "\n"
    "Boots one machine with a disk per filesystem (default: " FS_PROFILE_WORDS ", from\n"
    "build/images/), populates each (f0 of 8 KiB, d0/f1 of 64 KiB, d0, an empty e0,\n"
    "an xattr on f0), syncs, and then, for every operation, in forks of that state:\n"
    "  - the sectors the operation and a syncfs wrote, as a count and as LBA ranges\n"
    "    named by the layout map of the disk as the operation left it;\n"
    "  - the sectors it read cold, after an unmount and a mount (the mount's own\n"
    "    reads are the baseline, reported apart);\n"
    "  - write amplification: sectors written x 512 / the bytes asked to write.\n"
    "\n"
    "  --ops LIST     operation kinds (default: every kind every filesystem given\n"
    "                 supports; writes go from 1 B to 1 MiB, every power of two)\n"
    "  --sizes LIST   the write sizes instead, comma-separated bytes\n"
    "  --json FILE    the profile as JSON: per fs and operation, fs, op, bytes,\n"
    "                 sectors_written, sectors_read, written and read ([{lba,\n"
    "                 count, structure}])\n"
    "  --svg DIR      amplification.svg and layout-FS.svg (the disk's structures\n"
    "                 with each operation's writes overlaid)\n"
    "  --semantics    also the observed transition model, in forks of the same\n"
    "                 populated state under each atime mount option (strictatime,\n"
    "                 relatime, noatime), each operation 2 s of guest time after\n"
    "                 the state before: the footprint (which fields of the target,\n"
    "                 of its parent directory and of other entries it changes) and\n"
    "                 the timestamp matrix (which of atime, mtime and ctime of the\n"
    "                 target and the parent it moves); read-only operations run a\n"
    "                 second time too (relatime's case); in --json: \"semantics\"\n"
    "  --disk IMG     one image per filesystem instead of build/images/FS.img\n"
    "Exit status: 0 done, 2 bad usage or input (and the guest failing).\n";

struct profile_args {
	struct check_machine m;
	const char *fs[CHECK_MAX_FS], *disks[CHECK_MAX_FS];
	int ndisks;
	const char *ops, *sizes, *json, *svg;
	bool semantics;
	char kernel[PATH_MAX], initrd[PATH_MAX], images[CHECK_MAX_FS][PATH_MAX];
	struct rules rules; /* the filesystems' (m.rules) */
};

static int parse_option(struct profile_args *a, const char *opt, const char *given)
{
	const char *val = given ? given : ""; /* an unknown option is said first */
	if (!strcmp(opt, "--ops"))
		a->ops = val;
	else if (!strcmp(opt, "--sizes"))
		a->sizes = val;
	else if (!strcmp(opt, "--json"))
		a->json = val;
	else if (!strcmp(opt, "--svg"))
		a->svg = val;
	else if (!strcmp(opt, "--kernel"))
		snprintf(a->kernel, sizeof(a->kernel), "%s", val);
	else if (!strcmp(opt, "--initrd"))
		snprintf(a->initrd, sizeof(a->initrd), "%s", val);
	else if (!strcmp(opt, "--mem")) {
		if (!parse_size(val, &a->m.mem) || a->m.mem < (64ULL << 20))
			return usage_error("--mem needs a size of at least 64M, got '%s'", val);
	} else if (!strcmp(opt, "--disk")) {
		if (a->ndisks == CHECK_MAX_FS)
			return usage_error("at most %s disks", "4");
		a->disks[a->ndisks++] = val;
	} else
		return unknown_option(opt);
	return given ? 0 : missing_value(opt);
}

static int parse_args(int argc, char **argv, struct profile_args *a)
{
	a->m.mem = PROFILE_DEFAULT_MEM;
	a->m.clock_ns = PROFILE_DEFAULT_CLOCK * 1000000000ULL;
	a->m.durability = CHECK_DURABLE_OFF;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--semantics")) {
			a->semantics = true;
		} else if (argv[i][0] == '-') {
			int rc = parse_option(a, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
			if (rc)
				return rc;
			i++;
		} else if (!fs_known(argv[i])) {
			return unknown_fs(argv[i]);
		} else if (a->m.nfs == CHECK_MAX_FS) {
			return usage_error("at most %s filesystems at once", "4");
		} else {
			a->fs[a->m.nfs++] = argv[i];
		}
	}
	if (!a->m.nfs) {
		static const char *const defaults[] = {FS_PROFILE_DEFAULT};
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			a->fs[a->m.nfs++] = defaults[i];
	}
	if (a->ndisks && a->ndisks != a->m.nfs)
		return usage_error("give one --disk per filesystem, or none (%s)",
				   "images from build/images/");
	return 0;
}

/* Kernel, initramfs and images: given, else beside this build. */
static int resolve_files(struct profile_args *a)
{
	struct check_machine *m = &a->m;
	if (!a->kernel[0])
		default_kernel(a->kernel, sizeof(a->kernel));
	if (resolve_kernel(a->kernel, sizeof(a->kernel)))
		return EXIT_USAGE;
	if (!a->initrd[0])
		beside_exe("guest", "initramfs.cpio.gz", a->initrd, sizeof(a->initrd));
	m->kernel = a->kernel, m->initrd = a->initrd;
	for (int i = 0; i < m->nfs; i++) {
		if (resolve_image(a->fs[i], a->ndisks ? a->disks[i] : NULL, a->images[i],
				  sizeof(a->images[i])))
			return EXIT_USAGE;
		m->fs[i] = a->fs[i];
		m->images[i] = a->images[i];
	}
	m->rules = &a->rules;
	return load_rules(&a->rules, NULL, m->fs, m->nfs);
}

static int select_ops(const struct profile_args *a, struct op *ops, int max)
{
	uint32_t mask = OP_ALL_MASK & ~(OPB(REMOUNT) | OPB(SYNC));
	for (int i = 0; i < a->m.nfs; i++)
		mask &= ~rules_unsupported(&a->rules, a->fs[i]);
	if (a->ops) {
		const char *bad;
		int badlen;
		int64_t want = op_mask_parse(a->ops, &bad, &badlen);
		if (want < 0) {
			fprintf(stderr, "themis: unknown operation '%.*s' in --ops (known: %s)\n",
				badlen, bad, op_names_list());
			return -EXIT_USAGE;
		}
		mask &= (uint32_t)want;
	}
	struct op_pools sizes;
	op_pools_default(&sizes);
	if (a->sizes && op_pools_set_sizes(&sizes, a->sizes)) {
		usage_error("--sizes needs a comma list of numbers up to 2^30, got '%s'", a->sizes);
		return -EXIT_USAGE;
	}
	int n = profile_ops(mask, sizes.sizes, sizes.nsizes, ops, max);
	if (!n) {
		usage_error("%s",
			    "no operation left to profile (--ops, and what every fs supports)");
		return -EXIT_USAGE;
	}
	return n;
}

/* The profile's JSON, with "semantics" beside its keys when s is given. */
struct profile_out {
	const struct profile_result *r;
	const struct sem_result *s;
};

static void put_json(const void *obj, FILE *f)
{
	const struct profile_out *o = obj;
	if (o->s) {
		fprintf(f, "{\n");
		profile_json_members(o->r, f);
		fprintf(f, ",\n");
		semantics_json(o->s, f);
		fprintf(f, "\n}\n");
	} else {
		profile_json(o->r, f);
	}
}

static int write_json(const struct profile_result *r, const struct sem_result *s, const char *path)
{
	return write_out(path, put_json, &(struct profile_out){r, s});
}

int cmd_profile(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(profile_help, stdout);
			return 0;
		}
	static struct profile_args a;
	int rc = parse_args(argc, argv, &a);
	if (!rc)
		rc = resolve_files(&a);
	if (rc)
		return rc;
	struct op *ops = malloc(sizeof(*ops) * PROFILE_MAX_OPS);
	if (!ops)
		return EXIT_USAGE;
	int n = select_ops(&a, ops, PROFILE_MAX_OPS);
	struct profile_result r;
	char err[1024];
	if (n < 0) {
		free(ops);
		return -n;
	}
	if (profile_run(&a.m, ops, n, &r, err, sizeof(err))) {
		fprintf(stderr, "themis: profile: %s\n", err);
		profile_free(&r);
		free(ops);
		return EXIT_USAGE;
	}
	profile_print(&r, stdout);
	struct sem_result s = {0};
	if (a.semantics && semantics_run(&a.m, ops, n, &s, err, sizeof(err))) {
		fprintf(stderr, "themis: profile --semantics: %s\n", err);
		semantics_free(&s);
		profile_free(&r);
		free(ops);
		return EXIT_USAGE;
	}
	if (a.semantics)
		semantics_print(&s, stdout);
	rc = a.json ? write_json(&r, a.semantics ? &s : NULL, a.json) : 0;
	if (!rc && a.svg && profile_svg(&r, a.svg, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		rc = EXIT_USAGE;
	}
	semantics_free(&s);
	profile_free(&r);
	free(ops);
	return rc;
}
