/* cmd_explore.c - `themis explore FS FS...`: the differential model checker
 * (src/check/), and `themis replay TRACE`, which re-runs a recorded trace.
 * Exit status as diff has it: 0 no discrepancy, 1 at least one, 2 usage or
 * setup errors. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/epoch.h"
#include "../check/check.h"
#include "../check/gprof.h"
#include "../check/group.h"
#include "../check/replay.h"
#include "../check/share.h"
#include "../check/trace.h"
#include "../machine/identity.h"
#include "../machine/virt.h"
#include "../fs/fs.h"
#include "../lens/lens.h"
#include "cli.h"

#define EXPLORE_DEFAULT_DEPTH  3
#define EXPLORE_DEFAULT_BRANCH 0 /* every candidate: exhaustive */
#define EXPLORE_MAX_JOBS       64
#define EXPLORE_DEFAULT_MEM    (256ULL << 20)
#define EXPLORE_DEFAULT_LEASE  30  /* seconds */
#define EXPLORE_DEFAULT_WAIT   600 /* seconds a worker waits for its run */
#define EXPLORE_DEFAULT_CLOCK  ((uint64_t)THEMIS_EPOCH)
#define EXPLORE_DEFAULT_OUT    "explore-out"
/* A limit's digits for a message: STR(CHECK_MAX_FS) is "4". */
#define STR_(x) #x
#define STR(x)	STR_(x)

static const char explore_help_head[] =
    "usage: themis explore [FS FS...] [options]     (default: " FS_EXPLORE_WORDS ")\n"
    "       themis explore FS --kernel A --kernel B [options]\n"
    "       themis explore --worker redis://HOST:PORT [--jobs N] [machine options]\n"
    "\n"
    "Applies every operation of a bounded scope to every filesystem given, at every\n"
    "state to --depth, forking the machine at each state; compares results, errnos\n"
    "and the state each leaves, live (page cache) and on disk (after sync, caches\n"
    "dropped), across the filesystems and within each one; writes a replayable\n"
    "trace for every discrepancy.\n"
    "\n";

static const char explore_help_foot[] =
    "Operations a filesystem given cannot do (its rules: FAT's chmod, chown,\n"
    "links, xattrs, fallocate...) are left out of the scope for all of them; the\n"
    "run says which at its start, and counts what each rule masked at its end.\n"
    "\n"
    "explore exit status: 0 no discrepancy in the whole scope (or the whole sample\n"
    "of --branch K / --swarm N); 1 at least one discrepancy or finding; 2 usage or\n"
    "setup error; 3 no discrepancy, but the run stopped before the end of its\n"
    "scope (interrupted by SIGINT/SIGTERM, or cut by --time-budget or\n"
    "--max-states): the summary says why.\n"
    "replay exit status: 0 not reproduced; 1 reproduced; 2 usage, bad input or a\n"
    "malformed trace.\n";

/* explore's own options, the one list its parser and its help come from
 * (the lenses' options come from their tables, lens.h): X(ID, NAME, ARG
 * (NULL: a flag), SECTION, HELP), HELP a line each, \n between them, for
 * the column beside the option. apply_option switches over every ID: an
 * option without a case does not compile. */
