/* layout_udf.c - SCAFFOLD: replaced by the real parser. */
#include "layout_int.h"

int layout_udf(struct lb *b)
{
	return lb_fail(b, "no layout parser yet");
}
