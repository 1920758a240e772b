/* layout_ocfs2.c - SCAFFOLD: replaced by the real parser. */
#include "layout_int.h"

int layout_ocfs2(struct lb *b)
{
	return lb_fail(b, "no layout parser yet");
}