#define EXPLORE_OPTIONS(X)                                                                         \
	X(depth, "--depth", "N", SEC_SEARCH, "operations deep (default 3)")                        \
	X(branch, "--branch", "K|all", SEC_SEARCH,                                                 \
	  "'all' (default): every operation of the scope at every\n"                               \
	  "state, exhaustive with the visited set; K: K operations\n"                              \
	  "drawn at random (seeded) from the pools")                                               \
	X(swarm, "--swarm", "N", SEC_SEARCH,                                                       \
	  "N exhaustive searches of small random slices of the\n"                                  \
	  "scope (a few operations, paths and sizes each)")                                        \
	X(ops, "--ops", "LIST", SEC_SEARCH,                                                        \
	  "comma list of operations (default: the scope every fs\n@OPS@")                          \
	X(rules, "--rules", "DIR", SEC_SEARCH,                                                     \
	  "the documented differences to accept, DIR/FS.rules per\n"                               \
	  "filesystem and DIR/common.rules (default: the build's\n"                                \
	  "rules/; docs/rules.md)")                                                                \
	X(lens, "--lens", "LIST", SEC_SEARCH,                                                      \
	  "lenses to add, comma-separated (coverage, the on-disk\n"                                \
	  "view and the guest's instructions per state by phase\n"                                 \
	  "are always on):\n@LENSES@")                                                             \
	X(profile_guest, "--profile-guest", "N", SEC_SEARCH,                                       \
	  "sample the guest's pc and kernel stack every N\n"                                       \
	  "instructions (in one process: --jobs 1), named by the\n"                                \
	  "kernel's System.map (KERNEL.map): the top functions and\n"                              \
	  "their callers overall, per phase and per operation kind\n"                              \
	  "in OUT/guest-profile.txt, OUT/guest-profile.svg (phase,\n"                              \
	  "function, kind), the stacks folded in\n"                                                \
	  "OUT/guest-stacks.folded and drawn in OUT/guest-flame.svg")                              \
	X(paths, "--paths", "LIST", SEC_SEARCH,                                                    \
	  "path pool, comma list, directories end in / (default:\n"                                \
	  "f0,f1,f2,d0/f0,d0/f1,d0/f2,d1/f0,d0/,d1/,d0/d0/,d0/d1/)")                               \
	X(sizes, "--sizes", "LIST", SEC_SEARCH,                                                    \
	  "offsets and lengths (default: 0,1,4095,4096,4097)")                                     \
	X(seed, "--seed", "S", SEC_SEARCH, "seed of --branch K and --swarm (default 1)")           \
	X(durability, "--durability", "M", SEC_SEARCH,                                             \
	  "the on-disk view of every state: drop-caches (default:\n"                               \
	  "sync, drop every cache, read back), remount (sync,\n"                                   \
	  "unmount, mount), off")                                                                  \
	X(time, "--time", NULL, SEC_SEARCH,                                                        \
	  "fingerprints include mtime and ctime, compared to the\n"                                \
	  "coarsest granularity of the filesystems given; the\n"                                   \
	  "scope adds settime (a rollback, 2038, 2106) and utimes\n"                               \
	  "(1969, 2514)")                                                                          \
	X(max_states, "--max-states", "N", SEC_LIMITS, "stop after N states")                      \
	X(time_budget, "--time-budget", "T", SEC_LIMITS, "stop after T seconds (or 90s, 10m, 2h)") \
	X(stop_on_first, "--stop-on-first", NULL, SEC_LIMITS, "stop at the first discrepancy")     \
	X(minimize, "--minimize", NULL, SEC_LIMITS,                                                \
	  "simplify each trace (NAME.min.trace; groups by it)")                                    \
	X(out, "--out", "DIR", SEC_LIMITS,                                                         \
	  "report.json (with coverage) and one trace per discrepancy\n"                            \
	  "(default: explore-out/); an earlier run's reports,\n"                                   \
	  "traces and reproducer folders there are removed first\n"                                \
	  "(the run says so)")                                                                     \
	X(quiet, "--quiet", NULL, SEC_LIMITS,                                                      \
	  "no progress line (there is one only when stderr is a\n"                                 \
	  "terminal)")                                                                             \
	X(verbose, "--verbose", NULL, SEC_LIMITS, "every operation and its results, a line each")  \
	X(jobs, "--jobs", "N", SEC_WORKERS,                                                        \
	  "worker processes, each a copy of the booted machine,\n"                                 \
	  "sharing the work and the visited set (default: the\n"                                   \
	  "host's cores; one more with --fsck, whose workers\n"                                    \
	  "wait for their checkers)")                                                              \
	X(redis, "--redis", "URL", SEC_WORKERS,                                                    \
	  "share the run through a Redis server (redis://HOST:PORT):\n"                            \
	  "workers on any host join it with --worker URL")                                         \
	X(lease, "--lease", "T", SEC_WORKERS,                                                      \
	  "with --redis: a worker unheard from for T (default 30s:\n"                              \
	  "its process or host died) loses its work item to the\n"                                 \
	  "others, who redo it")                                                                   \
	X(worker, "--worker", "URL", SEC_WORKERS,                                                  \
	  "join the run at URL: its options come from there; this\n"                               \
	  "host's build, kernel, initramfs and images must match")                                 \
	X(wait, "--wait", "T", SEC_WORKERS,                                                        \
	  "with --worker: wait up to T for the run to start\n"                                     \
	  "(default 10m; 0: join a running one or stop)")                                          \
	X(disk, "--disk", "IMG", SEC_MACHINE,                                                      \
	  "base image, one per filesystem in order (default\n"                                     \
	  "build/images/FS.img; never written)")                                                   \
	X(kernel, "--kernel", "IMAGE", SEC_MACHINE,                                                \
	  "a RISC-V Linux Image (default: $THEMIS_KERNEL if set,\n"                                \
	  "else build/guest/Image). Twice, --kernel A --kernel B:\n"                               \
	  "one FS on two machines, kernel A's and kernel B's,\n"                                   \
	  "compared as two filesystems are (a regression finder:\n"                                \
	  "discrepancies name FS@A and FS@B); not with --crash,\n"                                 \
	  "--fsck, --time, --lens io, --load, --redis, --worker")                                  \
	X(initrd, "--initrd", "FILE", SEC_MACHINE,                                                 \
	  "initramfs (default: build/guest/initramfs.cpio.gz)")                                    \
	X(mem, "--mem", "SIZE", SEC_MACHINE, "RAM (default 256M)")                                 \
	X(clock, "--clock", "T", SEC_MACHINE,                                                      \
	  "wall clock at power-on: 2026-01-01T00:00:00Z (default),\n"                              \
	  "@SECONDS, or 'host' (nondeterministic)")                                                \
	X(machine_seed, "--machine-seed", "N", SEC_MACHINE,                                        \
	  "seed of the guest's random numbers (default 0)")                                        \
	X(load, "--load", "FILE", SEC_MACHINE,                                                     \
	  "start from a saved machine (themis boot --save, with one\n"                             \
	  "disk per filesystem, in order) instead of booting")                                     \
	X(op_budget, "--op-budget", "N", SEC_MACHINE,                                              \
	  "instructions an operation may take before it counts as\n"                               \
	  "a hang (a finding; default 8e9)")                                                       \
	X(baseline_remount, "--baseline-remount", NULL, SEC_MACHINE,                               \
	  "(benchmarks) backtrack without the fork, as an in-OS\n"                                 \
	  "checker must: unmount, write saved images back, mount")

/* The help's sections, in order; the lenses' options follow the search's. */
enum { SEC_SEARCH, SEC_LIMITS, SEC_WORKERS, SEC_MACHINE, SEC_COUNT };
static const char *const section_titles[SEC_COUNT] = {
    "The search:", "Limits and output:", "Workers:", "The machine:"};

enum explore_opt {
#define EXPLORE_OPT_ENUM(id, name, arg, section, help) OPT_##id,
	EXPLORE_OPTIONS(EXPLORE_OPT_ENUM)
#undef EXPLORE_OPT_ENUM
	    OPT_COUNT
};

static const struct {
	const char *name, *arg;
	int section;
	const char *help;
} explore_opts[OPT_COUNT] = {
#define EXPLORE_OPT_ROW(id, name, arg, section, help) {name, arg, section, help},
    EXPLORE_OPTIONS(EXPLORE_OPT_ROW)
#undef EXPLORE_OPT_ROW
};

/* opt's row of explore_opts, or -1. */
static int option_id(const char *opt)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (!strcmp(explore_opts[i].name, opt))
			return i;
	return -1;
}

struct explore_args {
	struct check_config cfg;
	const char *worker; /* --worker URL */
	double wait;	    /* --wait T: how long a worker waits for its run to start */
	char kernel[PATH_MAX], initrd[PATH_MAX], images[CHECK_MAX_FS][PATH_MAX];
	char kernel_b[PATH_MAX]; /* a second --kernel */
	int nkernels;		 /* --kernel options given */
	bool jobs_given;	 /* --jobs given */
	const char *disks[CHECK_MAX_FS];
	int ndisks;
	const char *ops;
	char paths[4096];      /* storage for the --paths pool */
	char options[1024];    /* the arguments as given, for the traces */
	const char *rules_dir; /* --rules DIR (NULL: the build's rules/) */
	struct rules rules;    /* the run's filesystems' (m.rules) */
};

/* Seconds, or a number with s, m or h; 0 included (each option says whether it takes it). */
static bool parse_duration(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	double unit = !strcmp(end, "") || !strcmp(end, "s") ? 1
		      : !strcmp(end, "m")		    ? 60
		      : !strcmp(end, "h")		    ? 3600
							    : 0;
	if (end == s || unit == 0 || !(v >= 0) || v * unit > 1e9)
		return false;
	*out = v * unit;
	return true;
}

/* A lens's option (lens.h): its own set() says what it means. */
static int lens_option_given(struct explore_args *a, const char *opt, const char *val)
{
	const struct lens_opt *o = lens_option(opt, NULL);
	char err[256];
	if (!o)
		return unknown_option(opt);
	if (o->set(&a->cfg.m, val, err, sizeof(err)))
		return usage_error("%s", err);
	return 0;
}

