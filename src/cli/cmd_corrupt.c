/* cmd_corrupt.c - `themis corrupt FS...`: one bit flipped below each
 * filesystem, in a fork of a populated machine, against the unflipped
 * counterfactual (src/tools/corrupt.h): the outcome of each flip, the
 * spectrum per structure, checksummed layouts against the others. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../tools/corrupt.h"
#include "../fs/fs.h"
#include "cli.h"
#include "../util/epoch.h"

#define CORRUPT_DEFAULT_MEM   (256ULL << 20)
#define CORRUPT_DEFAULT_CLOCK ((uint64_t)THEMIS_EPOCH)
#define CORRUPT_DEFAULT_BITS  4
#define CORRUPT_MAX_BITS      10000
/* Instructions one agent command may take before the guest counts as
 * hung: a mount and a walk of the small tree take well under a tenth. */
#define CORRUPT_DEFAULT_BUDGET 3000000000ULL

static const char corrupt_help_text[] =
    "usage: themis corrupt FS... [--target STRUCT[:FIELD] | --sweep | --at LBA:BYTE:BIT]\n"
    "                     [--bits N] [--seed S] [--json FILE] [--svg DIR] [--save FILE]\n"
    "                     [--fsck-timeout SECONDS] [--budget INSNS] [--quiet] [--console]\n"
    "                     [--kernel IMAGE] [--initrd FILE] [--disk IMG]... [--mem SIZE]\n"
    "\n"
    "Boots a machine per filesystem (images from build/images/), populates it (f0 of\n"
    "8 KiB, d0/f1 of 64 KiB, d0, e0 with 24 empty files, an xattr, a symlink), syncs\n"
    "and unmounts. Then, per flip, in a fork: one bit is written into the disk's\n"
    "copy-on-write overlay (never the base image), the guest mounts the disk and\n"
    "reads the whole tree back, and the filesystem's own checker runs read-only on\n"
    "the flipped content (themis fs lists each one's; a filesystem without one is\n"
    "judged by its tree). The outcome, against the unflipped fork's tree, is the first\n"
    "of: kernel-failure (oops, BUG, panic, or a hang caught by --budget; the run\n"
    "goes on), unmountable, error-returned (EIO, EUCLEAN...), entries-lost,\n"
    "silent-wrong-data, fsck-only, none.\n"
    "\n"
    "  --target S[:F] flip bits of one structure, or one field of its records\n"
    "                 (--bits of them, default 1)\n"
    "  --sweep        every structure class of every filesystem, --bits each\n"
    "                 (default 4): the spectrum (the default without --target/--at)\n"
    "  --at L:B:BIT   the one bit BIT (0-7, 0 the lowest) of byte B (0-511) of\n"
    "                 sector L, as a flip's JSON gives them (one filesystem)\n"
    "  --save FILE    with --at: the flipped disk, as the guest mounts it (the\n"
    "                 populated image, the bit flipped), for a reproducer\n"
    "  --bits N       flips per target or class;  --seed S  which bits (default 1)\n"
    "  --json FILE    the flips: a list of {fs, structure, field, lba, byte, bit,\n"
    "                 outcome, fsck, fsck_status, fsck_said, checksummed, detail,\n"
    "                 kernel, report: a kernel report's whole text, each frame\n"
    "                 with its source line on a debug kernel, or null}\n"
    "  --svg DIR      DIR/corrupt-spectrum.svg: the outcomes' shares per structure\n"
    "  --fsck-timeout SECONDS  a checker still running then is killed (default 60)\n"
    "  --budget INSNS instructions a mount or a walk may take before the guest\n"
    "                 counts as hung (default 3e9, virtual time)\n"
    "  --quiet        no line per flip on stderr\n"
    "  --console      the guest's console on stderr (boot, populate, every flip)\n"
    "Exit status: 0 done, 1 some flip made the kernel fail (a finding: replay it\n"
    "with --at), 2 bad usage or input (an unknown structure or field, the guest\n"
    "failing before any flip).\n\n";

