/* crash_memo.c - see crash_memo.h. */
#include <stdlib.h>
#include <string.h>

#include "crash_memo.h"

static size_t bucket(const uint8_t key[16])
{
	uint64_t h;
	memcpy(&h, key, sizeof(h));
	return (size_t)(h % CRASH_MEMO_SLOTS);
}

const struct crash_memo_entry *crash_memo_find(const struct crash_memo *c, const uint8_t key[16],
					       bool nested, bool fsck, bool dump)
{
	if (c->off || !c->slot)
		return NULL;
	const struct crash_memo_entry *e = &c->slot[bucket(key)];
	if (!e->used || memcmp(e->key, key, 16))
		return NULL;
	if ((nested && !e->nested) || (fsck && !e->fsck) || (dump && !e->dump))
		return NULL;
	return e;
}

int crash_memo_put(struct crash_memo *c, const struct crash_memo_entry *e)
{
	if (c->off)
		return 0;
	if (!c->slot && !(c->slot = calloc(CRASH_MEMO_SLOTS, sizeof(*c->slot))))
		return -1;
	char *dump = NULL;
	if (e->dump && !(dump = strdup(e->dump)))
		return -1;
	struct crash_memo_entry *s = &c->slot[bucket(e->key)];
	free(s->dump);
	*s = *e;
	s->used = true;
	s->dump = dump;
	return 0;
}

void crash_memo_free(struct crash_memo *c)
{
	for (size_t i = 0; c->slot && i < CRASH_MEMO_SLOTS; i++)
		free(c->slot[i].dump);
	free(c->slot);
	c->slot = NULL;
}