/* The workers a run takes when --jobs is not given, on `cores` cores. A
 * worker waiting for its checkers (host processes) leaves its core idle:
 * one worker more fills it (ext4 xfs depth 2 on 2 cores: 1.14x with
 * --fsck, 1.23x with --crash --fsck; none for --crash alone). */
static int default_jobs(const struct check_machine *m, int cores)
{
	const struct lens_def *defs[LENS_MAX];
	bool waits = false;
	for (int i = 0, n = lens_registry(defs, LENS_MAX); i < n; i++)
		waits |= defs[i]->waits_on_host && defs[i]->wanted && defs[i]->wanted(m);
	return waits ? cores + 1 : cores;
}

/* Option id with its value (NULL for a flag): 0, or a usage error said. */
static int apply_option(struct explore_args *a, enum explore_opt id, const char *val)
{
	struct check_config *c = &a->cfg;
	uint64_t u;
	switch (id) {
	case OPT_depth: {
		if (!parse_u64(val, &u) || u < 1 || u > CHECK_MAX_DEPTH)
			return usage_error(
			    "--depth needs a number from 1 to " STR(CHECK_MAX_DEPTH) ", got '%s'",
			    val);
		c->depth = (int)u;
		break;
	}
	case OPT_seed: {
		if (!parse_u64(val, &c->seed))
			return usage_error("--seed needs a whole number, got '%s'", val);
		break;
	}
	case OPT_machine_seed: {
		if (!parse_u64(val, &c->m.machine_seed))
			return usage_error("--machine-seed needs a whole number, got '%s'", val);
		break;
	}
	case OPT_branch: {
		if (!strcmp(val, "all"))
			c->branch = 0;
		else if (!parse_u64(val, &u) || u < 1 || u > 1000)
			return usage_error(
			    "--branch needs a number from 1 to 1000 or 'all', got '%s'", val);
		else
			c->branch = (int)u;
		break;
	}
	case OPT_swarm: {
		if (!parse_u64(val, &u) || u < 1 || u > 100000)
			return usage_error(
			    "--swarm needs a number of members from 1 to 100000, got '%s'", val);
		c->swarm = (int)u;
		break;
	}
	case OPT_paths: {
		snprintf(a->paths, sizeof(a->paths), "%s", val);
		if (op_pools_set_paths(&c->pools, a->paths))
			return usage_error("--paths needs a comma list of relative paths (dirs end "
					   "in /), at most 32 of each, got '%s'",
					   val);
		break;
	}
	case OPT_sizes: {
		if (op_pools_set_sizes(&c->pools, val))
			return usage_error(
			    "--sizes needs a comma list of numbers up to 2^30, got '%s'", val);
		break;
	}
	case OPT_max_states: {
		if (!parse_u64(val, &c->max_states) || !c->max_states)
			return usage_error("--max-states needs a positive count, got '%s'", val);
		break;
	}
	case OPT_op_budget: {
		if (!parse_u64(val, &c->m.op_budget) || !c->m.op_budget)
			return usage_error(
			    "--op-budget needs a positive instruction count, got '%s'", val);
		break;
	}
	case OPT_jobs: {
		if (!parse_u64(val, &u) || u < 1 || u > EXPLORE_MAX_JOBS)
			return usage_error(
			    "--jobs needs 1 to " STR(EXPLORE_MAX_JOBS) " workers, got '%s'", val);
		c->jobs = (int)u;
		a->jobs_given = true;
		break;
	}
	case OPT_durability: {
		int d = check_durability_by_name(val);
		if (d < 0)
			return usage_error(
			    "--durability needs off, drop-caches or remount, got '%s'", val);
		c->m.durability = (enum check_durability)d;
		break;
	}
	case OPT_time_budget: {
		if (!parse_duration(val, &c->time_budget) || c->time_budget <= 0)
			return usage_error(
			    "--time-budget needs seconds (or 90s, 10m, 2h), got '%s'", val);
		break;
	}
	case OPT_redis: {
		if (strncmp(val, "redis://", 8))
			return usage_error("--redis needs redis://HOST:PORT, got '%s'", val);
		c->redis = val;
		break;
	}
	case OPT_lease: {
		double t;
		if (!parse_duration(val, &t) || t < 1 || t > 86400 || t != (double)(int)t)
			return usage_error("--lease needs whole seconds from 1 to 86400 (or 30s, "
					   "5m), got '%s'",
					   val);
		c->lease = (int)t;
		break;
	}
	case OPT_worker: {
		if (strncmp(val, "redis://", 8))
			return usage_error("--worker needs redis://HOST:PORT, got '%s'", val);
		a->worker = val;
		break;
	}
	case OPT_wait: {
		if (!parse_duration(val, &a->wait) || a->wait > 86400)
			return usage_error(
			    "--wait needs seconds from 0 to 86400 (or 30s, 10m), got '%s'", val);
		break;
	}
	case OPT_load: {
		c->m.load = val;
		break;
	}
	case OPT_ops: {
		a->ops = val;
		break;
	}
	case OPT_rules: {
		a->rules_dir = val;
		break;
	}
	case OPT_lens: {
		c->lens_names = val;
		break;
	}
	case OPT_profile_guest: {
		if (!parse_u64(val, &c->profile_every) || c->profile_every < 1000 ||
		    c->profile_every > 1000000000)
			return usage_error(
			    "--profile-guest needs the instructions between samples, "
			    "from 1000 to 1e9, got '%s'",
			    val);
		break;
	}
	case OPT_out: {
		c->out_dir = val;
		break;
	}
	case OPT_kernel: {
		if (a->nkernels == 2)
			return usage_error("%s", "--kernel at most twice (two kernels compare one "
						 "filesystem across them)");
		char *to = a->nkernels++ ? a->kernel_b : a->kernel;
		snprintf(to, PATH_MAX, "%s", val);
		break;
	}
	case OPT_initrd: {
		snprintf(a->initrd, sizeof(a->initrd), "%s", val);
		break;
	}
	case OPT_disk: {
		if (a->ndisks == CHECK_MAX_FS)
			return usage_error("at most %s disks", STR(CHECK_MAX_FS));
		a->disks[a->ndisks++] = val;
		break;
	}
	case OPT_mem: {
		if (!parse_size(val, &c->m.mem) || c->m.mem < (64ULL << 20) || c->m.mem % (1 << 20))
			return usage_error("--mem needs a size in MiB, at least 64M, got '%s'",
					   val);
		break;
	}
	case OPT_clock: {
		if (!parse_clock(val, &c->m.clock_ns))
			return usage_error("--clock needs " CLOCK_FORMS ", got '%s'", val);
		break;
	}
	case OPT_time: c->m.time = true; break;
	case OPT_stop_on_first: c->stop_on_first = true; break;
	case OPT_minimize: c->minimize = true; break;
	case OPT_quiet: c->progress = false; break;
	case OPT_verbose: c->verbose = true; break;
	case OPT_baseline_remount: c->baseline = true; break;
	case OPT_COUNT: break;
	}
	return 0;
}

