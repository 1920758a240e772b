/* The model checker's commands in the command loop (see doorbell.h):
 *
 *   op NAME ARGS...  one operation on every disk; per disk "r I RET ERRNO",
 *                    then per disk "f I HEX32" (the fingerprint after it)
 *   run NAME ARGS... the same operation with only the "r" lines: no walk
 *                    after it, so the disks see the operation's own I/O
 *                    (the io profile's probe)
 *   fp [time]        per disk "f I HEX32", then a "v" line as for op
 *   dump [time]      per disk and entry, sorted by path, "e I RECORD"
 *   reset            empty every test root; per disk "r I RET ERRNO"
 *   durable MODE [dump]
 *                    the on-disk view: sync, then drop every cache
 *                    (MODE drop-caches) or unmount and mount every disk
 *                    (MODE remount), then per disk "f I HEX32" (or, with
 *                    dump, its "e I RECORD" lines). The host runs it inside
 *                    a fork and throws the machine away afterwards.
 *   times PATH...    up to TIMES_MAX_PATHS paths; per disk and path
 *                    "t I PATH atime=SEC.NSEC mtime=SEC.NSEC ctime=SEC.NSEC ino=N"
 *                    (or "t I PATH !ERRNO"; "t I unmounted"): lstat's
 *                    times and nothing else. Unlike dump, it reads no
 *                    symlink (readlink moves a symlink's atime), so it
 *                    moves no time itself: the semantics lens
 *                    (src/tools/semantics.c) takes a dump first and this
 *                    last before an operation, this first after it.
 *   mountopt NAME    remount every mounted disk (MS_REMOUNT) with the
 *                    atime option NAME (strictatime, relatime or noatime:
 *                    ATIME_TABLE in op_table.h) in place of the one it had,
 *                    kept for every later mount of the disk (op remount,
 *                    durable remount, mount); per disk "r I RET ERRNO"
 *   timegran NS ATIME_NS
 *                    mtime and ctime in fp and dump rounded down to a
 *                    multiple of NS, atime of ATIME_NS (the coarsest
 *                    granularities of the filesystems under test)
 *   umount, mount, readonly [I...]
 *                    unmount, mount, or remount read-only (the fsck lens's
 *                    clean disk) every disk or those named; per disk
 *                    "r I RET ERRNO"
 *   rtc              the RTC as the kernel reads it: "rtc SECONDS"
 *   diff PATH, range PATH OFF LEN...
 *                    a file's bytes on every disk: bytes.c
 *   sleep SECONDS[.FRACTION]
 *                    nanosleep up to 3600 s, then "slept SECONDS": lets
 *                    the guest's clock move on (it is virtual, so a sleep
 *                    costs the host next to nothing) so that an operation
 *                    after it stamps times a 1-second granularity shows
 *
 * After op's fingerprints, one line "v ENTRY..." lists what exists on the
 * first disk, as PATH:K (K: d directory, f file, l symlink, o other) for
 * the host's generator, so it needs no second walk.
 *
 * I is the disk's index; a disk that is not mounted answers "r I unmounted",
 * "f I unmounted", "e I unmounted". A malformed command touches no disk and
 * gets one line "error usage: ...". The grammar of op is src/proto/op_table.h;
 * RECORD and the fingerprint are defined above the walk.
 *
 * Each disk's test root is its mount point; lost+found (and nilfs2's .nilfs) at the root is never
 * listed nor touched. Operations run chrooted into the disk (so "..", and
 * symlinks, absolute ones included, never leave it) with umask 0 (MODE is
 * the mode asked for). RET is the call's return (bytes written, 0, or -1)
 * and ERRNO the errno's name, or 0; a write that stops early (ENOSPC)
 * gives the bytes it wrote with the errno that stopped it. Written data is
 * a pattern: byte i of a write is byte p % 8 of mix(SEED, p / 8) below with
 * p = OFF + i (with append too, though the bytes land at the end of the
 * file); byte i of an xattr value, likewise with p = i.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/rtc.h>
#include <sys/ioctl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../../src/proto/op_grammar.h"
#include "../../src/proto/op_table.h"
#include "../../src/proto/op_run.h"
#include "../../src/proto/rule_fields.h"
#include "agent.h"
#include "sb.h"
#include "walk.h"
#include "../../src/proto/agent_cmds.h"
#include "../../src/proto/doorbell.h"

#define ROOT_MODE 0755 /* what reset leaves the root with */

