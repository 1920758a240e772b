/* cmd_explore.c - `themis explore FS FS...`: the differential model checker
 * (src/check/), and `themis replay TRACE`, which re-runs a recorded trace.
 * Exit status as diff has it: 0 no discrepancy, 1 at least one, 2 usage or
 * setup errors. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check/check.h"
#include "../check/trace.h"
#include "../disk/fstype.h"
#include "cli.h"

#define EXPLORE_DEFAULT_DEPTH  3
#define EXPLORE_DEFAULT_BRANCH 6
#define EXPLORE_DEFAULT_MEM    (256ULL << 20)
#define EXPLORE_DEFAULT_CLOCK  1767225600ULL /* 2026-01-01T00:00:00Z */

struct explore_args {
	struct check_config cfg;
	char kernel[PATH_MAX], initrd[PATH_MAX], images[CHECK_MAX_FS][PATH_MAX];
	const char *disks[CHECK_MAX_FS];
	int ndisks;
	const char *ops;
	char paths[4096]; /* storage for the --paths pool */
};

static int parse_value(struct explore_args *a, const char *opt, const char *val)
{
	struct check_config *c = &a->cfg;
	uint64_t u;
	if (!strcmp(opt, "--depth")) {
		if (!parse_u64(val, &u) || u < 1 || u > CHECK_MAX_DEPTH)
			return usage_error("--depth needs a number from 1 to 64, got '%s'", val);
		c->depth = (int)u;
	} else if (!strcmp(opt, "--seed")) {
		if (!parse_u64(val, &c->seed))
			return usage_error("--seed needs a whole number, got '%s'", val);
	} else if (!strcmp(opt, "--machine-seed")) {
		if (!parse_u64(val, &c->m.machine_seed))
			return usage_error("--machine-seed needs a whole number, got '%s'", val);
	} else if (!strcmp(opt, "--branch")) {
		if (!strcmp(val, "all"))
			c->branch = 0;
		else if (!parse_u64(val, &u) || u < 1 || u > 1000)
			return usage_error(
			    "--branch needs a number from 1 to 1000 or 'all', got '%s'", val);
		else
			c->branch = (int)u;
	} else if (!strcmp(opt, "--swarm")) {
		if (!parse_u64(val, &u) || u < 1 || u > 100000)
			return usage_error(
			    "--swarm needs a number of members from 1 to 100000, got '%s'", val);
		c->swarm = (int)u;
	} else if (!strcmp(opt, "--paths")) {
		snprintf(a->paths, sizeof(a->paths), "%s", val);
		if (op_pools_set_paths(&c->pools, a->paths))
			return usage_error("--paths needs a comma list of relative paths (dirs end "
					   "in /), at most 32 of each, got '%s'",
					   val);
	} else if (!strcmp(opt, "--sizes")) {
		if (op_pools_set_sizes(&c->pools, val))
			return usage_error(
			    "--sizes needs a comma list of numbers up to 2^30, got '%s'", val);
	} else if (!strcmp(opt, "--max-states")) {
		if (!parse_u64(val, &c->max_states) || !c->max_states)
			return usage_error("--max-states needs a positive count, got '%s'", val);
	} else if (!strcmp(opt, "--op-budget")) {
		if (!parse_u64(val, &c->m.op_budget) || !c->m.op_budget)
			return usage_error(
			    "--op-budget needs a positive instruction count, got '%s'", val);
	} else if (!strcmp(opt, "--load")) {
		c->m.load = val;
	} else if (!strcmp(opt, "--ops")) {
		a->ops = val;
	} else if (!strcmp(opt, "--out")) {
		c->out_dir = val;
	} else if (!strcmp(opt, "--kernel")) {
		snprintf(a->kernel, sizeof(a->kernel), "%s", val);
	} else if (!strcmp(opt, "--initrd")) {
		snprintf(a->initrd, sizeof(a->initrd), "%s", val);
	} else if (!strcmp(opt, "--disk")) {
		if (a->ndisks == CHECK_MAX_FS)
			return usage_error("at most %s disks", "4");
		a->disks[a->ndisks++] = val;
	} else if (!strcmp(opt, "--mem")) {
		if (!parse_size(val, &c->m.mem) || c->m.mem < (64ULL << 20) || c->m.mem % (1 << 20))
			return usage_error("--mem needs a size in MiB, at least 64M, got '%s'",
					   val);
	} else if (!strcmp(opt, "--clock")) {
		if (!parse_clock(val, &c->m.clock_ns))
			return usage_error(
			    "--clock needs YYYY-MM-DDTHH:MM:SSZ or @SECONDS, got '%s'", val);
	} else {
		return usage_error("unknown option '%s' for 'explore'", opt);
	}
	return 0;
}