/* Build BUILD/images/FS.img with the repository's image builder, found
 * beside the build folder (BUILD/../scripts/mkimages.sh). */

/* Images: --disk as given, else BUILD/images/FS.img (built if missing);
 * each must hold its fs. */
static int resolve_images(struct explore_args *a)
{
	struct check_machine *m = &a->cfg.m;
	if (a->ndisks && a->ndisks != m->nfs)
		return usage_error("give one --disk per filesystem, or none (%s)",
				   "images from build/images/");
	for (int i = 0; i < m->nfs; i++) {
		if (resolve_image(m->fs[i], a->ndisks ? a->disks[i] : NULL, a->images[i],
				  sizeof(a->images[i])))
			return EXIT_USAGE;
		m->images[i] = a->images[i];
	}
	return 0;
}

/* Say, once per filesystem, which flag words of the operations in
 * `wanted` it refuses where another takes them (OP:WORD rules): those
 * calls are left out for every filesystem. */
static void note_refused(const struct check_machine *m, uint32_t wanted)
{
	for (int i = 0; i < m->nfs; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(m->fs[j], m->fs[i]);
		const struct rules *r = m->rules;
		for (int x = 0; !seen && r && x < r->n; x++)
			for (int j = 0; r->r[x].kind == RULE_UNSUPPORTED &&
					rules_apply_to(r, x, m->fs[i]) && j < r->r[x].nrefusals;
			     j++)
				if (wanted >> r->r[x].refusals[j].op & 1)
					fprintf(stderr,
						"themis: note: %s refuses %s %s: those calls are "
						"left out of the scope for every filesystem (%s)\n",
						m->fs[i], op_name(r->r[x].refusals[j].op),
						r->r[x].refusals[j].words, r->r[x].where);
	}
}

/* Say, once per filesystem, which of the operations in `wanted` it
 * cannot do (its unsupported rules): they are left out of the run for
 * every filesystem, and a user comparing ext4 with vfat must know chmod
 * was never tried. */
static void note_dropped(const struct check_machine *m, uint32_t wanted)
{
	for (int i = 0; i < m->nfs; i++) {
		uint32_t missing = wanted & rules_unsupported(m->rules, m->fs[i]);
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(m->fs[j], m->fs[i]);
		if (!missing || seen)
			continue;
		fprintf(stderr, "themis: note: %s cannot do", m->fs[i]);
		for (int k = 0, n = 0; k < OP_NKINDS; k++)
			if (missing >> k & 1)
				fprintf(stderr, "%s %s", n++ ? "," : "", op_name((enum op_kind)k));
		fprintf(stderr, ": left out of the scope for every filesystem (");
		for (int k = 0, n = 0, last = -1; k < OP_NKINDS; k++) {
			int r =
			    missing >> k & 1 ? rules_unsupported_rule(m->rules, m->fs[i], k) : -1;
			if (r >= 0 && r != last)
				fprintf(stderr, "%s%s", n++ ? ", " : "", m->rules->r[r].where);
			last = r >= 0 ? r : last;
		}
		fprintf(stderr, ")\n");
	}
	note_refused(m, wanted);
}

/* Operations: --ops, restricted to what every filesystem supports; the
 * calls with flag words one refuses are left out as the search meets
 * them (rules_filter). */
static int resolve_ops(struct explore_args *a)
{
	struct check_config *c = &a->cfg;
	uint32_t common = OP_ALL_MASK, refusing = 0;
	for (int i = 0; i < c->m.nfs; i++) {
		common &= ~rules_unsupported(c->m.rules, c->m.fs[i]);
		refusing |= rules_refusing(c->m.rules, c->m.fs[i]);
	}
	if (!a->ops) {
		uint32_t scope = op_scope_mask() | (c->m.time ? op_flag_mask(OPF_TIME) : 0);
		note_dropped(&c->m, scope);
		c->ops = common & scope;
		a->rules.dropped = scope & (~common | refusing); /* the rules lens counts them */
		return 0;
	}
	const char *bad = NULL;
	int badlen = 0;
	int64_t mask = op_mask_parse(a->ops, &bad, &badlen);
	if (mask < 0) {
		fprintf(stderr, "themis: unknown operation '%.*s' in --ops (known: %s)\n", badlen,
			bad, op_names_list());
		return EXIT_USAGE;
	}
	note_dropped(&c->m, (uint32_t)mask);
	c->ops = (uint32_t)mask & common;
	a->rules.dropped = (uint32_t)mask & (~common | refusing);
	if (!c->ops)
		return usage_error("%s", "--ops leaves no operation every filesystem supports");
	return 0;
}

/* --kernel A --kernel B: one filesystem on two machines, one a kernel
 * (check.h's kernel_b). What a run of two kernels cannot do is refused
 * here, by name, rather than done wrong. */
