/* array.h - a growing array of records, for the results of the lenses'
 * measures: header-only, no state of its own (the caller holds the array,
 * its length and its capacity). */
#ifndef THEMIS_UTIL_ARRAY_H
#define THEMIS_UTIL_ARRAY_H

#include <stdlib.h>
#include <string.h>

/* Make room for `more` zeroed records of `size` bytes at the end of *arr
 * (*n used of *cap), count them in *n, and return the first; NULL when out
 * of memory (nothing changed). */
static inline void *array_grow(void **arr, int *n, int *cap, size_t size, int more)
{
	if (*n + more > *cap) {
		int c = *cap ? 2 * *cap : 64;
		while (c < *n + more)
			c *= 2;
		void *p = realloc(*arr, size * (size_t)c);
		if (!p)
			return NULL;
		*arr = p, *cap = c;
	}
	void *first = (char *)*arr + size * (size_t)*n;
	memset(first, 0, size * (size_t)more);
	*n += more;
	return first;
}

#endif
