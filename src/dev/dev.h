/* dev.h - what every device says about its forkable state, once. A device
 * keeps that state in a plain struct with no pointers (its wiring to the
 * hart, its interrupt line, DMA or disk lives beside it, in the device
 * struct the board sets up once), and describes it here by name, version
 * and size, so the board copies, hashes, saves and loads every device
 * without knowing what is inside. This is QEMU's VMStateDescription without
 * the field list: the struct is copied whole, and a snapshot is only ever
 * loaded by the build that wrote it.
 *
 * A device resets its state with memset and then sets fields, never by
 * assigning a compound literal: padding bytes stay zero, so the bytes of
 * the state are a faithful key for hashes and comparisons. */
#ifndef THEMIS_DEV_H
#define THEMIS_DEV_H

#include <stdint.h>

struct dev_state_desc {
	const char *name; /* short, unique on a board: names the part in files */
	uint32_t version; /* bump when the state struct changes */
	uint32_t size;	  /* sizeof the state struct */
};

#endif
