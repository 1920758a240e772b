/* virt_internal.h - what the board's own files share and nothing else
 * uses: virt.c (the board and its run loop), virt_agent.c (the link to the
 * guest agent), virt_fork.c and virt_hash.c. Not part of virt.h's
 * interface. */
#ifndef THEMIS_VIRT_INTERNAL_H
#define THEMIS_VIRT_INTERNAL_H

#include "virt.h"

/* Stop the run for `why` (the first reason wins), detail may be NULL. */
void virt_stop_with(struct virt *v, enum virt_stop why, const char *detail);

/* A device or the host writes guest RAM: page by page, copy-on-write, the
 * hart's decoded instructions of those bytes dropped. False outside RAM.
 * `opaque` is the struct virt (it is also the board's DMA callback). */
bool virt_dma_write(void *opaque, uint64_t pa, const void *buf, uint64_t len);

/* The hart executed the doorbell (the cpu_bus callback): the agent's
 * command in cmd, its buffer at guest-virtual buf. */
uint64_t virt_doorbell(void *opaque, uint64_t cmd, uint64_t buf, uint64_t len);

#endif
