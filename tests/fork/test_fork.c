/* test_fork.c - the epsilon-copy fork of the whole machine, proven on a real
 * Linux guest: boot to the agent's command loop, then for many seeded
 * random sequences open nested levels, make the guest do filesystem work
 * that reaches the disks (fsync, sync), and unwind with restores (re-armed
 * ones too) and releases. After every restore the hash of the whole machine
 * (RAM, hart, devices, every disk) must equal the hash taken at that
 * level's fork. Finally the restored machine runs on, and must behave
 * exactly as a freshly booted machine given the same command: same agent
 * replies, same final hash.
 *   test_fork BUILD_DIR [SEQUENCES] [SEED] [KERNEL]
 * (default 1000, 1, BUILD_DIR/guest/Image: another kernel, such as
 * Image-6.12, proves the fork under that kernel's own memory habits) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/machine/virt.h"
#include "../../src/util/rng.h"

#define MAX_DEPTH 3

static char paths[4][512];
static const char *kernel; /* NULL: BUILD_DIR/guest/Image */

static int boot(struct virt *v, const char *b)
{
	if (kernel)
		snprintf(paths[0], sizeof(paths[0]), "%s", kernel);
	else
		snprintf(paths[0], sizeof(paths[0]), "%s/guest/Image", b);
	snprintf(paths[1], sizeof(paths[1]), "%s/guest/initramfs.cpio.gz", b);
	snprintf(paths[2], sizeof(paths[2]), "%s/images/ext4.img", b);
	snprintf(paths[3], sizeof(paths[3]), "%s/images/xfs.img", b);
	struct virt_config cfg = {
	    .kernel = paths[0],
	    .initrd = paths[1],
	    .append = "console=ttyS0 panic=-1 quiet themis.fs=ext4,xfs",
	    .mem = 128ULL << 20,
	    .disks = {{paths[2], false}, {paths[3], false}},
	    .ndisks = 2,
	    .clock_ns = 1767225600ULL * 1000000000ULL,
	    .wait = true,
	    .console = NULL,
	};
	char err[512];
	if (virt_init(v, &cfg, err, sizeof(err))) {
		fprintf(stderr, "test_fork: %s\n", err);
		return -1;
	}
	if (virt_run(v, 20000000000ULL) != VIRT_WAITING) {
		fprintf(stderr,
			"test_fork: the guest did not reach the command loop (stop %d: %s)\n",
			v->stop, v->stop_detail);
		virt_print_last_lines(v, stderr, 10);
		return -1;
	}
	return 0;
}

/* Give the agent a command and run until it waits again. */
static int command(struct virt *v, const char *cmd)
{
	if (virt_command(v, cmd) || virt_run(v, 20000000000ULL) != VIRT_WAITING) {
		fprintf(stderr,
			"test_fork: '%s' did not return to the command loop (stop %d: %s)\n", cmd,
			v->stop, v->stop_detail);
		virt_print_last_lines(v, stderr, 10);
		return -1;
	}
	return 0;
}

static int check_hash(const struct virt *v, const uint8_t want[16], const char *what, int seq)
{
	uint8_t h[16];
	virt_state_hash(v, h);
	if (memcmp(h, want, 16) == 0)
		return 0;
	fprintf(stderr, "test_fork: sequence %d: machine hash differs %s\n", seq, what);
	return -1;
}

/* Work at depth d, possibly going deeper, then unwind back to d - 1. */
static int branch(struct virt *v, uint64_t *s, int depth, int seq, uint64_t *works, uint64_t *dirty)
{
	uint8_t at_fork[16];
	char cmd[64];
	virt_state_hash(v, at_fork);
	if (virt_fork(v))
		return -1;
	int rounds = 1 + (int)(splitmix64(s) % 2); /* 2: re-arm and work again */
	for (int r = 0; r < rounds; r++) {
		snprintf(cmd, sizeof(cmd), "work %llu %llu",
			 (unsigned long long)(splitmix64(s) % 100000),
			 (unsigned long long)(4 + splitmix64(s) % 12));
		if (command(v, cmd))
			return -1;
		(*works)++;
		*dirty += ram_level_dirty(&v->ram);
		if (depth < MAX_DEPTH && splitmix64(s) % 2 &&
		    branch(v, s, depth + 1, seq, works, dirty))
			return -1;
		if (virt_restore(v) || check_hash(v, at_fork, "after a restore", seq))
			return -1;
	}
	if (virt_release(v) || check_hash(v, at_fork, "after a release", seq))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_fork BUILD_DIR [SEQUENCES] [SEED] [KERNEL]\n");
		return 2;
	}
	kernel = argc > 4 ? argv[4] : NULL;
	int nseq = argc > 2 ? atoi(argv[2]) : 1000;
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1, works = 0, dirty = 0;
	struct virt *v = calloc(1, sizeof(*v)), *fresh = calloc(1, sizeof(*fresh));
	uint8_t root[16], a[16], b[16];
	if (!v || !fresh || boot(v, argv[1]))
		return 1;
	virt_state_hash(v, root);
	for (int i = 0; i < nseq; i++) {
		uint64_t s = seed * 1000003 + (uint64_t)i;
		if (branch(v, &s, 1, i, &works, &dirty) || check_hash(v, root, "at the root", i))
			return 1;
		if ((i + 1) % 100 == 0)
			fprintf(stderr, "test_fork: %d sequences, %llu work commands\n", i + 1,
				(unsigned long long)works);
	}
	if (virt_restore(v) == 0 || virt_release(v) == 0) {
		fprintf(stderr, "test_fork: a restore past the root succeeded\n");
		return 1;
	}
	/* Run on after all that, and compare with a fresh machine. */
	if (boot(fresh, argv[1]) || check_hash(fresh, root, "between two boots", -1))
		return 1;
	virt_clear_log(v);
	virt_clear_log(fresh);
	if (command(v, "work 4242 24") || command(fresh, "work 4242 24"))
		return 1;
	virt_state_hash(v, a);
	virt_state_hash(fresh, b);
	if (memcmp(a, b, 16) || strcmp(v->log ? v->log : "", fresh->log ? fresh->log : "")) {
		fprintf(stderr,
			"test_fork: after the restores the machine no longer behaves as a "
			"fresh one:\n  restored: %s  fresh:    %s",
			v->log ? v->log : "(nothing)\n", fresh->log ? fresh->log : "(nothing)\n");
		return 1;
	}
	printf("test_fork: %d sequences, %llu work commands, %llu pages dirtied, every restore "
	       "exact; the restored machine runs on as a fresh one (%s)",
	       nseq, (unsigned long long)works, (unsigned long long)dirty, v->log);
	virt_free(v);
	virt_free(fresh);
	free(v);
	free(fresh);
	return 0;
}
