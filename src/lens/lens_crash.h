/* lens_crash.h - what of the crash lens (lens_crash.c) others read: the
 * promise an operation makes, in the words a crash reproducer (repro.h)
 * judges it by. */
#ifndef THEMIS_LENS_CRASH_H
#define THEMIS_LENS_CRASH_H

#include <stddef.h>

/* The promise of the operation of text "op NAME ARGS..." at its end, into
 * out: "sync" (the whole tree), "file P END" (fsync: P's whole record),
 * "data P END" (fdatasync: P's size and content), "file-range P END" (an
 * O_SYNC write: P, at least as long as END or as it was, of its kind,
 * mode and owner), "data-range P END" (O_DSYNC, msync: the same but kind
 * and owner), or "" (none). END is the written range's end (0 without). */
void lens_crash_promise(const char *optext, char *out, size_t cap);

#endif