struct corrupt_args {
	struct corrupt_config c;
	const char *fs[CHECK_MAX_FS], *disks[CHECK_MAX_FS];
	int ndisks;
	const char *json, *svg, *at;
	bool bits_given;
	char kernel[PATH_MAX], initrd[PATH_MAX], images[CHECK_MAX_FS][PATH_MAX];
	struct rules rules; /* the filesystems' (c.m.rules) */
};

/* LBA:BYTE:BIT, byte below 512 and bit below 8. */
static int parse_at(struct corrupt_args *a, const char *val)
{
	char lba[32], byte[16], bit[16], rest;
	uint64_t l, by, bi;
	if (sscanf(val, "%31[0-9]:%15[0-9]:%15[0-9]%c", lba, byte, bit, &rest) != 3 ||
	    !parse_u64(lba, &l) || !parse_u64(byte, &by) || !parse_u64(bit, &bi) || by >= 512 ||
	    bi >= 8)
		return usage_error("--at needs LBA:BYTE:BIT (byte 0-511, bit 0-7), got '%s'", val);
	a->at = val;
	a->c.at = true;
	a->c.at_lba = l, a->c.at_byte = (unsigned)by, a->c.at_bit = (unsigned)bi;
	return 0;
}

static int parse_option(struct corrupt_args *a, const char *opt, const char *given)
{
	const char *val = given ? given : ""; /* an unknown option is said first */
	uint64_t n;
	if (!strcmp(opt, "--target")) {
		a->c.target = val;
	} else if (!strcmp(opt, "--at")) {
		return parse_at(a, val);
	} else if (!strcmp(opt, "--bits")) {
		if (!parse_u64(val, &n) || !n || n > CORRUPT_MAX_BITS)
			return usage_error("--bits needs a number from 1 to 10000, got '%s'", val);
		a->c.bits = (int)n;
		a->bits_given = true;
	} else if (!strcmp(opt, "--seed")) {
		if (!parse_u64(val, &a->c.seed))
			return usage_error("--seed needs a number, got '%s'", val);
	} else if (!strcmp(opt, "--fsck-timeout")) {
		if (!parse_u64(val, &n) || !n || n > 3600)
			return usage_error("--fsck-timeout needs 1 to 3600 seconds, got '%s'", val);
		a->c.fsck_timeout = (double)n;
	} else if (!strcmp(opt, "--budget")) {
		double d = strtod(val, NULL);
		if (d < 1e4 || d > 1e12)
			return usage_error("--budget needs 1e4 to 1e12 instructions, got '%s'",
					   val);
		a->c.budget = (uint64_t)d;
	} else if (!strcmp(opt, "--json")) {
		a->json = val;
	} else if (!strcmp(opt, "--svg")) {
		a->svg = val;
	} else if (!strcmp(opt, "--save")) {
		a->c.save = val;
	} else if (!strcmp(opt, "--kernel")) {
		snprintf(a->kernel, sizeof(a->kernel), "%s", val);
	} else if (!strcmp(opt, "--initrd")) {
		snprintf(a->initrd, sizeof(a->initrd), "%s", val);
	} else if (!strcmp(opt, "--mem")) {
		if (!parse_size(val, &a->c.m.mem) || a->c.m.mem < (64ULL << 20))
			return usage_error("--mem needs a size of at least 64M, got '%s'", val);
	} else if (!strcmp(opt, "--disk")) {
		if (a->ndisks == CHECK_MAX_FS)
			return usage_error("at most %s disks", "4");
		a->disks[a->ndisks++] = val;
	} else {
		return unknown_option(opt);
	}
	return given ? 0 : missing_value(opt);
}