#define TIMES_MAX_PATHS 4    /* paths a times command takes */
#define SLEEP_MAX	3600 /* seconds: well below relatime's one-day rule */

static int real_root = -1; /* the agent's own "/", to leave a chroot */

/* ---- chroot into a disk ---- */

uint8_t *const agent_chunk = op_chunk;
_Static_assert(AGENT_CHUNK == OP_CHUNK && AGENT_BLOCK == OP_BLOCK, "walk.h's sizes are op_run.h's");

int enter_disk(const struct disk *d)
{
	if (real_root < 0)
		real_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (real_root < 0 || chdir(d->mnt) < 0)
		return -1;
	return chroot(".");
}

void leave_disk(void)
{
	if (fchdir(real_root) == 0 && chroot(".") == 0)
		return;
	out("fatal: cannot leave a disk's chroot: %s", errname(errno));
	abort();
}

/* Not chrooted, and with the agent's umask (vfat takes its default
 * permissions from it): unmount and mount again as at boot. */
static struct op_res remount(struct disk *d)
{
	if (umount(d->mnt) < 0)
		return op_res_of(-1);
	int r = mount(d->dev, d->mnt, d->type, d->flags, d->data);
	d->err = r < 0 ? errno : 0;
	d->mounted = r == 0;
	return (struct op_res){r < 0 ? -1 : 0, d->err};
}

/* Tell the board's RTC too, as hwclock --systohc would: the clock a
 * reboot or a suspend reads back agrees with the one just set. */
