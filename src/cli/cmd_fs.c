/* cmd_fs.c - `themis fs [NAME...] [--mkfs | --names] [--json FILE]`: what Themis knows
 * of each filesystem, printed from its descriptor (src/fs/fs.h): a table
 * of all of them, every part of the ones named, or the base images' mkfs
 * lines that scripts/mkimages.sh reads. Exit status: 0; 2 bad usage or a
 * name Themis does not know. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../fs/fs.h"
#include "../format/fields.h"
#include "../util/json.h"
#include "cli.h"

static const char fs_help[] =
    "usage: themis fs [NAME...] [--mkfs | --names] [--json FILE]\n"
    "\n"
    "What Themis knows of each filesystem, from its descriptor (src/fs): how\n"
    "its base image is made, the time it declares, what it promises a crash,\n"
    "its checker and log replay, whether it checksums its metadata, and what\n"
    "corrupt may target. With no NAME, a table of all; with NAMEs, every part\n"
    "of each.\n"
    "\n"
    "  --mkfs       the base images' mkfs lines instead, 'NAME MIB COMMAND' (the\n"
    "               image last, as IMG; $MKFS_UUID the fixed UUID), after\n"
    "               MKFS_UUID=, MKFS_FAKETIME= and MKFS_ENV= lines: what\n"
    "               scripts/mkimages.sh runs\n"
    "  --names      the names alone, one a line\n"
    "  --json FILE  also write the descriptors as JSON to FILE ('-': standard\n"
    "               output instead of the text)\n"
    "\n"
    "exit status: 0; 2 bad usage or a filesystem Themis does not know.\n";

/* A granularity in its unit ("2 s", "10 ms", "1 ns"), into buf. */
static const char *gran_text(uint64_t ns, char buf[32])
{
	if (ns % 1000000000 == 0)
		snprintf(buf, 32, "%" PRIu64 " s", ns / 1000000000);
	else if (ns % 1000000 == 0)
		snprintf(buf, 32, "%" PRIu64 " ms", ns / 1000000);
	else
		snprintf(buf, 32, "%" PRIu64 " ns", ns);
	return buf;
}

/* A range of seconds, "time64" for an end that is all of time64's. */
static const char *range_text(int64_t lo, int64_t hi, const char *sep, char buf[64])
{
	char a[24], b[24];
	snprintf(a, sizeof(a), "%" PRId64, lo);
	snprintf(b, sizeof(b), "%" PRId64, hi);
	snprintf(buf, 64, "%s%s%s", lo == FS_T64_MIN ? "-time64" : a, sep,
		 hi == FS_T64_MAX ? "time64" : b);
	return buf;
}

/* The checker's command, or "none". */
static const char *checker_line(const struct fs_desc *d, char *line, size_t cap)
{
	return d->fsck[0] ? fs_join(d->fsck, FS_ARGV_MAX, line, cap) : "none";
}

static const char *csum_word(enum fs_csum c)
{
	return c == FS_CSUM_ALWAYS ? "always" : c == FS_CSUM_IF_FIELDS ? "if enabled" : "none";
}

static void put_table(FILE *f)
{
	char line[128];
	fprintf(f, "%-7s %5s  %-8s %-27s %-15s %-11s %-11s %s\n", "name", "MiB", "time",
		"range (s)", "crash promise", "checker", "checksums", "about");
	for (size_t i = 0; i < fs_count(); i++) {
		const struct fs_desc *d = fs_at(i);
		char gran[32], range[64];
		const char *tool = checker_line(d, line, sizeof(line));
		fprintf(f, "%-7s %5u  %-8s %-27s %-15s %-11.*s %-11s %s\n", d->name, d->image_mib,
			gran_text(d->gran_ns, gran), range_text(d->tmin, d->tmax, "..", range),
			!d->recovers	   ? "none"
			: d->ordered_names ? "fsync, ordered"
			: d->fsync_names   ? "fsync"
					   : "consistent",
			(int)strcspn(tool, " "), tool, csum_word(d->csum), d->about);
	}
	fprintf(f,
		"\nthemis fs NAME shows one in full; docs/architecture.md says how to add one.\n");
}

