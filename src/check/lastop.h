/* lastop.h - the disks' byte diff of a trace's last operation: what it
 * changed on each filesystem's disk, synced, named by structure and field
 * (the diff engine, src/format/diff.h). explore writes it for each group's
 * simplest trace (group-NNNN/disk-diff.txt) and the report shows it beside
 * the difference the views show: where the views say "nlink=2 on ext4,
 * nlink=3 on ext2", the diff says which on-disk fields each one wrote.
 *
 * One machine, booted once and held at the root, serves every trace of a
 * run: each replays from a restore of the root, as the minimizer's
 * attempts do, with no crash states, checkers or counting. */
#ifndef THEMIS_LASTOP_H
#define THEMIS_LASTOP_H

#include <stddef.h>
#include <stdio.h>

#include "check.h"

struct lastop;

#define LASTOP_FILE "disk-diff.txt" /* in a group's folder */

/* Boot m's machine and check its root. 0, or -1 with err (*out NULL). */
int lastop_open(struct lastop **out, const struct check_machine *m, char *err, size_t errlen);
/* The trace's operations from the root; then, per filesystem, a line
 * "FS: `OP` changed N sectors ..." and diff.h's line per range. What
 * stops the diff (a guest failure, a trace without operations) is said on
 * out too. 0, or -1 with err (the trace cannot be read, out of memory, the
 * machine failed at a restore). */
int lastop_write(struct lastop *x, const char *trace, FILE *out, char *err, size_t errlen);
void lastop_close(struct lastop *x);

#endif
