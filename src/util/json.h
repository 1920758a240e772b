/* json.h - a C string as a JSON string (quoted; quotes, backslashes and
 * control bytes escaped), for the reports every verb writes. Header-only,
 * like the other helpers no layer owns. */
#ifndef THEMIS_UTIL_JSON_H
#define THEMIS_UTIL_JSON_H

#include <stdio.h>

static inline void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

#endif
