/* args.c - see cli.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"

int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "themis: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'themis help'.\n");
	return EXIT_USAGE;
}

/* Parse a decimal count; false if not a whole non-negative number. */
bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* Parse a size such as 4096, 64K, 128M, 2G. */
bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (errno || *end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* host clock for --stats only */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
