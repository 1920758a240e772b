/* clock.h - the host's monotonic clock in seconds. Never machine state:
 * only budgets, progress lines, rates and cost figures read it (the
 * machine's time is virtual, see src/machine/virt.h). */
#ifndef THEMIS_UTIL_CLOCK_H
#define THEMIS_UTIL_CLOCK_H

#include <time.h>

static inline double host_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
