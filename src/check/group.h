/* group.h - discrepancies grouped by signature: one bug found along many
 * paths is one group, listed once with its count and its simplest member.
 * The coordinator groups the run's records (share.h) when it writes the
 * report, so a group spans every worker, local or through Redis. */
#ifndef THEMIS_GROUP_H
#define THEMIS_GROUP_H

#include <stdio.h>

#include "share.h"

#define GROUP_SHAPE_MAX 1024

/* A group: the records whose signature (kind:field, as share_record's
 * sig), view and shape are alike (of a trace as found, the last
 * operation's name: group.c); the filesystems are the run's. */
struct check_group {
	int id;			     /* 1, 2, ... in the order first found */
	char sig[64];		     /* "disk:content", "state:nlink", "finding"... */
	char key[GROUP_SHAPE_MAX];   /* what of the shape groups */
	char shape[GROUP_SHAPE_MAX]; /* the simplest member's operation names, comma-joined
					("" at the root) */
	int count;		     /* members */
	int simplest;		     /* the record index of the member with the fewest operations */
	int nops;		     /* its operations */
	char simplest_trace[1100]; /* its trace (the .min.trace with --minimize), set by the writer
				    */
};

/* The view a signature was seen in: "live" (state, result), "disk",
 * "durability" (a disk against its own cache), "crash" (a recovery after a
 * crash state), "fsck" (a checker's verdict on a disk) or "guest" (a
 * finding). */
const char *group_view(const char *sig);

/* The operations a record is grouped by: the simplified ones when
 * --minimize made them, else those found. */
const char *group_ops(const struct share_record *r);

/* Group the n records: the groups into g (room for n), each record's group
 * index into of[i]. Returns how many groups. */
int group_records(const struct share_record *r, int n, struct check_group *g, int *of);

/* The groups for the run's summary, a line each, into f. */
void group_print(FILE *f, const struct check_group *g, int ngroups, int nrecords,
		 const char *const *fs, int nfs, bool minimized);

#endif