static int set_rtc(time_t secs)
{
	struct tm tm;
	struct rtc_time rt;
	if (!gmtime_r(&secs, &tm))
		return -1;
	rt = (struct rtc_time){tm.tm_sec,  tm.tm_min,  tm.tm_hour, tm.tm_mday, tm.tm_mon,
			       tm.tm_year, tm.tm_wday, tm.tm_yday, 0};
	/* Operations run chrooted into a disk: the device is under the agent's root. */
	int fd = openat(real_root, "dev/rtc0", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = ioctl(fd, RTC_SET_TIME, &rt);
	int err = errno;
	close(fd);
	errno = err;
	return r;
}

/* The wall clock to the instant (the kernel refuses one before 1970 or
 * past 2262, KTIME_SEC_MAX, with EINVAL), and the RTC with it. Not a
 * filesystem call: every disk answers alike, and the clock it leaves is
 * what the next operation stamps. */
static struct op_res op_settime(const struct op_args *a)
{
	struct timespec t = op_instant(a);
	if (clock_settime(CLOCK_REALTIME, &t) < 0)
		return op_res_of(-1);
	return op_res_of(set_rtc(t.tv_sec));
}

/* The operations, generated from the one table the host shares
 * (src/proto/op_table.h: names, argument letters and names). Each runs
 * chrooted into a disk; remount (run NULL) is done outside, by step_disk. */
#define op_remount NULL
static const struct opdef {
	const char *name, *letters, *args;
	struct op_res (*run)(const struct op_args *a); /* NULL: remount */
} ops[] = {
#define AGENT_OP(e, name, letters, args, flags, example) {#name, letters, args, op_##name},
    OP_TABLE(AGENT_OP)
#undef AGENT_OP
};
#undef op_remount
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ---- parsing (op_grammar.h's op_parse_args) ---- */

/* The operation w[1] with its arguments w[2..], or NULL (usage printed). */
static const struct opdef *parse_op(char **w, int nw, struct op_args *a)
{
	const struct opdef *op = NULL;
	for (size_t i = 0; nw >= 2 && i < NOPS && !op; i++)
		if (!strcmp(w[1], ops[i].name))
			op = &ops[i];
	if (!op) {
#define AGENT_NAME(e, name, letters, args, flags, example) " " #name
		out("error usage: op NAME ARGS... (NAME:" OP_TABLE(AGENT_NAME) ")");
#undef AGENT_NAME
		return NULL;
	}
	bool ok = op_parse_args(op->letters, w + 2, nw - 2, a);
	if (!ok)
		out("error usage: op %s %s (letters %s: see op_table.h)", op->name, op->args,
		    op->letters);
	return ok ? op : NULL;
}

/* ---- reset ---- */

static int empty_dir(int fd, bool root);

/* rm -rf of one entry of directory pfd: 0, or the first errno. */
static int remove_entry(int pfd, const char *name)
{
	if (unlinkat(pfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return errno;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int err = empty_dir(fd, false);
	close(fd);
	if (unlinkat(pfd, name, AT_REMOVEDIR) < 0 && !err)
		err = errno;
	return err;
}

static int empty_dir(int fd, bool root)
{
	char **names;
	int n = list_names(fd, root, &names);
	if (n < 0)
		return -n;
	int err = 0;
	for (int i = 0; i < n; i++) {
		int e = remove_entry(fd, names[i]);
		err = err ? err : e;
	}
	free_names(names, n);
	return err;
}

/* The root as a fresh mkfs leaves it: mode 0755, owner 0:0, no user.*
 * xattrs (each changed only when it differs). 0, or the errno. */
static int reset_root(int fd)
{
	struct stat st;
	struct xnames x;
	if (fstat(fd, &st) < 0)
		return errno;
	if ((st.st_mode & 07777) != ROOT_MODE && fchmod(fd, ROOT_MODE) < 0)
		return errno;
	if ((st.st_uid || st.st_gid) && fchown(fd, 0, 0) < 0)
		return errno;
	int n = user_xattr_names(fd, &x), err = n < 0 ? -n : 0;
	for (int i = 0; i < n && !err; i++)
		err = fremovexattr(fd, x.names[i]) < 0 ? errno : 0;
	free(x.list);
	free(x.names);
	return err;
}

static struct op_res reset_disk(const struct disk *d)
{
	if (enter_disk(d) < 0)
		return op_res_of(-1);
	int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = fd < 0 ? errno : 0;
	if (fd >= 0) {
		err = empty_dir(fd, true);
		int e = reset_root(fd);
		err = err ? err : e;
		close(fd);
	}
	leave_disk();
	return (struct op_res){err ? -1 : 0, err};
}

/* ---- the commands ---- */

/* What an op did on one disk: its result, and the fingerprint after it. */
struct step {
	struct op_res r;
	bool ran; /* false: the disk was not mounted */
	char fp[FP_LEN];
	bool walked; /* fp is a walk's, and masked its ignored fields' */
	uint64_t masked[IGN_NFIELDS];
};

/* ---- one instant for every disk ----
 *
 * Each disk's turn of a command starts with the wall clock set back to the
 * instant the command began, so an operation stamps the same times on
 * every filesystem, value for value, however long the disks before it
 * took: times are comparable across filesystems, not merely ordered. The
 * instant is the coarse clock's (the last tick's), which is what the
 * filesystems stamp (current_time), so the first disk sees the time it
 * would have seen anyway, and a burst of operations within one tick shares
 * one time, as on any Linux. (The host holds the guest's time still
 * through the command, so no tick lands inside one disk's turn.) */
static struct timespec clock_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return t;
}

static void pin_clock(const struct timespec *at)
{
	if (clock_settime(CLOCK_REALTIME, at) < 0) {
		out("fatal: cannot set the clock: %s", errname(errno));
		abort();
	}
}

/* The op on a mounted disk and the fingerprint after it, in one visit. */
static void step_disk(struct disk *d, const struct opdef *op, const struct op_args *a,
		      struct step *s, struct sb *view, bool fp)
{
	s->walked = false;
	mark(DB_PHASE_OP);
	if (!op->run) {
		s->r = remount(d);
		mark(DB_PHASE_FP);
		if (fp && enter_or_say(d, s->fp)) {
			fp_here(false, s->fp, view);
			leave_disk();
			s->walked = true;
			memcpy(s->masked, masked_last, sizeof(s->masked));
		}
		return;
	}
	if (enter_disk(d) < 0) {
		s->r = op_res_of(-1);
		snprintf(s->fp, FP_LEN, "!%s", errname(s->r.err));
		return;
	}
	mode_t old = umask(0);
	s->r = op->run(a);
	mark(DB_PHASE_FP);
	umask(old);
	if (fp) {
		fp_here(false, s->fp, view);
		s->walked = true;
		memcpy(s->masked, masked_last, sizeof(s->masked));
	}
	leave_disk();
}

static void print_res(const struct disk *d, bool ran, struct op_res r)
{
	struct sb b = {xrealloc(NULL, 64), 0, 64};
	if (ran) { /* "RET ERR" */
		if (r.ret < 0)
			sb_add(&b, "-", 1);
		sb_dec(&b, r.ret < 0 ? 0ull - (unsigned long long)r.ret : (unsigned long long)r.ret,
		       1);
		sb_add(&b, " ", 1);
		sb_str(&b, errname(r.err));
	} else {
		SB_LIT(&b, "unmounted");
	}
	out_item('r', d->idx, b.s, b.len);
	free(b.s);
}

/* op: the results, the fingerprints and the view; run (fp false): the
 * results only, so that the disks see the operation's own I/O alone. */
static void op_command(struct disk *disks, int ndisks, char **w, int nw, bool fp)
{
	struct op_args a;
	struct step s[AGENT_MAX_DISKS];
	struct sb view = {xrealloc(NULL, 64), 0, 64};
	const struct opdef *op = parse_op(w, nw, &a);
	view.s[0] = 0;
	if (!op) {
		free(view.s);
		return;
	}
	struct timespec at = clock_now();
	for (int i = 0; i < ndisks; i++) {
		s[i].ran = disks[i].mounted;
		pin_clock(&at);
		if (s[i].ran)
			step_disk(&disks[i], op, &a, &s[i], i == 0 ? &view : NULL, fp);
		else
			snprintf(s[i].fp, FP_LEN, "unmounted");
	}
	for (int i = 0; i < ndisks; i++)
		print_res(&disks[i], s[i].ran, s[i].r);
	for (int i = 0; i < ndisks && fp; i++) {
		out_item('f', disks[i].idx, s[i].fp, strlen(s[i].fp));
		if (s[i].ran && s[i].walked)
			print_masked(disks[i].idx, s[i].masked);
	}
	if (fp)
		out_item('v', -1, view.s, view.len < DB_MAX_LEN - 8 ? view.len : DB_MAX_LEN - 8);
	free(view.s);
}

static void cmd_reset(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)w;
	struct op_res r[AGENT_MAX_DISKS];
	if (nw != 1) {
		out("error usage: reset");
		return;
	}
	struct timespec at = clock_now();
	for (int i = 0; i < ndisks; i++) {
		pin_clock(&at);
		if (disks[i].mounted)
			r[i] = reset_disk(&disks[i]);
	}
	sync();
	for (int i = 0; i < ndisks; i++)
		print_res(&disks[i], disks[i].mounted, r[i]);
}

static void tree_command(struct disk *disks, int ndisks, char **w, int nw)
{
	bool dump = !strcmp(w[0], "dump"), time = nw == 2;
	if (nw > 2 || (nw == 2 && strcmp(w[1], "time"))) {
		out("error usage: %s [time]", w[0]);
		return;
	}
	struct sb view = {xrealloc(NULL, 64), 0, 64};
	view.s[0] = 0;
	for (int i = 0; i < ndisks; i++) {
		char fp[FP_LEN];
		if (dump) {
			print_dump(&disks[i], time);
		} else {
			disk_fp(&disks[i], time, fp, i == 0 ? &view : NULL);
			out_item('f', disks[i].idx, fp, strlen(fp));
			if (disks[i].mounted && fp[0] != '!')
				print_masked(disks[i].idx, masked_last);
		}
	}
	if (!dump)
		out_item('v', -1, view.s, view.len < DB_MAX_LEN - 8 ? view.len : DB_MAX_LEN - 8);
	free(view.s);
}

/* durable MODE [dump]: see the top of this file. What sync put on the
 * disk is read back either from the disk itself, every clean cache
 * dropped (dirty pages cannot be dropped, but sync left none), or through
 * a fresh mount, which also replays the journal. */
static void cmd_durable(struct disk *disks, int ndisks, char **w, int nw)
{
	bool remounting = nw >= 2 && !strcmp(w[1], "remount");
	bool dump = nw == 3 && !strcmp(w[2], "dump");
	if (nw < 2 || nw > 3 || (nw == 3 && !dump) ||
	    (!remounting && strcmp(w[1], "drop-caches"))) {
		out("error usage: durable drop-caches|remount [dump]");
		return;
	}
	sync();
	for (int i = 0; i < ndisks && remounting; i++)
		if (disks[i].mounted)
			remount(&disks[i]);
	if (!remounting) {
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "3", 1) != 1) {
			out("error drop_caches: %s", errname(errno));
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
	}
	for (int i = 0; i < ndisks; i++) {
		char fp[FP_LEN];
		if (dump) {
			print_dump(&disks[i], false);
		} else {
			disk_fp(&disks[i], false, fp, NULL);
			out_item('f', disks[i].idx, fp, strlen(fp));
		}
	}
}

/* umount / mount / readonly [I...]: the benchmark baseline's backtrack
 * (the host rewrites the images between the two), the crash lens's power
 * cut, and the fsck lens's clean disk, on every disk or on the disks
 * named. Mounting first drops the block device's cache, since the host
 * wrote the disk behind the kernel's back. readonly remounts read-only:
 * every filesystem then leaves its disk as an unmount would (ext4 empties
 * its journal, xfs writes its unmount record, FAT clears its dirty bit)
 * without the unmount's teardown. Every disk answers; one not named
 * answers "r I 0 0" untouched. */
static int mount_step(struct disk *d, char how)
{
	if (how == 'u' && d->mounted) {
		int r = umount(d->mnt);
		d->mounted = r != 0;
		return r;
	}
	if (how == 'r' && d->mounted)
		return mount(d->dev, d->mnt, d->type, d->flags | MS_REMOUNT | MS_RDONLY, d->data);
	if (how == 'm' && !d->mounted && d->type[0]) {
		int fd = open(d->dev, O_RDONLY);
		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
		int r = mount(d->dev, d->mnt, d->type, d->flags, d->data);
		d->mounted = r == 0;
		return r;
	}
	return 0;
}

static void mounts_command(struct disk *disks, int ndisks, char how, char **w, int nw)
{
	unsigned named = nw == 1 ? ~0u : 0;
	for (int k = 1; k < nw; k++) {
		uint64_t i;
		if (!op_parse_dec(w[k], (uint64_t)ndisks - 1, &i)) {
			out("error usage: %s [DISK...]", w[0]);
			return;
		}
		named |= 1u << i;
	}
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		int r = named >> i & 1 ? mount_step(d, how) : 0;
		d->err = r < 0 ? errno : 0;
		out("r %d %d %s", d->idx, r < 0 ? -1 : 0, errname(d->err));
	}
}