static void put_one(FILE *f, const struct fs_desc *d)
{
	char line[160], gran[32], agran[32], range[64];
	fprintf(f, "%s: %s\n", d->name, d->about);
	if (d->also_mounts)
		fprintf(f, "  also mounts    %s\n", d->also_mounts);
	fprintf(f, "  image          %u MiB: %s\n", d->image_mib, d->mkfs);
	if (d->mkfs_random)
		fprintf(f, "  mkfs draws     %s\n", d->mkfs_random);
	fprintf(f, "  time           %s (atime %s), %s s\n", gran_text(d->gran_ns, gran),
		gran_text(d->atime_gran_ns, agran), range_text(d->tmin, d->tmax, " .. ", range));
	fprintf(f, "  crash          recovers %s, fsync names %s, ordered names %s: %s\n",
		d->recovers ? "yes" : "no", d->fsync_names ? "yes" : "no",
		d->ordered_names ? "yes" : "no", d->crash_why);
	fprintf(f, "  checker        %s", checker_line(d, line, sizeof(line)));
	if (d->fsck_same)
		fprintf(f, " (%s when installed)", d->fsck_same);
	fprintf(f, "%s%s\n", d->fsck_none ? ": " : "", d->fsck_none ? d->fsck_none : "");
	fprintf(f, "  log replay     %s%s%s\n",
		d->replay[0] ? fs_join(d->replay, FS_ARGV_MAX, line, sizeof(line))
			     : "none (a mount does whatever recovery there is)",
		d->replay_failed ? "; failed when it says " : "",
		d->replay_failed ? d->replay_failed : "");
	fprintf(f, "  checksums      %s\n", csum_word(d->csum));
	fprintf(f, "  structures     %s\n", d->structures);
	for (size_t k = 0; k < d->nfields; k++)
		fprintf(f, "  fields         %s: struct %s (e.g. %s:%s)\n", d->fields[k].structure,
			d->fields[k].t->name, d->fields[k].structure, d->fields[k].example);
	for (size_t k = 0; k < d->nclock; k++) {
		const struct fs_clock_variant *c = &d->clock[k];
		fprintf(f, "  clock variant  %s (driver %s%s%s): %s, %s s\n", c->name, c->driver,
			c->options[0] ? ", " : "", c->options, gran_text(c->gran_ns, gran),
			range_text(c->tmin, c->tmax, " .. ", range));
	}
}

static void put_mkfs(FILE *f)
{
	fprintf(f, "MKFS_UUID=%s\nMKFS_FAKETIME=%s\nMKFS_ENV=%s\nMKFS_HOST=%s\n", FS_MKFS_UUID,
		FS_MKFS_FAKETIME, FS_MKFS_ENV, FS_MKFS_HOST);
	for (size_t i = 0; i < fs_count(); i++)
		fprintf(f, "%s %u %s\n", fs_at(i)->name, fs_at(i)->image_mib, fs_at(i)->mkfs);
}

static void json_argv(FILE *f, const char *const *argv)
{
	fputc('[', f);
	for (int a = 0; a < FS_ARGV_MAX && argv[a]; a++) {
		fputs(a ? ", " : "", f);
		json_string(f, argv[a]);
	}
	fputc(']', f);
}

static void json_one(FILE *f, const struct fs_desc *d)
{
	fprintf(f, "{\"name\": ");
	json_string(f, d->name);
	fprintf(f, ", \"about\": ");
	json_string(f, d->about);
	fprintf(f, ", \"image_mib\": %u, \"mkfs\": ", d->image_mib);
	json_string(f, d->mkfs);
	fprintf(f,
		", \"gran_ns\": %" PRIu64 ", \"atime_gran_ns\": %" PRIu64 ", \"tmin\": %" PRId64
		", \"tmax\": %" PRId64 ", \"recovers\": %s, \"fsync_names\": %s, "
		"\"ordered_names\": %s, \"crash_why\": ",
		d->gran_ns, d->atime_gran_ns, d->tmin, d->tmax, d->recovers ? "true" : "false",
		d->fsync_names ? "true" : "false", d->ordered_names ? "true" : "false");
	json_string(f, d->crash_why);
	fprintf(f, ", \"fsck\": ");
	json_argv(f, d->fsck);
	fprintf(f, ", \"replay\": ");
	json_argv(f, d->replay);
	fprintf(f, ", \"checksums\": ");
	json_string(f, csum_word(d->csum));
	fprintf(f, ", \"structures\": ");
	json_string(f, d->structures);
	fprintf(f, ", \"clock_variants\": [");
	for (size_t k = 0; k < d->nclock; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_string(f, d->clock[k].name);
	}
	fprintf(f, "]}");
}

struct fs_selection {
	const struct fs_desc *d[64];
	size_t n;
};

static void put_json(const void *obj, FILE *f)
{
	const struct fs_selection *s = obj;
	fprintf(f, "[");
	for (size_t i = 0; i < s->n; i++) {
		fprintf(f, "%s\n ", i ? "," : "");
		json_one(f, s->d[i]);
	}
	fprintf(f, "\n]\n");
}

int cmd_fs(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(fs_help, stdout);
		return 0;
	}
	struct fs_selection s = {.n = 0};
	const char *json = NULL;
	bool mkfs = false, names = false;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--mkfs")) {
			mkfs = true;
		} else if (!strcmp(arg, "--names")) {
			names = true;
		} else if (!strcmp(arg, "--json")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return missing_value(arg);
			json = argv[++i];
		} else if (arg[0] == '-' && arg[1]) {
			return unknown_option(arg);
		} else if (!fs_known(arg)) {
			return unknown_fs(arg);
		} else if (s.n < sizeof(s.d) / sizeof(s.d[0])) {
			s.d[s.n++] = fs_find(arg);
		}
	}
	bool all = s.n == 0;
	for (size_t i = 0; all && i < fs_count(); i++)
		s.d[s.n++] = fs_at(i);
	if (json) {
		int rc = write_out(json, put_json, &s);
		if (rc || !strcmp(json, "-"))
			return rc;
	}
	if (mkfs)
		put_mkfs(stdout);
	else if (names)
		for (size_t i = 0; i < s.n; i++)
			printf("%s\n", s.d[i]->name);
	else if (all)
		put_table(stdout);
	else
		for (size_t i = 0; i < s.n; i++)
			put_one(stdout, s.d[i]);
	return 0;
}
