/* clock.h - the time-range table (`themis clock`): what each filesystem,
 * in each on-disk variant that changes the answer, can store of time.
 *
 * For every variant a fresh image is made with its mkfs line (under
 * faketime at the machine's clock base when faketime is installed) and
 * booted in a machine of its own. For every adversarial instant of
 * INSTANT_TABLE (op_table.h) the guest creates a file and sets its times
 * with utimensat, and separately sets the clock (settime) and creates a
 * file then; stat is read before and after a remount, and the stored
 * fields are parsed from the image below the filesystem (rawtime.h).
 * From those: the smallest and largest second stored exactly, the
 * granularity (what is kept of an instant 1 ns short of a second), what
 * happens past either end (clamp, wrap, error), and whether it all agrees
 * with the range and granularity Linux 6.1 declares for the variant
 * (each descriptor's clock variants, src/fs, from fs/FS/super.c). The
 * kernel's mount warnings are kept from the console. */
#ifndef THEMIS_CLOCK_H
#define THEMIS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../check/check.h"
#include "../format/rawtime.h"

/* A variant: one of a descriptor's clock variants (src/fs: the
 * filesystem's mkfs line with the variant's options, the driver that
 * mounts it, what Linux 6.1 declares for it), with its command made. */
struct clock_variant {
	const char *name, *driver;
	char mkfs[256]; /* the mkfs command, without the image */
	unsigned mib;
	uint64_t gran_ns;
	int64_t tmin, tmax;
};

/* Every filesystem's variants, in src/fs's order: the count and the i-th. */
int clock_variant_count(void);
const struct clock_variant *clock_variant_at(int i);

/* An instant of INSTANT_TABLE: its name and E argument. */
struct clock_instant {
	const char *name, *arg;
};
extern const struct clock_instant clock_instants[];
extern const int clock_ninstants;

/* A time as stat or the disk gives it; ok false with err when not. */
struct clock_time {
	bool ok;
	int64_t sec;
	uint32_t nsec;
	char err[24];
};

#define CLOCK_MAX_TRIES	   64
#define CLOCK_RAPID_WRITES 4
/* The gaps between the rapid writes, seconds (0: one after the other, the
 * clock held still between them as through any operation). */
#define CLOCK_GAPS                                                                                 \
	{                                                                                          \
		"0", "0.001", "0.01", "1"                                                          \
	}

/* One instant tried one way: how 'u' (utimensat) or 'c' (the clock). */
struct clock_try {
	int instant; /* index in clock_instants */
	char how;
	char file[16];
	int64_t ret;
	char err[24];		  /* of the setting call ("0": none) */
	struct clock_time before; /* stat, before the remount */
	struct clock_time after;  /* stat, after it */
	uint64_t ino;
	struct clock_time raw; /* the stored fields, decoded */
	bool rtc_ok;	       /* after a settime: the RTC as the kernel reads it */
	int64_t rtc;
	char fields[160]; /* the stored fields as stored */
};

struct clock_result {
	const struct clock_variant *v;
	bool mounted;
	char refused[128]; /* why not, when not mounted or not made */
	int64_t min_s, max_s;
	bool have_range;
	uint64_t gran_ns;	   /* 0: not measured */
	char above[48], below[48]; /* past the largest, before the smallest */
	int remount_changes, raw_read, raw_differs;
	int64_t tried_min, tried_max; /* the absolute instants tried */
	bool tried_any;
	char clock_refused[256]; /* instants settime refused, '+'-separated */
	int clock_differs;	 /* files made after a settime that store otherwise than utimes */
	int rtc_checked, rtc_differs; /* settimes whose RTC read back, and differed */
	/* Table 9: CLOCK_RAPID_WRITES writes in a row, CLOCK_GAPS apart: how
	 * many distinct mtimes stat showed after them. */
	int rapid[4];
	struct clock_time rapid_t[4][CLOCK_RAPID_WRITES]; /* what stat showed */
	/* Table 10: CLOCK_RAPID_WRITES chmods 10 ms apart, each then put on
	 * the disk by a remount: ctime as stat shows it and as stored. */
	struct clock_time change_stat[CLOCK_RAPID_WRITES], change_raw[CLOCK_RAPID_WRITES];
	int change_stat_distinct, change_raw_distinct;
	const char *change_raw_why; /* when change_raw is not read: why (static text) */
	bool consistent;	    /* with the declared range and granularity */
	char mismatch[200];	    /* the first disagreement */
	char warnings[512];	    /* the kernel's lines about time, '\n'-separated */
	struct clock_try t[CLOCK_MAX_TRIES];
	int n;
	double seconds;
};

/* The variants to run: those named (a variant's name, or a driver: every
 * variant it mounts), all with none. -1 with the bad name in err. */
int clock_select(char **names, int nnames, bool *selected, char *err, size_t errlen);

/* Run one variant with the instants marked in `instants` (every one when
 * NULL): m gives the kernel, initramfs and memory; tmpdir holds the image.
 * 0 (r filled, r->refused set when the variant could not run), -1 with err
 * on a setup failure. */
int clock_run(const struct check_machine *m, const struct clock_variant *v, const bool *instants,
	      const char *tmpdir, struct clock_result *r, char *err, size_t errlen);

/* The table as Markdown, and the JSON list (one object per variant). */
void clock_markdown(const struct clock_result *r, int n, FILE *f);
void clock_json(const struct clock_result *r, int n, FILE *f);

#endif
