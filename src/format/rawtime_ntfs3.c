/* rawtime_ntfs3.c - NTFS's stored mtime and ctime as ntfs3 reads them
 * (fs/ntfs3/inode.c ntfs_read_mft): the file's MFT record, its number the
 * inode number, found through $MFT's runs (layout_ntfs3_std), holds
 * $STANDARD_INFORMATION (struct ATTR_STD_INFO5, fs/ntfs3/ntfs.h), whose
 * m_time and c_time are each an le64 of 100 ns intervals since 1601
 * (nt2kernel, fs/ntfs3/ntfs_fs.h). */
#include <inttypes.h>

#include "rawtime_int.h"

#define SI_M_TIME 0x08
#define SI_C_TIME 0x10
/* 1601 to 1970 in 100 ns units: SecondsToStartOf1970 * _100ns2seconds. */
#define NT_1970 (0x00000002B6109100ll * 10000000ll)

/* One le64 time: seconds floored, so a time before 1970 keeps its
 * nanoseconds in [0, 1e9) (nt2kernel truncates toward zero instead). */
static void decode(struct rawtime *out, bool ctime, const uint8_t *t)
{
	uint64_t raw = lb_le64(t);
	/* The difference as the kernel's s64 sees it: no signed overflow. */
	int64_t d = (int64_t)(raw - (uint64_t)NT_1970);
	int64_t sec = d / 10000000, rem = d % 10000000;
	if (rem < 0) {
		sec--;
		rem += 10000000;
	}
	rawtime_set(out, ctime, sec, (uint32_t)rem * 100, "%s=0x%016" PRIx64,
		    ctime ? "c_time" : "m_time", raw);
}

int rawtime_ntfs3(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t si[48];
	if (layout_ntfs3_std(b, ino, si))
		return -1;
	decode(out, false, si + SI_M_TIME);
	decode(out, true, si + SI_C_TIME);
	return 0;
}