static int parse_flag(struct explore_args *a, const char *opt)
{
	struct check_config *c = &a->cfg;
	if (!strcmp(opt, "--time"))
		c->m.time = true;
	else if (!strcmp(opt, "--stop-on-first"))
		c->stop_on_first = true;
	else if (!strcmp(opt, "--minimize"))
		c->minimize = true;
	else if (!strcmp(opt, "--quiet"))
		c->progress = false;
	else if (!strcmp(opt, "--verbose"))
		c->verbose = true;
	else if (!strcmp(opt, "--baseline-remount"))
		c->baseline = true;
	else
		return -1;
	return 0;
}

/* Build BUILD/images/FS.img with the repository's image builder, found
 * beside the build folder (BUILD/../scripts/mkimages.sh). */
static void build_image(const char *fs)
{
	char script[PATH_MAX], build[PATH_MAX], cmd[3 * PATH_MAX];
	beside_exe("..", "scripts/mkimages.sh", script, sizeof(script));
	beside_exe(".", "", build, sizeof(build));
	if (access(script, X_OK) != 0 || strchr(script, '\'') || strchr(build, '\''))
		return;
	fprintf(stderr, "themis: building the %s image with scripts/mkimages.sh\n", fs);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' %s >&2", script, build, fs);
	if (system(cmd) != 0)
		fprintf(stderr, "themis: scripts/mkimages.sh could not build the %s image\n", fs);
}

/* Images: --disk as given, else BUILD/images/FS.img (built if missing);
 * each must hold its fs. */
static int resolve_images(struct explore_args *a)
{
	struct check_machine *m = &a->cfg.m;
	if (a->ndisks && a->ndisks != m->nfs)
		return usage_error("give one --disk per filesystem, or none (%s)",
				   "images from build/images/");
	for (int i = 0; i < m->nfs; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s.img", m->fs[i]);
		if (a->ndisks)
			snprintf(a->images[i], sizeof(a->images[i]), "%s", a->disks[i]);
		else
			beside_exe("images", name, a->images[i], sizeof(a->images[i]));
		if (!a->ndisks && access(a->images[i], R_OK) != 0)
			build_image(m->fs[i]);
		if (access(a->images[i], R_OK) != 0) {
			fprintf(stderr,
				"themis: %s: cannot read the %s image (make guest builds them)\n",
				a->images[i], m->fs[i]);
			return EXIT_USAGE;
		}
		const char *t = fstype_detect(a->images[i]);
		if (!t || strcmp(t, m->fs[i])) {
			fprintf(stderr,
				"themis: %s holds %s, not %s (too small, damaged, or another "
				"filesystem)\n",
				a->images[i], t ? t : "no filesystem Themis knows", m->fs[i]);
			return EXIT_USAGE;
		}
		m->images[i] = a->images[i];
	}
	return 0;
}

/* Operations: --ops, restricted to what every filesystem supports. */
static int resolve_ops(struct explore_args *a)
{
	struct check_config *c = &a->cfg;
	uint32_t common = (1u << OP_NKINDS) - 1;
	for (int i = 0; i < c->m.nfs; i++)
		common &= fs_supported_ops(c->m.fs[i]);
	if (!a->ops) {
		c->ops = common;
		return 0;
	}
	const char *bad = NULL;
	int badlen = 0;
	int64_t mask = op_mask_parse(a->ops, &bad, &badlen);
	if (mask < 0) {
		fprintf(stderr,
			"themis: unknown operation '%.*s' in --ops (known: create, write, "
			"truncate, unlink, mkdir, rmdir, chmod, chown, chgrp, setxattr, "
			"removexattr, rename, link, symlink, fsync, fallocate, remount, all)\n",
			badlen, bad);
		return EXIT_USAGE;
	}
	for (int k = 0; k < OP_NKINDS; k++)
		if ((mask >> k & 1) && !(common >> k & 1))
			fprintf(stderr,
				"themis: note: %s is left out: not every filesystem given "
				"supports it\n",
				op_name((enum op_kind)k));
	c->ops = (uint32_t)mask & common;
	if (!c->ops)
		return usage_error("%s", "--ops leaves no operation every filesystem supports");
	return 0;
}

