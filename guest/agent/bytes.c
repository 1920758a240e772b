/* The checker's commands that read a file's bytes on every disk, through
 * each one's mount (the command loop: check.c; the words:
 * src/proto/agent_cmds.h):
 *
 *   diff PATH        where PATH's bytes first differ between the disks, read
 *                    through each one's mount: "d OFFSET", or "d none
 *                    BYTES" when the first DIFF_SCAN_MAX bytes (BYTES read)
 *                    are alike; then per disk "b I START HEX", its bytes
 *                    [START, START + DIFF_WINDOW) around OFFSET (fewer at
 *                    the end of the file), or "b I !ERRNO", "b I unmounted"
 *   range PATH OFF LEN...
 *                    the bytes [OFF, OFF + LEN) of PATH, opened as an
 *                    operation opens it (following symlinks), up to its
 *                    end: per disk "h I N HASH FILE", N the bytes read,
 *                    HASH their XXH3-128 and FILE the path of the file
 *                    read (PATH with its symlinks resolved) (or "h I
 *                    !ERRNO", "h I unmounted");
 *                    one LEN for every disk, or one per disk. The crash
 *                    lens holds an O_SYNC write's range to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../../src/proto/op_grammar.h"
#include "agent.h"
#include "sb.h"
#include "walk.h"

#define DIFF_SCAN_MAX (64ull << 20) /* bytes diff compares at most */
#define DIFF_WINDOW   128	    /* bytes diff shows, half before the offset */
#define DIFF_DISKS    8		    /* disks diff compares at most */

/* Up to AGENT_BLOCK bytes of fd at off into buf: how many, or -1. */
static ssize_t block_at(int fd, uint8_t *buf, off_t off)
{
	ssize_t got = 0, n = 1;
	while (got < AGENT_BLOCK && n > 0) {
		n = pread(fd, buf + got, (size_t)(AGENT_BLOCK - got), off + got);
		if (n < 0)
			return -1;
		got += n;
	}
	return got;
}

/* The first offset below DIFF_SCAN_MAX where the open files fds[0..n)
 * (-1: left out) differ, a read error or the end of one file counting as
 * a difference; -1 when none, *scanned the bytes compared. */
static long long first_diff(const int *fds, int n, uint8_t (*buf)[AGENT_BLOCK], uint64_t *scanned)
{
	for (*scanned = 0; *scanned < DIFF_SCAN_MAX; *scanned += AGENT_BLOCK) {
		ssize_t len[DIFF_DISKS] = {0}, first = -2, any = 0;
		int k0 = -1;
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			len[i] = block_at(fds[i], buf[i], (off_t)*scanned);
			any |= len[i];
			if (k0 < 0)
				k0 = i, first = len[i];
		}
		if (k0 < 0 || any <= 0)
			return -1;
		for (int i = k0 + 1; i < n; i++) {
			if (fds[i] < 0)
				continue;
			ssize_t common = len[i] < first ? len[i] : first;
			for (ssize_t j = 0; j < common; j++)
				if (buf[i][j] != buf[k0][j])
					return (long long)*scanned + j;
			if (len[i] != first)
				return (long long)*scanned + (common < 0 ? 0 : common);
		}
		if (first < AGENT_BLOCK)
			return -1;
	}
	return -1;
}

/* diff PATH: see the top of this file. The files are opened inside each
 * disk's chroot and read after leaving it: one pass over all of them. */