static int kernel_pair(struct explore_args *a)
{
	struct check_config *c = &a->cfg;
	struct check_machine *m = &c->m;
	if (m->nfs != 1)
		return usage_error(
		    "%s", m->nfs ? "--kernel twice compares one filesystem across "
				   "two kernels: name one filesystem, not several"
				 : "--kernel twice compares one filesystem across "
				   "two kernels: name it (e.g. themis explore " FS_DEFAULT_A " "
				   "--kernel A --kernel B)");
	struct {
		bool on;
		const char *what;
	} refused[] = {
	    {a->worker != NULL, "--worker (a worker takes the run's kernel)"},
	    {c->redis != NULL, "--redis (a shared run names one kernel)"},
	    {m->load != NULL, "--load (a saved machine holds one kernel)"},
	    {m->time, "--time (each kernel's clock runs with its own boot: times differ)"},
	    {c->baseline, "--baseline-remount (it saves the disks of one machine)"},
	    {a->ndisks > 1, "more than one --disk (the one filesystem has one image)"},
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i].on)
			return usage_error("two kernels do not go with %s", refused[i].what);
	const struct lens_def *defs[LENS_MAX];
	for (int i = 0, n = lens_registry(defs, LENS_MAX); i < n; i++) {
		const struct lens_def *d = defs[i];
		bool on =
		    d->always ? d->wanted && d->wanted(m) : lens_listed(c->lens_names, d->name);
		if (d->one_machine && on) {
			char what[160];
			snprintf(what, sizeof(what),
				 "%s%s (the %s lens reads the disks of one machine)",
				 d->always ? "" : "--lens ",
				 d->always && d->opts ? d->opts[0].name : d->name, d->name);
			return usage_error("two kernels do not go with %s", what);
		}
	}
	if (resolve_kernel(a->kernel, PATH_MAX) || resolve_kernel(a->kernel_b, PATH_MAX))
		return EXIT_USAGE;
	m->fs[m->nfs++] = m->fs[0];
	if (a->ndisks == 1)
		a->disks[a->ndisks++] = a->disks[0];
	m->kernel_b = a->kernel_b;
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
	c->progress = isatty(STDERR_FILENO); /* "\r" redraws belong on a terminal only */
	c->out_dir = EXPLORE_DEFAULT_OUT;    /* findings are never lost */
	c->m.mem = EXPLORE_DEFAULT_MEM;
	c->m.clock_ns = EXPLORE_DEFAULT_CLOCK * 1000000000ULL;
	c->m.durability = CHECK_DURABLE_DROP;
	c->lease = EXPLORE_DEFAULT_LEASE;
	a->wait = EXPLORE_DEFAULT_WAIT;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	c->jobs = cores < 1 ? 1 : cores > EXPLORE_MAX_JOBS ? EXPLORE_MAX_JOBS : (int)cores;
	default_kernel(a->kernel, sizeof(a->kernel));
	beside_exe("guest", "initramfs.cpio.gz", a->initrd, sizeof(a->initrd));
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (arg[0] != '-') {
			if (!fs_known(arg))
				return unknown_fs(arg);
			if (c->m.nfs == CHECK_MAX_FS)
				return usage_error("at most %s filesystems at once",
						   STR(CHECK_MAX_FS));
			c->m.fs[c->m.nfs++] = arg;
		} else {
			int id = option_id(arg);
			const struct lens_opt *lo = id < 0 ? lens_option(arg, NULL) : NULL;
			if (id < 0 && !lo)
				return unknown_option(arg);
			const char *val = NULL;
			if (id >= 0 ? explore_opts[id].arg != NULL : lo->arg != NULL) {
				if (i + 1 == argc)
					return missing_value(arg);
				val = argv[++i];
			}
			int rc = id >= 0 ? apply_option(a, (enum explore_opt)id, val)
					 : lens_option_given(a, arg, val);
			if (rc)
				return rc;
		}
	}
	size_t used = 0;
	for (int i = 0; i < argc && used < sizeof(a->options); i++)
		used += (size_t)snprintf(a->options + used, sizeof(a->options) - used, "%s%s",
					 i ? " " : "", argv[i]);
	if (used < sizeof(a->options) && !strchr(a->options, '\n'))
		c->m.options = a->options;
	if (a->nkernels == 2) {
		int rc = kernel_pair(a);
		if (rc)
			return rc;
	}
	if (a->worker)
		return 0;    /* the rest comes from the run (worker_args) */
	if (c->m.nfs == 0) { /* the default pair */
		static const char *const pair[] = {FS_EXPLORE_DEFAULT};
		for (size_t i = 0; i < sizeof(pair) / sizeof(pair[0]); i++)
			c->m.fs[c->m.nfs++] = pair[i];
	}
	if (c->m.nfs < 2)
		return usage_error("%s", "explore needs at least two filesystems to compare "
					 "(e.g. themis explore " FS_EXPLORE_WORDS
					 "), or one and two kernels "
					 "(themis explore " FS_DEFAULT_A " --kernel A --kernel B)");
	if (!c->m.load && a->nkernels < 2 && resolve_kernel(a->kernel, sizeof(a->kernel)))
		return EXIT_USAGE;
	c->m.kernel = a->kernel;
	c->m.initrd = a->initrd;
	if (c->profile_every && ((a->jobs_given && c->jobs > 1) || c->redis))
		return usage_error("%s", "--profile-guest samples one process's machine: not "
					 "with --jobs N > 1 or --redis");
	if (!a->jobs_given) {
		int jobs = default_jobs(&c->m, c->jobs);
		c->jobs = jobs > EXPLORE_MAX_JOBS ? EXPLORE_MAX_JOBS : jobs;
	}
	if (c->swarm || c->baseline || c->profile_every)
		c->jobs = 1; /* each is one search in one process */
	if (c->redis && c->m.load)
		return usage_error("%s", "--redis with --load: a saved machine cannot be shared "
					 "(workers boot theirs)");
	c->m.rules = &a->rules;
	int rc = load_rules(&a->rules, a->rules_dir, c->m.fs, c->m.nfs);
	if (!rc)
		rc = resolve_images(a);
	return rc ? rc : resolve_ops(a);
}

/* ---- runs shared through Redis ---- */

/* Options that name this host's files or shape its own part of the run:
 * not passed on to workers, which give their own. */
static bool local_option(const char *opt)
{
	static const char *const local[] = {"--redis",	"--jobs", "--out",    "--kernel",
					    "--initrd", "--disk", "--worker", "--load"};
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (!strcmp(opt, local[i]))
			return true;
	return false;
}

#define RUN_MAGIC "themis-run 2"

