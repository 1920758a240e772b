/* virt_unwind.h - the guest kernel's call stack, read by the host at a
 * sample of the guest profiler (virt_sample.h), from a kernel built
 * without frame pointers.
 *
 * Each function's own code says where its caller is: the prologue's
 * `addi sp, sp, -N` and `sd ra, OFF(sp)` (or their compressed forms) give
 * the frame's size and where the return address was saved; a pc in an
 * epilogue, with no branch before its `ret`, reads what is left of the
 * frame from the instructions ahead. A leaf that saved nothing returns
 * through the ra register. The walk stops where the code does not say
 * (assembly such as the trap entry, a frame set up some other way) or an
 * address leaves the kernel's text or stack: a stack may be cut short,
 * but each frame it names is read from the stack the guest would return
 * through. The guest is only read: no page table's accessed bit is set,
 * nothing is raised, nothing counts. */
#ifndef THEMIS_VIRT_UNWIND_H
#define THEMIS_VIRT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "kmap.h"
#include "virt.h"

#define VIRT_STACK_MAX 40 /* frames kept per sample, innermost first */

/* The return addresses of the kernel stack v's hart is on, innermost
 * first, into ret (at most max): how many (0 outside supervisor mode).
 * map: the kernel's, where its functions start. */
int virt_unwind(struct virt *v, const struct kmap *map, uint64_t *ret, int max);

/* Where v's hart is, for a guest that stopped where it should not (a
 * hang): " at FUNC+0xOFF <- CALLER+0xOFF <- ..." (at most `frames`, named
 * by the kernel's map, KERNEL.map), " in user mode" there, "" with no
 * map. */
void virt_where(struct virt *v, int frames, char *out, size_t cap);

#endif