/* ignore FIELD,FIELD... (RULE_FIELDS) or "-": see `ignored`. */
/* RULE_FIELD_WORDS without its first space */
#define IGNORE_WORDS (RULE_FIELD_WORDS + 1)
static void cmd_ignore(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks; /* no disk: a setting */
	static const char *const names[] = {
#define IGN_NAME(name) #name,
	    RULE_FIELDS(IGN_NAME)
#undef IGN_NAME
	};
	unsigned mask = 0;
	char *list = nw == 2 ? w[1] : NULL;
	for (char *tok = list && strcmp(list, "-") ? strtok(list, ",") : NULL; tok;
	     tok = strtok(NULL, ",")) {
		unsigned bit = 0;
		for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i]))
				bit = 1u << i;
		if (!bit) {
			out("error usage: ignore FIELD,... (%s) or -", IGNORE_WORDS);
			return;
		}
		mask |= bit;
	}
	if (!list) {
		out("error usage: ignore FIELD,... (%s) or -", IGNORE_WORDS);
		return;
	}
	ignored = mask;
	out("ignore %u", ignored);
}

/* timegran NS ATIME_NS: see `time_gran`; answers "timegran NS ATIME_NS". */
static void cmd_timegran(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks; /* no disk: a setting */
	uint64_t g, ag;
	const uint64_t day = 86400ull * 1000000000;
	if (nw != 3 || !op_parse_dec(w[1], day, &g) || !g || !op_parse_dec(w[2], day, &ag) || !ag) {
		out("error usage: timegran NS ATIME_NS (1 to 86400e9)");
		return;
	}
	time_gran = g;
	atime_gran = ag;
	out("timegran %llu %llu", (unsigned long long)g, (unsigned long long)ag);
}