void cmd_diff(struct disk *disks, int ndisks, char **w, int nw)
{
	if (nw != 2 || !op_path_ok(w[1]) || ndisks > DIFF_DISKS) {
		out("error usage: diff PATH (at most %d disks)", DIFF_DISKS);
		return;
	}
	int fds[DIFF_DISKS], errs[DIFF_DISKS];
	for (int i = 0; i < ndisks; i++) {
		fds[i] = -1, errs[i] = ENODEV;
		if (!disks[i].mounted || enter_disk(&disks[i]) < 0)
			continue;
		fds[i] = open(w[1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		errs[i] = errno;
		leave_disk();
	}
	uint8_t(*buf)[AGENT_BLOCK] = xrealloc(NULL, (size_t)ndisks * AGENT_BLOCK);
	uint64_t scanned;
	long long off = first_diff(fds, ndisks, buf, &scanned);
	if (off < 0)
		out("d none %llu", (unsigned long long)scanned);
	else
		out("d %lld", off);
	off_t start = off > DIFF_WINDOW / 2 ? (off_t)off - DIFF_WINDOW / 2 : 0;
	for (int i = 0; i < ndisks; i++) {
		char hex[2 * DIFF_WINDOW + 1] = "";
		ssize_t n = fds[i] < 0 ? -1 : pread(fds[i], buf[0], DIFF_WINDOW, start);
		if (fds[i] >= 0 && n < 0)
			errs[i] = errno;
		for (ssize_t j = 0; j < n; j++)
			snprintf(hex + 2 * j, 3, "%02x", buf[0][j]);
		if (!disks[i].mounted)
			out("b %d unmounted", disks[i].idx);
		else if (n < 0)
			out("b %d !%s", disks[i].idx, errname(errs[i]));
		else
			out("b %d %lld %s", disks[i].idx, (long long)start, hex);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	free(buf);
}

/* The XXH3-128 of fd's bytes [off, off + len) up to its end into hex,
 * their count into *n; -1 with errno on a failed read. */
static int hash_range(int fd, uint64_t off, uint64_t len, char hex[33], unsigned long long *n)
{
	uint8_t buf[AGENT_BLOCK];
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	for (*n = 0; *n < len;) {
		size_t want = len - *n < AGENT_BLOCK ? (size_t)(len - *n) : AGENT_BLOCK;
		ssize_t got = pread(fd, buf, want, (off_t)(off + *n));
		if (got < 0)
			return -1;
		if (!got)
			break;
		XXH3_128bits_update(&st, buf, (size_t)got);
		*n += (unsigned long long)got;
	}
	hex128(XXH3_128bits_digest(&st), hex);
	return 0;
}

/* range PATH OFF LEN...: see the top of this file. */
void cmd_range(struct disk *disks, int ndisks, char **w, int nw)
{
	uint64_t off, len[DIFF_DISKS];
	bool ok = (nw == 4 || nw == 3 + ndisks) && ndisks <= DIFF_DISKS && op_path_ok(w[1]) &&
		  op_parse_dec(w[2], OP_MAX_SIZE, &off);
	for (int i = 0; ok && i < ndisks; i++)
		ok = op_parse_dec(w[nw == 4 ? 3 : 3 + i], OP_MAX_SIZE, &len[i]);
	if (!ok) {
		out("error usage: range PATH OFF LEN... (one LEN, or one per disk; at most %d "
		    "disks; OFF and LEN at most %llu)",
		    DIFF_DISKS, OP_MAX_SIZE);
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		char hex[33], file[PATH_MAX];
		unsigned long long n = 0;
		int fd = -1, err = 0;
		if (!disks[i].mounted) {
			out("h %d unmounted", disks[i].idx);
			continue;
		}
		if (enter_disk(&disks[i]) < 0)
			err = errno;
		else {
			fd = open(w[1], O_RDONLY | O_NOATIME | O_CLOEXEC);
			err = errno;
			/* the chroot's root is the test root: "/f0" */
			if (fd >= 0 && !realpath(w[1], file))
				snprintf(file, sizeof(file), "/%s", w[1]);
			leave_disk();
		}
		if (fd >= 0 && hash_range(fd, off, len[i], hex, &n) < 0)
			err = errno, close(fd), fd = -1;
		if (fd < 0) {
			out("h %d !%s", disks[i].idx, errname(err));
			continue;
		}
		close(fd);
		out("h %d %llu %s %s", disks[i].idx, n, hex,
		    op_path_ok(file + 1) ? file + 1 : w[1]);
	}
}
