/* layout_reiserfs.c - SCAFFOLD: replaced by the real parser. */
#include "layout_int.h"

int layout_reiserfs(struct lb *b)
{
	return lb_fail(b, "no layout parser yet");
}