/* times PATH...: see the top of this file. lstat only: nothing here may
 * move a time it reports. */
static void cmd_times(struct disk *disks, int ndisks, char **w, int nw)
{
	bool ok = nw >= 2 && nw <= 1 + TIMES_MAX_PATHS;
	for (int k = 1; ok && k < nw; k++)
		ok = op_path_ok(w[k]);
	if (!ok) {
		out("error usage: times PATH... (1 to %d paths)", TIMES_MAX_PATHS);
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		char why[FP_LEN];
		if (!enter_or_say(&disks[i], why)) {
			out("t %d %s", disks[i].idx, why);
			continue;
		}
		for (int k = 1; k < nw; k++) {
			struct stat st;
			struct sb b = {0};
			sb_str(&b, w[k]);
			if (lstat(w[k], &st) < 0) {
				SB_LIT(&b, " !");
				sb_str(&b, errname(errno));
			} else {
				sb_time(&b, " atime=", &st.st_atim);
				sb_time(&b, " mtime=", &st.st_mtim);
				sb_time(&b, " ctime=", &st.st_ctim);
				SB_LIT(&b, " ino=");
				sb_dec(&b, (unsigned long long)st.st_ino, 1);
			}
			out("t %d %s", disks[i].idx, b.s);
			free(b.s);
		}
		leave_disk();
	}
}