static int parse_args(int argc, char **argv, struct corrupt_args *a)
{
	struct check_machine *m = &a->c.m;
	m->mem = CORRUPT_DEFAULT_MEM;
	m->clock_ns = CORRUPT_DEFAULT_CLOCK * 1000000000ULL;
	m->durability = CHECK_DURABLE_OFF;
	a->c.budget = CORRUPT_DEFAULT_BUDGET;
	m->warnings = true; /* the kernel's complaints about the flip, in "kernel" */
	a->c.seed = 1;
	a->c.fsck_timeout = 60;
	a->c.progress = true;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--sweep")) {
			a->c.sweep = true;
		} else if (!strcmp(argv[i], "--quiet")) {
			a->c.progress = false;
		} else if (!strcmp(argv[i], "--console")) {
			m->console = stderr;
		} else if (argv[i][0] == '-') {
			int rc = parse_option(a, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
			if (rc)
				return rc;
			i++;
		} else if (!fs_known(argv[i])) {
			return unknown_fs(argv[i]);
		} else if (m->nfs == CHECK_MAX_FS) {
			return usage_error("at most %s filesystems at once", "4");
		} else {
			a->fs[m->nfs++] = argv[i];
		}
	}
	if (!m->nfs)
		return usage_error(
		    "%s", "name the filesystems to corrupt (e.g. themis corrupt " FS_EXPLORE_WORDS
			  " --sweep)");
	if ((a->c.sweep + !!a->c.target + a->c.at) > 1)
		return usage_error("%s", "give one of --target, --sweep and --at");
	if (a->c.at && m->nfs != 1)
		return usage_error("%s", "--at places a bit on one filesystem's disk: name one");
	if (a->c.save && !a->c.at)
		return usage_error("%s", "--save keeps one flipped disk: give --at LBA:BYTE:BIT");
	a->c.sweep = !a->c.target && !a->c.at;
	if (!a->bits_given)
		a->c.bits = a->c.sweep ? CORRUPT_DEFAULT_BITS : 1;
	if (a->ndisks && a->ndisks != m->nfs)
		return usage_error("give one --disk per filesystem, or none (%s)",
				   "images from build/images/");
	return 0;
}

/* Kernel, initramfs and images: given, else beside this build. */
static int resolve_files(struct corrupt_args *a)
{
	struct check_machine *m = &a->c.m;
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
	struct stat st;
	if (a->c.at && !stat(m->images[0], &st) && a->c.at_lba >= (uint64_t)st.st_size / 512)
		return usage_error("--at %s lies past the end of the disk", a->at);
	m->rules = &a->rules;
	return load_rules(&a->rules, NULL, m->fs, m->nfs);
}

static void put_json(const void *r, FILE *f)
{
	corrupt_json(r, f);
}

static int write_json(const struct corrupt_result *r, const char *path)
{
	return write_out(path, put_json, r);
}

int cmd_corrupt(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(corrupt_help_text, stdout);
			corrupt_target_help(stdout);
			return 0;
		}
	static struct corrupt_args a;
	int rc = parse_args(argc, argv, &a);
	if (!rc)
		rc = resolve_files(&a);
	if (rc)
		return rc;
	char err[1024];
	if (corrupt_validate(&a.c, err, sizeof(err))) {
		fprintf(stderr, "themis: corrupt: %s\n", err);
		return EXIT_USAGE;
	}
	struct corrupt_result r;
	if (corrupt_run(&a.c, &r, err, sizeof(err))) {
		fprintf(stderr, "themis: corrupt: %s\n", err);
		corrupt_free(&r);
		return EXIT_USAGE;
	}
	corrupt_print(&r, stdout);
	rc = a.json ? write_json(&r, a.json) : 0;
	if (!rc && a.svg && corrupt_svg(&r, a.svg, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		rc = EXIT_USAGE;
	}
	for (int k = 0; k < r.n && !rc; k++)
		if (r.f[k].outcome == CORRUPT_KERNEL)
			rc = EXIT_FINDING;
	corrupt_free(&r);
	return rc;
}
