/* sb.h - the agent's growing string (struct sb) and its appenders, which
 * the walk (walk.c) and the commands (check.c) build their lines with;
 * allocation failure ends the agent (oom: the host sees the guest stop). */
#ifndef THEMIS_AGENT_SB_H
#define THEMIS_AGENT_SB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "agent.h"

static inline __attribute__((noreturn)) void oom(void)
{
	out("fatal: out of memory");
	abort(); /* SIGABRT: agent.c powers off */
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

struct sb {
	char *s;
	size_t len, cap;
};

static inline void sb_add(struct sb *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = 0;
}

/* The appenders below, not printf: the walk formats every entry of every
 * disk after every operation, and vsnprintf costs thousands of
 * instructions a call. */
static inline void sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* A string literal: its length known at compile time. */
#define SB_LIT(b, lit) sb_add(b, lit, sizeof(lit) - 1)

static inline void sb_dec(struct sb *b, unsigned long long v, int width)
{
	char t[24];
	int i = sizeof(t);
	do
		t[--i] = (char)('0' + v % 10);
	while ((v /= 10) || (int)sizeof(t) - i < width);
	sb_add(b, t + i, sizeof(t) - (size_t)i);
}

/* " key=" and a time as SEC.NSEC (NSEC in 9 digits). */
static inline void sb_time(struct sb *b, const char *key, const struct timespec *t)
{
	sb_str(b, key);
	if (t->tv_sec < 0)
		sb_add(b, "-", 1);
	sb_dec(b,
	       t->tv_sec < 0 ? 0ull - (unsigned long long)t->tv_sec : (unsigned long long)t->tv_sec,
	       1);
	sb_add(b, ".", 1);
	sb_dec(b, (unsigned long long)t->tv_nsec, 9);
}

static const char hexdig[] = "0123456789abcdef";

/* h as 32 hex digits, canonical (big-endian). */
static inline void hex128(XXH128_hash_t h, char out[33])
{
	for (int i = 0; i < 16; i++) {
		out[i] = hexdig[h.high64 >> (60 - 4 * i) & 15];
		out[16 + i] = hexdig[h.low64 >> (60 - 4 * i) & 15];
	}
	out[32] = 0;
}

#endif
