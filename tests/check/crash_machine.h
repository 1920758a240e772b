/* crash_machine.h - the two-filesystem machine that test_crash.c and
 * bench/crash/bench_crash.c boot from a build folder: its kernel,
 * initramfs and base images, the settings explore uses by default. */
#ifndef THEMIS_TESTS_CRASH_MACHINE_H
#define THEMIS_TESTS_CRASH_MACHINE_H

#include <stdio.h>
#include <stdlib.h>

#include "../../src/check/check.h"

/* m: fs0 and fs1 from BUILD (paths kept in paths, which must outlive m);
 * the kernel $THEMIS_KERNEL when set, as for themis. */
static inline void crash_machine(const char *build, const char *fs0, const char *fs1,
				 char paths[4][512], struct check_machine *m)
{
	const char *kernel = getenv("THEMIS_KERNEL"); /* as themis reads it */
	if (kernel && *kernel)
		snprintf(paths[0], 512, "%s", kernel);
	else
		snprintf(paths[0], 512, "%s/guest/Image", build);
	snprintf(paths[1], 512, "%s/guest/initramfs.cpio.gz", build);
	snprintf(paths[2], 512, "%s/images/%s.img", build, fs0);
	snprintf(paths[3], 512, "%s/images/%s.img", build, fs1);
	*m = (struct check_machine){.fs = {fs0, fs1},
				    .nfs = 2,
				    .kernel = paths[0],
				    .initrd = paths[1],
				    .images = {paths[2], paths[3]},
				    .mem = 256ULL << 20,
				    .clock_ns = 1767225600ULL * 1000000000ULL,
				    .machine_seed = 1};
	/* The repository's rules (BUILD/../rules), as explore loads them:
	 * what the agent ignores (directory sizes) is what a run ignores. */
	static struct rules rules;
	char dir[600], err[512];
	snprintf(dir, sizeof(dir), "%s/../rules", build);
	if (rules_load(&rules, dir, m->fs, m->nfs, err, sizeof(err)))
		fprintf(stderr, "crash_machine: %s (running without rules)\n", err);
	else
		m->rules = &rules;
}

#endif