/* mountopt NAME: see the top of this file. MS_REMOUNT changes the
 * mount's atime flags in place, the page cache kept: what an operation
 * then does to the times is the option's doing alone. */
static void cmd_mountopt(struct disk *disks, int ndisks, char **w, int nw)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} opts[] = {
#define AGENT_ATIME(name, FLAG) {#name, MS_##FLAG},
	    ATIME_TABLE(AGENT_ATIME)
#undef AGENT_ATIME
	};
	const size_t nopts = sizeof(opts) / sizeof(opts[0]);
	unsigned long atime_flags = 0, want = 0;
	bool known = false;
	for (size_t i = 0; i < nopts; i++) {
		atime_flags |= opts[i].flag;
		if (nw == 2 && !strcmp(w[1], opts[i].name))
			known = true, want = opts[i].flag;
	}
	if (!known) {
#define AGENT_ATIME_NAME(name, FLAG) " " #name
		out("error usage: mountopt NAME (NAME:" ATIME_TABLE(AGENT_ATIME_NAME) ")");
#undef AGENT_ATIME_NAME
		return;
	}
	for (int i = 0; i < ndisks; i++) {
		struct disk *d = &disks[i];
		if (!d->mounted) {
			out("r %d unmounted", d->idx);
			continue;
		}
		unsigned long flags = (d->flags & ~atime_flags) | want;
		int r = mount(d->dev, d->mnt, d->type, MS_REMOUNT | flags, d->data);
		d->err = r < 0 ? errno : 0;
		if (r == 0)
			d->flags = flags;
		out("r %d %d %s", d->idx, r < 0 ? -1 : 0, errname(d->err));
	}
}

