/* gprof_int.h - what the guest profiler's two files share: the symbol
 * tables and the numbering of functions. gprof.c counts samples by the
 * function they were in; gprof_stack.c follows their kernel stacks. */
#ifndef THEMIS_GPROF_INT_H
#define THEMIS_GPROF_INT_H

#include <stdint.h>
#include <stdio.h>

#include "../machine/virt_sample.h"
#include "../machine/kmap.h"

/* The kernel's (supervisor-mode pcs) and the agent's (user mode). */
struct gprof_syms {
	struct kmap k, a;
};

/* Functions are numbered kernel symbols first, then the agent's, then
 * these: user mode outside the agent's code (the vDSO), the agent
 * without its map, the SBI (machine mode), a kernel pc no symbol covers. */
enum { FN_USER, FN_AGENT, FN_SBI, FN_UNKNOWN, FN_SPECIAL };

/* How many numbers there are. */
size_t gprof_nfn(const struct gprof_syms *s);

/* The function holding pc at privilege priv (1 the kernel, 0 user, 3 SBI). */
long gprof_fn_at(const struct gprof_syms *s, uint64_t pc, int priv);

/* Its name ("agent:NAME" for the agent's; valid until the next call). */
const char *gprof_fn_name(const struct gprof_syms *s, long fn);

/* "callers of the top functions": for each of fns, who called it at its
 * samples (the first frame of their stacks). */
void gprof_callers(FILE *f, const struct gprof_syms *s, const struct virt_sampler *smp,
		   const long *fns, int n);

/* The index of by's largest count (n when all are 0), its count into
 * *count, and that count zeroed: the top of a tally, one per call. */
size_t gprof_take_top(uint64_t *by, size_t n, uint64_t *count);

/* A picture or table file of the profile: opened (NULL with err), and
 * closed (0, or -1 with err when the writes failed). */
FILE *gprof_open(const char *path, char *err, size_t errlen);
int gprof_close(FILE *f, const char *path, char *err, size_t errlen);

/* An SVG's head: its size and font, on white. */
void gprof_svg_head(FILE *f, int width, int height, int font_size);

/* s, escaped for XML text and attributes. */
void gprof_xml_text(FILE *f, const char *s);

#endif
