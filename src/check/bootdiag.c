/* bootdiag.c - why a kernel cannot serve the checker, said in its terms:
 * what it lacks of guest/kernel/common.config (initramfs support, the
 * virtio block device, a filesystem's driver), read from what the guest
 * said, the console's last lines before a stop or the agent's ready
 * report of its disks. check_boot calls it (step.c); without it a user
 * who built a kernel of their own reads "kernel panic" or, worse, a run
 * whose every operation answers "unmounted". */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* What a kernel that cannot run the agent says on its way down, and what
 * it then lacks. */
static const struct {
	const char *says, *lacks;
} last_words[] = {
    {"Initramfs unpacking failed",
     "a way to unpack the gzip'd initramfs: CONFIG_RD_GZIP (or the initramfs is damaged: "
     "scripts/build-initramfs.sh makes it)"},
    {"No working init found",
     "an init it can run from the initramfs: CONFIG_BLK_DEV_INITRD and CONFIG_RD_GZIP to "
     "unpack it, CONFIG_BINFMT_ELF to run the static riscv64 agent as /init"},
    {"Unable to mount root fs",
     "initramfs support (CONFIG_BLK_DEV_INITRD, CONFIG_RD_GZIP), or the initramfs holds no "
     "/init: it looked for a root disk instead"},
    {"Requested init /init failed",
     "a way to run the agent as /init: CONFIG_BINFMT_ELF (a static riscv64 ELF)"},
};

/* The kernel option of filesystem fs's driver: CONFIG_EXT4_FS... */
static void fs_option(const char *fs, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "CONFIG_");
	for (const char *c = fs; *c && n + 4 < cap; c++)
		out[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
	snprintf(out + n, cap - n, "_FS");
}

/* One disk of the ready report, "vda:ext4:ERR" (d[0..len)): 0 mounted,
 * else -1 with what the kernel lacks (or the image's trouble) in err. */
static int judge_disk(const char *kernel, const char *d, size_t len, char *err, size_t errlen)
{
	char item[64], dev[16], type[16], e[24], option[32];
	snprintf(item, sizeof(item), "%.*s", (int)len, d);
	if (sscanf(item, "%15[^:]:%15[^:]:%23s", dev, type, e) != 3 || !strcmp(e, "0") ||
	    !strcmp(e, "skipped"))
		return 0;
	if (!strcmp(e, "ENOENT") || !strcmp(e, "ENXIO")) {
		snprintf(err, errlen,
			 "%s: the kernel sees no disk /dev/%s: it lacks the virtio block device "
			 "(CONFIG_VIRTIO_MMIO, CONFIG_VIRTIO_BLK; guest/kernel/common.config)",
			 kernel, dev);
	} else if (!strcmp(e, "ENODEV")) {
		fs_option(type, option, sizeof(option));
		snprintf(err, errlen,
			 "%s: the kernel has no %s driver (%s; guest/kernel/common.config): "
			 "/dev/%s did not mount",
			 kernel, type, option, dev);
	} else {
		snprintf(err, errlen,
			 "%s: /dev/%s (%s) did not mount: %s (a damaged image, or a kernel "
			 "without what it needs: its fsck and dmesg say which)",
			 kernel, dev, type, e);
	}
	return -1;
}

int check_boot_diagnose(const struct virt *v, const char *kernel, bool ready, char *err,
			size_t errlen)
{
	if (!ready) {
		for (size_t i = 0; i < sizeof(last_words) / sizeof(last_words[0]); i++)
			if (virt_console_has(v, last_words[i].says)) {
				snprintf(err, errlen, "%s: the kernel said '%s': it lacks %s",
					 kernel, last_words[i].says, last_words[i].lacks);
				return -1;
			}
		return 0; /* nothing known: the caller says how it stopped */
	}
	const char *d = strstr(v->ready_report, "disks=");
	if (!d || !strncmp(d + 6, "none", 4))
		return 0;
	for (d += 6; *d;) {
		size_t len = strcspn(d, ",");
		if (judge_disk(kernel, d, len, err, errlen))
			return -1;
		d += len + (d[len] == ',');
	}
	return 0;
}
