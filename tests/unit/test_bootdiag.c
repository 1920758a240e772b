/* tier: fast */
/* test_bootdiag.c - what a kernel lacks, said from what its guest said
 * (src/check/bootdiag.c): a console's last words before the stop name the
 * missing initramfs support; the agent's ready report of its disks names
 * the missing virtio block device or filesystem driver, or says a disk did
 * not mount; a report where every disk mounted, or none was asked for, is
 * no trouble.
 *   build/asan/test_bootdiag [test-name] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "check/check.h"

static struct virt vm, *v = &vm; /* only its console lines and ready report are read */

static void say(const char *line)
{
	snprintf(v->lines[v->nlines % VIRT_CONSOLE_KEEP], VIRT_LINE_MAX, "%s", line);
	v->nlines++;
}

/* The diagnosis of the current v into err: its return value. */
static int diagnose(bool ready, char *err, size_t cap)
{
	err[0] = 0;
	return check_boot_diagnose(v, "Image-x", ready, err, cap);
}

static void test_last_words(void)
{
	char err[512];
	memset(v, 0, sizeof(*v));
	say("[    0.000000] Linux version 6.1");
	CHECK(diagnose(false, err, sizeof(err)) == 0 && !err[0]); /* nothing known said */
	say("[    0.400000] Kernel panic - not syncing: VFS: Unable to mount root fs on "
	    "unknown-block(0,0)");
	CHECK(diagnose(false, err, sizeof(err)) < 0 && strstr(err, "Image-x: ") &&
	      strstr(err, "CONFIG_BLK_DEV_INITRD"));
	memset(v, 0, sizeof(*v));
	for (int i = 0; i < VIRT_CONSOLE_KEEP - 1; i++)
		say("noise");
	say("Initramfs unpacking failed: junk in compressed archive");
	CHECK(diagnose(false, err, sizeof(err)) < 0 && strstr(err, "CONFIG_RD_GZIP"));
	for (int i = 0; i < VIRT_CONSOLE_KEEP; i++)
		say("noise"); /* past the lines kept: no longer known */
	CHECK(diagnose(false, err, sizeof(err)) == 0);
}

static void test_ready_report(void)
{
	char err[512];
	memset(v, 0, sizeof(*v));
	snprintf(v->ready_report, sizeof(v->ready_report),
		 "themis-agent kernel=6.1.0 disks=vda:ext4:0,vdb:xfs:0");
	CHECK(diagnose(true, err, sizeof(err)) == 0);
	snprintf(v->ready_report, sizeof(v->ready_report), "themis-agent kernel=6.1.0 disks=none");
	CHECK(diagnose(true, err, sizeof(err)) == 0);
	snprintf(v->ready_report, sizeof(v->ready_report),
		 "themis-agent kernel=6.1.0 disks=vda:ext4:0,vdb:nilfs2:ENODEV");
	CHECK(diagnose(true, err, sizeof(err)) < 0 && strstr(err, "no nilfs2 driver") &&
	      strstr(err, "CONFIG_NILFS2_FS") && strstr(err, "/dev/vdb"));
	snprintf(v->ready_report, sizeof(v->ready_report),
		 "themis-agent kernel=6.1.0 disks=vda:ext4:ENOENT");
	CHECK(diagnose(true, err, sizeof(err)) < 0 && strstr(err, "CONFIG_VIRTIO_BLK") &&
	      strstr(err, "/dev/vda"));
	snprintf(v->ready_report, sizeof(v->ready_report),
		 "themis-agent kernel=6.1.0 disks=vda:ext4:EUCLEAN");
	CHECK(diagnose(true, err, sizeof(err)) < 0 && strstr(err, "did not mount: EUCLEAN"));
	snprintf(v->ready_report, sizeof(v->ready_report),
		 "themis-agent kernel=6.1.0 disks=vda:-:skipped");
	CHECK(diagnose(true, err, sizeof(err)) == 0);
}

static const struct unit_test tests[] = {
    {"last_words", test_last_words},
    {"ready_report", test_ready_report},
};

UNIT_MAIN("test_bootdiag", tests)
