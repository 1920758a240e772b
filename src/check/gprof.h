/* gprof.h - the guest profiler's report (explore --profile-guest N): the
 * machine's samples (one pc every N guest instructions, virt_sample.h)
 * named by the kernel's own symbols (the System.map that
 * scripts/build-kernel.sh keeps beside each image as IMAGE.map), and
 * counted by phase of the check (phase.h), by operation kind and by
 * function: where a state's guest instructions go, to pick what to make
 * cheaper. No call stacks: the guest kernel is built without frame
 * pointers, so each sample is the function its pc was in.
 *
 * Written as text (the top functions overall, per phase and per
 * operation kind) and as an SVG icicle of phase, function and
 * operation kind, each box as wide as its share of the samples. */
#ifndef THEMIS_GPROF_H
#define THEMIS_GPROF_H

#include <stddef.h>
#include <stdio.h>

#include "../machine/virt_sample.h"

#define GPROF_TEXT   "guest-profile.txt" /* in explore's --out folder */
#define GPROF_SVG    "guest-profile.svg"
#define GPROF_FOLDED "guest-stacks.folded" /* phase;kind;outer;...;inner COUNT */
#define GPROF_FLAME  "guest-flame.svg"

/* The symbols: the kernel image's map (KERNEL.map), and the agent's
 * (agent.map beside the initramfs, optional). 0, or -1 with err (the
 * kernel's missing or unreadable, either holding no text symbol). */
struct gprof_syms;
int gprof_syms_load(struct gprof_syms **out, const char *kernel, const char *initrd, char *err,
		    size_t errlen);
void gprof_syms_free(struct gprof_syms *s);

/* The kernel's map, for the machine's stack walk at each sample
 * (virt_sampler_start); valid while s is. */
const struct kmap *gprof_kernel_map(const struct gprof_syms *s);

/* The kernel function holding pc ("" when no symbol covers it). */
const char *gprof_symbol(const struct gprof_syms *s, uint64_t pc);

/* The profile of the sampler's samples: the text to `text`, and when
 * svg_path is not NULL the picture there. 0, or -1 with err. */
int gprof_write(const struct gprof_syms *syms, const struct virt_sampler *smp, const char *kernel,
		FILE *text, const char *svg_path, char *err, size_t errlen);

/* The samples' stacks: every distinct one with its count, folded
 * (phase;kind;outermost;...;innermost COUNT, the format of flamegraph.pl
 * and speedscope), and a flame graph of them. 0, or -1 with err. */
int gprof_write_stacks(const struct gprof_syms *syms, const struct virt_sampler *smp,
		       const char *folded_path, const char *flame_path, char *err, size_t errlen);

#endif
