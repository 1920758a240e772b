/* show.h - what a discrepancy is shown with, beyond its one line: the
 * bytes around the first differing offset of a file (content), the stat
 * of the path on every filesystem (metadata), and the fsck verdict of
 * every disk (the on-disk view). Each appends lines to a description
 * ("\n  ..."), so the first line stays the discrepancy's summary. */
#ifndef THEMIS_CHECK_SHOW_H
#define THEMIS_CHECK_SHOW_H

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/* The dump record of `path` on every disk of `log` (the agent's "e DISK
 * PATH FIELDS" lines), or on disk `only` alone (-1: every disk), each
 * named m->fs[i] + suffix ("", "'s disk"); the heading unless `more`
 * continues a list begun by an earlier call. */
void check_show_stat(const struct check_machine *m, const char *log, const char *path,
		     const char *suffix, int only, bool more, char *out, size_t cap);

/* Ask the agent where `path` first differs between the disks, in the
 * state the machine is in, and append that offset and an xxd-style dump
 * of every disk's bytes around it. 0, or -1 (the guest failed: said). */
int check_show_bytes(struct virt *v, const struct check_machine *m, const char *path,
		     const char *suffix, char *out, size_t cap);

/* Unmount every disk, save each to a scratch image and append the
 * verdict of its filesystem's own checker, run read-only on it (the table
 * of src/lens/corrupt_fsck.c). The machine is left unmounted: call it
 * inside a fork. 0, or -1 (said). */
int check_show_fsck(struct virt *v, const struct check_machine *m, char *out, size_t cap);

#endif