static int parse_explore(int argc, char **argv, struct explore_args *a)
{
	memset(a, 0, sizeof(*a));
	struct check_config *c = &a->cfg;
	c->depth = EXPLORE_DEFAULT_DEPTH;
	c->branch = EXPLORE_DEFAULT_BRANCH;
	op_pools_default(&c->pools);
	c->seed = 1;
	c->progress = true;
	c->m.mem = EXPLORE_DEFAULT_MEM;
	c->m.clock_ns = EXPLORE_DEFAULT_CLOCK * 1000000000ULL;
	beside_exe("guest", "Image", a->kernel, sizeof(a->kernel));
	beside_exe("guest", "initramfs.cpio.gz", a->initrd, sizeof(a->initrd));
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (arg[0] != '-') {
			if (!fs_known(arg))
				return usage_error(
				    "unknown filesystem '%s' (known: ext2, ext3, ext4, "
				    "xfs, btrfs, f2fs, vfat, exfat, jfs, nilfs2, minix)",
				    arg);
			if (c->m.nfs == CHECK_MAX_FS)
				return usage_error("at most %s filesystems at once", "4");
			c->m.fs[c->m.nfs++] = arg;
		} else if (parse_flag(a, arg) != 0) {
			if (i + 1 == argc)
				return usage_error("option '%s' needs a value", arg);
			int rc = parse_value(a, arg, argv[++i]);
			if (rc)
				return rc;
		}
	}
	if (c->m.nfs == 0) { /* the default pair */
		c->m.fs[c->m.nfs++] = "ext4";
		c->m.fs[c->m.nfs++] = "xfs";
	}
	if (c->m.nfs < 2)
		return usage_error("%s", "explore needs at least two filesystems to compare "
					 "(e.g. themis explore ext4 xfs)");
	c->m.kernel = a->kernel;
	c->m.initrd = a->initrd;
	int rc = resolve_images(a);
	return rc ? rc : resolve_ops(a);
}

int cmd_explore(int argc, char **argv)
{
	struct explore_args a;
	int rc = parse_explore(argc, argv, &a);
	if (rc)
		return rc;
	struct check_result r;
	char err[1024];
	if (check_explore(&a.cfg, &r, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		return EXIT_USAGE;
	}
	printf("explored %s", a.cfg.m.fs[0]);
	fflush(stdout);
	for (int i = 1; i < a.cfg.m.nfs; i++)
		printf(" vs %s", a.cfg.m.fs[i]);
	char branch[64];
	if (a.cfg.swarm)
		snprintf(branch, sizeof(branch), "a swarm of %d exhaustive slices", a.cfg.swarm);
	else
		snprintf(branch, sizeof(branch),
			 a.cfg.branch ? "%d candidates a node" : "every operation a node",
			 a.cfg.branch);
	printf(" to depth %d (seed %llu, %s): %llu states, %llu unique, "
	       "%llu operations, %llu restores in %.3f s (%.1f states/s)\n",
	       a.cfg.depth, (unsigned long long)a.cfg.seed, branch, (unsigned long long)r.states,
	       (unsigned long long)r.unique, (unsigned long long)r.ops,
	       (unsigned long long)r.restores, r.seconds,
	       r.seconds > 0 ? r.states / r.seconds : 0.0);
	printf("%u discrepanc%s, %u finding%s (guest failures)%s%s\n", r.discrepancies,
	       r.discrepancies == 1 ? "y" : "ies", r.findings, r.findings == 1 ? "" : "s",
	       a.cfg.out_dir ? "; report and traces in " : "", a.cfg.out_dir ? a.cfg.out_dir : "");
	return r.discrepancies || r.findings ? EXIT_FINDING : 0;
}

/* ---- replay ---- */

int cmd_replay(int argc, char **argv)
{
	const char *kernel = NULL;
	if (argc == 3 && !strcmp(argv[1], "--kernel"))
		kernel = argv[2];
	else if (argc != 1 || argv[0][0] == '-')
		return usage_error("%s", "usage: themis replay TRACE [--kernel IMAGE]");
	struct trace *t = malloc(sizeof(*t));
	struct virt *v = calloc(1, sizeof(*v));
	char err[1024], why[CHECK_DETAIL_MAX], sig[64];
	bool ok = t && v && trace_read(argv[0], t, !kernel, err, sizeof(err)) == 0;
	if (ok && kernel)
		t->m.kernel = kernel; /* the same operations on another kernel */
	if (!ok || check_boot(v, &t->m, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", t && v ? err : "out of memory");
		free(t);
		free(v);
		return EXIT_USAGE;
	}
	int rc = 0;
	for (int i = 0; i < t->nops && rc == 0; i++) {
		struct check_step st;
		printf("%3d  %s\n", i + 1, t->ops[i]);
		if (check_apply(v, t->m.nfs, t->ops[i], &st, why, sizeof(why)) ||
		    (t->m.time && check_apply(v, t->m.nfs, "fp time", &st, why, sizeof(why)))) {
			snprintf(sig, sizeof(sig), "finding");
			rc = 1;
		} else if (check_compare(v, &t->m, &st, why, sizeof(why), sig, sizeof(sig))) {
			rc = 1;
		}
		if (rc)
			printf("     %s: %s\n",
			       i + 1 == t->nops && !strcmp(sig, t->sig) ? "reproduced"
									: "a different discrepancy",
			       why);
	}
	if (!rc)
		printf("not reproduced: the filesystems agree after all %d operations (recorded: "
		       "%s)\n",
		       t->nops, t->detail);
	virt_free(v);
	free(v);
	free(t);
	return rc ? EXIT_FINDING : 0;
}
