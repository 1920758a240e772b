/* tier: fast */
/* test_crash_memo.c - the memo of crash contents (src/lens/crash_memo.c):
 * an entry answers only a key it was put under, and only when it holds
 * what is asked (a recovery crashed again, the checker's verdict, the dump
 * lines); a newer entry of a bucket replaces the older; the dump is a copy;
 * a memo that is off answers nothing; and the key (disk_private_key) tells
 * contents apart, salted by the disk index, and is the same for the same
 * bytes however they were written.
 *   build/asan/test_crash_memo [test-name] */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "lens/crash_memo.h"
#include "disk/disk.h"

static struct crash_memo_entry entry(uint8_t k, bool nested, bool fsck, char *dump)
{
	struct crash_memo_entry e = {.nested = nested, .fsck = fsck, .dump = dump};
	memset(e.key, k, sizeof(e.key));
	memset(e.fp, k + 1, sizeof(e.fp));
	return e;
}

static void test_asks(void)
{
	struct crash_memo c = {0};
	char dump[] = "e 0 f0 kind=file\n";
	struct crash_memo_entry e = entry(7, false, true, dump), other = entry(8, true, true, NULL);
	CHECK(!crash_memo_find(&c, e.key, false, false, false)); /* empty */
	CHECK(crash_memo_put(&c, &e) == 0);
	dump[0] = 'x'; /* the memo kept a copy */
	const struct crash_memo_entry *got = crash_memo_find(&c, e.key, false, true, true);
	CHECK(got && got->fp[0] == 8 && got->dump && !strcmp(got->dump, "e 0 f0 kind=file\n"));
	CHECK(!crash_memo_find(&c, e.key, true, false, false));	     /* never crashed again */
	CHECK(!crash_memo_find(&c, other.key, false, false, false)); /* another content */
	CHECK(crash_memo_put(&c, &other) == 0);
	CHECK(crash_memo_find(&c, other.key, true, true, false));
	CHECK(!crash_memo_find(&c, other.key, false, false, true)); /* no dump kept */
	crash_memo_free(&c);
	CHECK(!crash_memo_find(&c, e.key, false, false, false));
}

static void test_bucket_and_off(void)
{
	struct crash_memo c = {0};
	struct crash_memo_entry a = entry(1, true, true, NULL), b = a;
	b.key[15] ^= 1; /* the same bucket (its first 8 bytes), another key */
	CHECK(crash_memo_put(&c, &a) == 0 && crash_memo_put(&c, &b) == 0);
	CHECK(!crash_memo_find(&c, a.key, false, false, false));
	CHECK(crash_memo_find(&c, b.key, false, false, false));
	crash_memo_free(&c);
	struct crash_memo off = {.off = true};
	CHECK(crash_memo_put(&off, &a) == 0 && !crash_memo_find(&off, a.key, false, false, false));
	crash_memo_free(&off);
}

/* The key of a small disk made of zeros, after writes. */
static void test_key(void)
{
	char path[] = "/tmp/themis-memo-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, 1 << 20) == 0);
	close(fd);
	struct disk d;
	char err[256];
	if (!CHECK(disk_open(&d, path, false, err, sizeof(err)) == 0)) {
		unlink(path);
		return;
	}
	uint8_t k0[16], k1[16], k2[16], k3[16], sector[DISK_SECTOR_SIZE];
	disk_private_key(&d, 0, k0);
	memset(sector, 0xab, sizeof(sector));
	CHECK(disk_write(&d, 8, sector, 1) == 0 && disk_write(&d, 64, sector, 1) == 0);
	disk_private_key(&d, 0, k1);
	disk_private_key(&d, 1, k2);
	CHECK(memcmp(k0, k1, 16) && memcmp(k1, k2, 16)); /* content and salt tell */
	CHECK(disk_fork(&d) == 0);
	memset(sector, 0, sizeof(sector));
	CHECK(disk_write(&d, 64, sector, 1) == 0);
	disk_private_key(&d, 0, k3);
	CHECK(memcmp(k3, k1, 16));
	CHECK(disk_write(&d, 8, sector, 1) == 0);
	disk_private_key(&d, 0, k3);
	CHECK(!memcmp(k3, k0, 16)); /* private copies of the base's bytes: the base's key */
	CHECK(disk_release(&d) == 0);
	disk_private_key(&d, 0, k3);
	CHECK(!memcmp(k3, k1, 16)); /* the same bytes, the same key */
	disk_close(&d);
	unlink(path);
}

static const struct unit_test tests[] = {
    {"asks", test_asks},
    {"bucket_and_off", test_bucket_and_off},
    {"key", test_key},
};

UNIT_MAIN("test_crash_memo", tests)