/* sleep SECONDS[.FRACTION]: see the top of this file. */
static void cmd_sleep(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks; /* no disk: a setting */
	struct op_args a = {0};
	char when[40];
	bool ok = nw == 2 && snprintf(when, sizeof(when), "+%s", w[1]) < (int)sizeof(when) &&
		  op_parse_instant(when, &a.when, &a.when_relative) && a.when.tv_sec >= 0 &&
		  a.when.tv_sec <= SLEEP_MAX;
	if (!ok) {
		out("error usage: sleep SECONDS[.FRACTION] (0 to %d)", SLEEP_MAX);
		return;
	}
	struct timespec left = a.when;
	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
	out("slept %s", w[1]);
}

/* rtc: the board's RTC as the kernel reads it (RTC_RD_TIME), "rtc SECONDS"
 * (or "rtc !ERRNO"): settime sets it with the clock. */
static void cmd_rtc(struct disk *disks, int ndisks, char **w, int nw)
{
	(void)disks, (void)ndisks, (void)w;
	struct rtc_time rt;
	int fd = nw == 1 ? open("/dev/rtc0", O_RDONLY | O_CLOEXEC) : -1; /* not chrooted here */
	if (nw != 1) {
		out("error usage: rtc");
		return;
	}
	if (fd < 0 || ioctl(fd, RTC_RD_TIME, &rt) < 0) {
		out("rtc !%s", errname(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	struct tm tm = {.tm_sec = rt.tm_sec,
			.tm_min = rt.tm_min,
			.tm_hour = rt.tm_hour,
			.tm_mday = rt.tm_mday,
			.tm_mon = rt.tm_mon,
			.tm_year = rt.tm_year};
	out("rtc %lld", (long long)timegm(&tm));
}

/* The commands whose handlers serve several words. */
static void cmd_op(struct disk *disks, int ndisks, char **w, int nw)
{
	op_command(disks, ndisks, w, nw, true);
}

static void cmd_run(struct disk *disks, int ndisks, char **w, int nw)
{
	op_command(disks, ndisks, w, nw, false);
}

static void cmd_fp(struct disk *disks, int ndisks, char **w, int nw)
{
	tree_command(disks, ndisks, w, nw);
}

static void cmd_dump(struct disk *disks, int ndisks, char **w, int nw)
{
	tree_command(disks, ndisks, w, nw);
}

static void cmd_umount(struct disk *disks, int ndisks, char **w, int nw)
{
	mounts_command(disks, ndisks, 'u', w, nw);
}

static void cmd_mount(struct disk *disks, int ndisks, char **w, int nw)
{
	mounts_command(disks, ndisks, 'm', w, nw);
}

static void cmd_readonly(struct disk *disks, int ndisks, char **w, int nw)
{
	mounts_command(disks, ndisks, 'r', w, nw);
}

/* The commands, from the one list the host reads too
 * (src/proto/agent_cmds.h). */
static const struct {
	const char *word;
	void (*run)(struct disk *disks, int ndisks, char **w, int nw);
} commands[] = {
#define AGENT_CMD(word, reply, flags, usage) {#word, cmd_##word},
    AGENT_COMMANDS(AGENT_CMD)
#undef AGENT_CMD
};

bool check_command(struct disk *disks, int ndisks, char **w, int nw)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(w[0], commands[i].word)) {
			commands[i].run(disks, ndisks, w, nw);
			return true;
		}
	return false;
}