/* The machine of a run as its host has it (identity.h). 0, or -1 said. */
static int run_identity(const struct explore_args *a, struct identity *id)
{
	const struct check_machine *m = &a->cfg.m;
	char err[1100];
	if (identity_take(id, m->kernel, m->initrd, m->images, m->fs, m->nfs, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		return -1;
	}
	return 0;
}

/* What a worker must match: the run's identity without its paths (each
 * host has its own), then the run's own arguments, one a line. */
static int run_config(const struct explore_args *a, int argc, char **argv, char *out, size_t cap)
{
	struct identity *id = malloc(sizeof(*id));
	int len = snprintf(out, cap, "%s\n", RUN_MAGIC);
	if (!id || len < 0 || (size_t)len >= cap || run_identity(a, id) ||
	    identity_to_text(id, false, out, cap) < 0) {
		free(id);
		return -1;
	}
	free(id);
	size_t n = strlen(out);
	for (int i = 0; i < argc && n < cap; i++) {
		if (local_option(argv[i])) {
			i++;
			continue;
		}
		if (strchr(argv[i], '\n'))
			return -1;
		n += (size_t)snprintf(out + n, cap - n, "arg %s\n", argv[i]);
	}
	/* After the arguments (what workers read stops at them): the rules
	 * the run accepts differences by, which each worker loads itself. */
	if (n < cap)
		n += (size_t)snprintf(out + n, cap - n, "rules %016llx\n",
				      (unsigned long long)a->rules.hash);
	return n < cap ? 0 : -1;
}

/* 0 if this worker's rules hash as the run's (its config's rules line;
 * none: a run from before rules files); else EXIT_USAGE, said. */
static int same_rules(const char *config, const struct explore_args *run)
{
	const char *l = strstr(config, "\nrules ");
	unsigned long long want;
	if (!l || sscanf(l + 7, "%16llx", &want) != 1 || want == run->rules.hash)
		return 0;
	fprintf(stderr,
		"themis: this worker's rules (%s, hash %016llx) differ from the run's (hash "
		"%016llx): it cannot join (give it the run's with --rules DIR)\n",
		run->rules.dir, (unsigned long long)run->rules.hash, want);
	return EXIT_USAGE;
}

/* A worker's arguments: the run's, then its own (files, jobs, quiet). */
static int worker_args(char *config, int argc, char **argv, char **out, int max)
{
	int n = 0;
	for (char *l = strtok(config, "\n"); l && n < max; l = strtok(NULL, "\n"))
		if (!strncmp(l, "arg ", 4))
			out[n++] = l + 4;
	for (int i = 0; i < argc && n < max; i++)
		if (strcmp(argv[i], "--worker"))
			out[n++] = argv[i];
		else
			i++;
	return n < max ? n : -1;
}

/* 0 if this host's machine (run, as the run's arguments describe it with
 * this host's files) is the one in the run's config; else EXIT_USAGE, said. */
static int same_machine(const char *config, const struct explore_args *run)
{
	struct identity *want = calloc(1, sizeof(*want)), *have = malloc(sizeof(*have));
	char why[1100];
	size_t n = strlen(RUN_MAGIC);
	int rc = want && have ? 0 : EXIT_USAGE;
	if (!rc && (strncmp(config, RUN_MAGIC, n) || config[n] != '\n')) {
		fprintf(stderr, "themis: the run was started by another version of themis: this "
				"worker cannot join\n");
		rc = EXIT_USAGE;
	}
	for (const char *l = config + n + 1; !rc && *l && strncmp(l, "arg ", 4);) {
		size_t len = strcspn(l, "\n");
		char line[2048];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (len >= sizeof(line) || identity_parse_line(want, line) != 1) {
			fprintf(stderr, "themis: the run's configuration is damaged\n");
			rc = EXIT_USAGE;
		}
		l += len + (l[len] == '\n');
	}
	if (!rc && run_identity(run, have))
		rc = EXIT_USAGE;
	if (!rc && identity_diff(want, have, IDENTITY_ALL, why, sizeof(why))) {
		fprintf(stderr,
			"themis: this worker's machine differs from the run's in %s (another "
			"build, kernel, initrd or disk image): it cannot join\n",
			why);
		rc = EXIT_USAGE;
	}
	free(want);
	free(have);
	return rc;
}

static int cmd_worker(struct explore_args *a, int argc, char **argv)
{
	static char config[65536], copy[65536];
	char err[1024];
	struct share *sh =
	    share_redis_join(a->worker, a->wait, config, sizeof(config), err, sizeof(err));
	if (!sh) {
		fprintf(stderr, "themis: %s\n", err);
		return EXIT_USAGE;
	}
	char *args[512];
	snprintf(copy, sizeof(copy), "%s", config);
	int n = worker_args(copy, argc, argv, args, 512);
	static struct explore_args run;
	int rc = n < 0 ? usage_error("%s", "the run's arguments are too many") : 0;
	if (!rc)
		rc = parse_explore(n, args, &run);
	if (!rc)
		rc = same_machine(config, &run);
	if (!rc)
		rc = same_rules(config, &run);
	if (rc) {
		sh->ops->close(sh);
		return rc;
	}
	run.cfg.redis = a->worker;
	run.cfg.out_dir = NULL; /* the run's coordinator writes the traces */
	struct check_result r;
	rc = check_work(&run.cfg, sh, &r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "themis: %s\n", err);
	bool lost = sh->lost; /* cut off from the run: said why when it happened */
	sh->ops->close(sh);
	if (rc || lost)
		return EXIT_USAGE;
	/* The run's totals as this worker last counted: others may still be
	 * finishing theirs; the coordinator's report has the final ones. */
	printf("worker done: %llu states explored here; the run had %llu states, %llu "
	       "discrepancies, %llu findings when this worker finished\n",
	       (unsigned long long)r.own_states, (unsigned long long)r.states,
	       (unsigned long long)r.discrepancies, (unsigned long long)r.findings);
	return 0;
}

static void print_summary(const struct check_config *c, const struct check_result *r)
{
	char l[CHECK_LABEL_MAX];
	printf("explored %s", check_label(&c->m, 0, l));
	for (int i = 1; i < c->m.nfs; i++)
		printf(" vs %s", check_label(&c->m, i, l));
	char branch[64];
	if (c->swarm)
		snprintf(branch, sizeof(branch), "a swarm of %d exhaustive slices", c->swarm);
	else
		snprintf(branch, sizeof(branch),
			 c->branch ? "%d random candidates a state" : "every operation a state",
			 c->branch);
	/* Only the exhaustive search covers the scope; K random candidates a
	 * state and swarm slices are samples of it, however far they got. */
	const char *scope = !r->complete ? "; stopped before the end of the scope"
			    : c->swarm	 ? "; every slice explored (a sample of the scope, not all "
					   "of it)"
			    : c->branch	 ? "; the random sample explored (not the whole scope)"
					 : "; the whole scope";
	printf(" to depth %d (%s, durability %s, %d job%s): %llu states, %llu unique, "
	       "%llu restores in %.3f s (%.1f states/s)%s\n",
	       c->depth, branch, check_durability_name(c->m.durability), c->jobs,
	       c->jobs == 1 ? "" : "s", (unsigned long long)r->states,
	       (unsigned long long)r->unique, (unsigned long long)r->restores, r->seconds,
	       r->seconds > 0 ? r->states / r->seconds : 0.0, scope);
	if (!r->complete)
		printf("incomplete: %s\n", r->stopped);
	if (c->redis) /* with the workers' own counts, the run's total */
		printf("this process explored %llu of the states\n",
		       (unsigned long long)r->own_states);
	if (r->note[0])
		printf("note: %s\n", r->note);
	if (c->m.time) {
		char rules[512];
		check_time_rules(&c->m, rules, sizeof(rules));
		printf("time: %s\n", rules);
	}
	struct lens_set ls;
	char err[256];
	if (lens_set_open(&ls, c->lens_names, c, &c->m, err, sizeof(err)) == 0) {
		lens_set_report(&ls, r->lens, stdout, false);
		lens_set_close(&ls);
	}
	if (c->profile_every && c->out_dir)
		printf("guest profile: %s/" GPROF_TEXT ", " GPROF_SVG ", " GPROF_FOLDED
		       " and " GPROF_FLAME "\n",
		       c->out_dir);
	if (c->minimize)
		printf("minimize: %llu attempts, %.1f s (each attempt replays a candidate trace "
		       "from the root)\n",
		       (unsigned long long)r->min_attempts, (double)r->min_ms / 1000);
	group_print(stdout, r->groups, r->ngroups, r->nrecords, c->m.fs, c->m.nfs, c->minimize);
	printf("%llu discrepanc%s, %llu finding%s (guest failures)%s%s\n",
	       (unsigned long long)r->discrepancies, r->discrepancies == 1 ? "y" : "ies",
	       (unsigned long long)r->findings, r->findings == 1 ? "" : "s",
	       c->out_dir ? "; report and traces in " : "", c->out_dir ? c->out_dir : "");
}

/* The names of the kinds in mask, after `lead`, wrapped at 80 columns
 * with a 22-column indent, each line's words as op_table.h lists them. */
static int put_kinds(FILE *f, int col, const char *lead, uint32_t mask, const char *end)
{
	col += fprintf(f, "%s", lead);
	for (int k = 0, first = 1; k < OP_NKINDS; k++) {
		if (!(mask & 1u << k))
			continue;
		const char *name = op_name((enum op_kind)k);
		if (col + 2 + (int)strlen(name) > 78) {
			fprintf(f, "%s\n%22s", first ? "" : ",", "");
			col = 22;
		} else if (!first) {
			col += fprintf(f, ", ");
		}
		col += fprintf(f, "%s", name);
		first = 0;
	}
	return col + fprintf(f, "%s", end);
}

/* The default scope's line of --ops (op_table.h's flags). */
static void put_scope(FILE *f)
{
	fprintf(f, "%22s", "");
	uint32_t scope = op_scope_mask(), time = op_flag_mask(OPF_TIME) & ~scope;
	uint32_t rest = OP_ALL_MASK & ~scope & ~time;
	int col = put_kinds(f, 22, "supports: ", scope, ";");
	col = put_kinds(f, col, " --time adds ", time, ";");
	put_kinds(f, col, " 'all' is every one: ", rest, " too)\n");
}

/* text after `col` columns, wrapped at 78 with a 22-column indent. */
static void put_words(FILE *f, int col, const char *text)
{
	for (const char *w = text; *w;) {
		size_t len = strcspn(w, " ");
		if (col > 22 && col + 1 + (int)len > 78) {
			fprintf(f, "\n%22s", "");
			col = 22;
		} else if (col > 22) {
			col += fprintf(f, " ");
		}
		col += fprintf(f, "%.*s", (int)len, w);
		w += len + (w[len] == ' ');
	}
	fputc('\n', f);
}

/* Each optional lens, its name and its help (lens.h's registry). */
static void put_lenses(FILE *f)
{
	const struct lens_def *defs[LENS_MAX];
	for (int i = 0, n = lens_registry(defs, LENS_MAX); i < n; i++)
		if (!defs[i]->always) {
			char lead[40];
			snprintf(lead, sizeof(lead), "%s:", defs[i]->name);
			put_words(f, fprintf(f, "%22s%s", "", lead), defs[i]->help);
		}
}

/* One option's lines: the option and its argument, its help beside it
 * in the column at 22 (on a line of its own when the option is wider). */
static void put_option(FILE *f, const char *name, const char *arg, const char *help)
{
	int col = fprintf(f, "  %s%s%s", name, arg ? " " : "", arg ? arg : "");
	for (const char *h = help; *h;) {
		size_t len = strcspn(h, "\n");
		if (col >= 22) {
			fputc('\n', f);
			col = 0;
		}
		if (!strncmp(h, "@OPS@", 5)) /* the default scope, from op_table.h */
			put_scope(f);
		else if (!strncmp(h, "@LENSES@", 8)) /* the registry's optional lenses */
			put_lenses(f);
		else
			fprintf(f, "%*s%.*s\n", 22 - col, "", (int)len, h);
		col = 0;
		h += len + (h[len] == '\n');
	}
}

/* The help: its sections from explore_opts, the lenses' options after
 * the search's. */
static void put_help(FILE *f)
{
	fputs(explore_help_head, f);
	for (int sec = 0; sec < SEC_COUNT; sec++) {
		fprintf(f, "%s\n", section_titles[sec]);
		for (int i = 0; i < OPT_COUNT; i++)
			if (explore_opts[i].section == sec)
				put_option(f, explore_opts[i].name, explore_opts[i].arg,
					   explore_opts[i].help);
		const struct lens_def *defs[LENS_MAX];
		for (int d = 0, n = sec == SEC_SEARCH ? lens_registry(defs, LENS_MAX) : 0; d < n;
		     d++)
			for (const struct lens_opt *o = defs[d]->opts; o && o->name; o++)
				put_option(f, o->name, o->arg, o->help);
		fputc('\n', f);
	}
	fputs(explore_help_foot, f);
}

int cmd_explore(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		put_help(stdout);
		return 0;
	}
	static struct explore_args a;
	int rc = parse_explore(argc, argv, &a);
	if (rc)
		return rc;
	if (a.worker)
		return cmd_worker(&a, argc, argv);
	static char config[65536];
	if (a.cfg.redis) {
		if (run_config(&a, argc, argv, config, sizeof(config)))
			return usage_error("%s", "cannot describe the run for its workers");
		a.cfg.redis_config = config;
	}
	struct check_result r;
	char err[1024];
	if (check_explore(&a.cfg, &r, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		return EXIT_USAGE;
	}
	print_summary(&a.cfg, &r);
	check_result_free(&r);
	return r.discrepancies || r.findings ? EXIT_FINDING : !r.complete ? EXIT_INCOMPLETE : 0;
}

/* ---- replay ---- */

static const char replay_help[] =
    "usage: themis replay TRACE [--kernel IMAGE] [--save-disks DIR] [--rules DIR]\n"
    "       themis replay TRACE --passes N [--hash-every-op] [--clock host]\n"
    "\n"
    "Re-runs a trace's operations on the machine it names and says whether the\n"
    "recorded discrepancy comes back (exit 1) or not (exit 0); 2 for bad input.\n"
    "  --passes N         run it N times from power-on and hash the whole machine\n"
    "                     after each (RAM, hart, devices, every disk's content):\n"
    "                     'pass N hash H time T' a pass and the distinct hashes;\n"
    "                     exit 0 all alike, 1 they differ\n"
    "  --hash-every-op    with --passes: the hash after every operation too\n"
    "  --clock host       with --passes: start the clock from the host's instead\n"
    "                     of the trace's (the one nondeterminism a user can opt\n"
    "                     into): the hashes then differ\n"
    "  --kernel IMAGE     the same operations on another kernel\n"
    "  --rules DIR        the rules to accept differences by (default: the\n"
    "                     trace's folder of rules when their hash still matches,\n"
    "                     else the build's rules/; a mismatch is warned about)\n"
    "  --save-disks DIR   after the root and after every operation, each disk as\n"
    "                     synced to it (in a fork: the replay is not changed), as\n"
    "                     DIR/NN-FS.img (NN the step, 00 the root; NN-FS-b.img\n"
    "                     the second kernel's): two states of one run, for\n"
    "                     `themis diff`\n";

/* What a replay was asked for: the engine's options (replay.h) and the
 * command line's. */
struct replay_args {
	struct replay_opts run;
	const char *file, *kernel, *rules;
	char kernel_path[PATH_MAX]; /* --kernel, a name resolved (resolve_kernel) */
	bool clock_host;
};

static int parse_replay(int argc, char **argv, struct replay_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < argc; i++) {
		/* "" for a missing value, so that an unknown option is said first */
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : "";
		uint64_t n;
		if (!strcmp(arg, "--hash-every-op")) {
			a->run.hash_every_op = true;
			continue;
		}
		if (arg[0] != '-') {
			if (a->file)
				return usage_error("replay takes one trace; '%s' is a second", arg);
			a->file = arg;
			continue;
		}
		if (!strcmp(arg, "--kernel")) {
			snprintf(a->kernel_path, sizeof(a->kernel_path), "%s", val);
		} else if (!strcmp(arg, "--save-disks")) {
			a->run.save = val;
		} else if (!strcmp(arg, "--rules")) {
			a->rules = val;
		} else if (!strcmp(arg, "--passes")) {
			if (!parse_u64(val, &n) || n < 1 || n > 100000)
				return usage_error(
				    "--passes needs a count from 1 to 100000, got '%s'", val);
			a->run.passes = (int)n;
		} else if (!strcmp(arg, "--clock")) {
			if (strcmp(val, "host"))
				return usage_error("replay --clock takes only 'host' (the trace "
						   "names its clock), got '%s'",
						   val);
			a->clock_host = true;
		} else {
			return unknown_option(arg);
		}
		if (++i == argc)
			return missing_value(arg);
	}
	if (!a->file)
		return usage_error("%s", "replay needs a trace: themis replay TRACE [options]");
	if (a->kernel_path[0]) {
		if (resolve_kernel(a->kernel_path, sizeof(a->kernel_path)))
			return EXIT_USAGE;
		a->kernel = a->kernel_path;
	}
	if ((a->run.hash_every_op || a->clock_host) && !a->run.passes)
		return usage_error("%s", "--hash-every-op and --clock host go with --passes N");
	if (a->run.save && a->run.passes)
		return usage_error("%s", "--save-disks and --passes do not go together");
	if (a->run.save && mkdir(a->run.save, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "themis: --save-disks %s: cannot create: %s\n", a->run.save,
			strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* The rules a replay runs by into r: --rules DIR; else the trace's folder
 * when its rules still hash as recorded; else the build's, with a warning
 * when they differ from the recorded ones (the answers may differ). 0, or
 * EXIT_USAGE said. */
static int replay_rules(const struct replay_args *a, const struct trace *t, struct rules *r)
{
	const char *const *fs = t->m.fs;
	if (a->rules)
		return load_rules(r, a->rules, fs, t->m.nfs);
	char err[1024];
	if (t->rules_dir[0] && !rules_load(r, t->rules_dir, fs, t->m.nfs, err, sizeof(err)) &&
	    r->hash == t->rules_hash)
		return 0;
	if (load_rules(r, NULL, fs, t->m.nfs))
		return EXIT_USAGE;
	if (t->rules_dir[0] && r->hash != t->rules_hash)
		fprintf(stderr,
			"themis: warning: the trace was recorded under other rules (%016llx in "
			"%s) than %s/ has (%016llx): differences they accept may differ\n",
			(unsigned long long)t->rules_hash, t->rules_dir, r->dir,
			(unsigned long long)r->hash);
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(replay_help, stdout);
		return 0;
	}
	struct replay_args a;
	int rc = parse_replay(argc, argv, &a);
	if (rc)
		return rc;
	struct trace *t = malloc(sizeof(*t));
	struct rules *rules = malloc(sizeof(*rules));
	char err[1024];
	bool ok = t && rules && trace_read(a.file, t, !a.kernel, err, sizeof(err)) == 0;
	if (ok && replay_rules(&a, t, rules)) {
		free(t);
		free(rules);
		return EXIT_USAGE;
	}
	if (ok)
		t->m.rules = rules;
	if (ok && t->notes[0])
		fprintf(stderr, "themis: note: %s\n", t->notes);
	if (ok && a.kernel && t->kernel_b.known) {
		snprintf(err, sizeof(err),
			 "%s: replay --kernel: the trace compares two kernels (its kernel-b "
			 "line); replay it as recorded",
			 a.file);
		ok = false;
	}
	if (ok && a.kernel)
		t->m.kernel = a.kernel; /* the same operations on another kernel */
	if (ok)
		t->m.clock_host = a.clock_host;
	/* Hashes are comparable only between runs of one build: another's
	 * passes would all be "different" for no reason of the trace's. */
	if (ok && a.run.passes && t->build != TRACE_BUILD_SAME) {
		snprintf(err, sizeof(err),
			 "%s: --passes compares whole-machine hashes, which only the build that "
			 "recorded the trace reproduces (%s); replay it without --passes, or "
			 "record it again",
			 a.file,
			 t->build == TRACE_BUILD_OTHER ? "this one is another build"
						       : "the trace does not name its build");
		ok = false;
	}
	if (ok && t->build != TRACE_BUILD_SAME)
		fprintf(stderr,
			"themis: warning: %s: the operations replay the same, but the run may not "
			"be bit for bit the recorded one\n",
			t->build == TRACE_BUILD_OTHER
			    ? "the trace was recorded by another build of themis"
			    : "the trace does not say which build of themis recorded it");
	if (!ok) {
		fprintf(stderr, "themis: %s\n", t && rules ? err : "out of memory");
		free(t);
		free(rules);
		return EXIT_USAGE;
	}
	rc = replay_run(&a.run, t, err, sizeof(err));
	if (rc == -2)
		fprintf(stderr, "themis: %s\n", err);
	free(t);
	free(rules);
	return rc < 0 ? EXIT_USAGE : rc ? EXIT_FINDING : 0;
}
