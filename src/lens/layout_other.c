/* layout_other.c - the layout map of the formats not parsed yet: each says so
 * (exit 2 from `themis layout`) until its parser lands. */
#include "layout_int.h"
int layout_xfs(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_btrfs(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_f2fs(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_vfat(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_exfat(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_jfs(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_nilfs2(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
int layout_minix(struct lb *b)
{
	return lb_fail(b, "not mapped yet");
}
