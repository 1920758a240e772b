/* rawtime_reiserfs.c - SCAFFOLD: replaced by the real parser. */
#include "rawtime_int.h"

int rawtime_reiserfs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name, (void)ino, (void)out;
	return lb_fail(b, "no raw-time parser yet");
}
