/* kline.h - the file and line of each frame of a kernel report. A report's
 * lines name frames as the kernel's KALLSYMS does, "FUNC+0xOFF/0xLEN";
 * the kernel's System.map (KERNEL.map) gives FUNC's address, its line
 * tables (KERNEL.debug: vmlinux's debug sections, which
 * scripts/build-kernel.sh --debug writes beside each debug kernel) the
 * source line, through binutils' addr2line, once per report and
 * remembered by address. Plain data (a map and a memo): a forked worker
 * has its own copy and nothing shared. */
#ifndef THEMIS_KLINE_H
#define THEMIS_KLINE_H

#include <stddef.h>

struct kline;

/* The line tables of the kernel at path `kernel`: 0 with *out set; 1
 * there are none (not a debug kernel, or built before they were kept:
 * *out NULL, frames stay as printed); -1 no memory. */
int kline_open(struct kline **out, const char *kernel);
void kline_close(struct kline *k);

/* text (lines ended by '\n') into out, each frame followed by its
 * " (FILE:LINE)" where the line tables know it; k NULL copies. */
void kline_annotate(struct kline *k, const char *text, char *out, size_t cap);

#endif
