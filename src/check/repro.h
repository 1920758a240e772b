/* repro.h - a reproducer anyone can run: from a discrepancy's trace, a
 * standalone repro.c (plain libc and syscalls: the trace's operations on
 * every mounted filesystem, and what each then shows) and a repro.sh that
 * makes the images with Themis's own mkfs commands (src/fs descriptors),
 * loop-mounts them, runs repro.c, looks at the on-disk view as the trace
 * did and prints the comparison with a verdict. For a crash trace, repro.sh
 * records every write and flush of the one filesystem the finding is on
 * with dm-log-writes, cuts the power after the operations, rebuilds the
 * crash disk the trace's `crash-point` line names (lens_crash.c) from the
 * recording, recovers it (log replay tool, mount; a recovery-crash's
 * recovery is recorded and crashed again), runs the checker and judges
 * what the operations promised. No Themis needed to run them: root on any
 * Linux with the mkfs tools, a C compiler (and dmsetup for a crash). */
#ifndef THEMIS_REPRO_H
#define THEMIS_REPRO_H

#include <stddef.h>

/* Write DIR/repro.c and DIR/repro.sh for the trace at trace_path; dir NULL:
 * NAME.repro/ beside the trace (NAME: the trace's file name without
 * .trace), made if missing. 0, or -1 with err saying what and where: a
 * trace that cannot be read or is malformed, a finding (a panic or hang is
 * not a state to compare, nor a guest failure under a crash), an operation
 * that sets the machine's clock (OPF_CLOCK: settime), a time field (the agent pins one instant for
 * every filesystem, a program cannot), a crash trace without its
 * crash-point line (an older Themis's), or a file that cannot be
 * written. */
/* The file a run writes beside a group's reproducer when repro_write
 * refused its trace: the reason, one line. */
#define REPRO_REFUSED "no-repro.txt"

int repro_write(const char *trace_path, const char *dir, char *err, size_t errlen);

/* The default folder: NAME.repro beside the trace, NAME its file name
 * without .trace. */
void repro_default_dir(const char *trace_path, char *out, size_t cap);

#endif
