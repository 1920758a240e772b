/* tier: fast */
/* test_trace.c - traces (src/check/trace.c) round trip: what trace_write
 * records, trace_read gives back (the machine, the operations, the
 * discrepancy); a trace whose files changed since it was recorded is
 * refused, unless only the kernel changed and the caller replays on
 * another kernel on purpose; a damaged trace is refused, a malformed line
 * named by file and line; paths are recorded absolute, and a trace moved
 * with its files finds them beside it. Small stand-in
 * files play the kernel, initrd and images: only their content hashes
 * matter here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "check/trace.h"

static char dir[] = "/tmp/themis-trace-XXXXXX";

static void put(const char *name, const char *text, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (CHECK(f != NULL)) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 2;
	char kernel[256], initrd[256], img0[256], img1[256], path[256], err[1100];
	put("Image", "kernel", kernel, sizeof(kernel));
	put("initrd", "initrd", initrd, sizeof(initrd));
	put("a.img", "image a", img0, sizeof(img0));
	put("b.img", "image b", img1, sizeof(img1));
	struct check_machine m = {.fs = {"ext4", "xfs"},
				  .nfs = 2,
				  .kernel = kernel,
				  .initrd = initrd,
				  .images = {img0, img1},
				  .mem = 256ull << 20,
				  .clock_ns = 1767225600000000000ull,
				  .machine_seed = 7,
				  .op_budget = 12345,
				  .durability = CHECK_DURABLE_REMOUNT};
	static char ops[3][OP_TEXT_MAX] = {"op create f0 0644 -", "op write f0 0 4096 1 sync",
					   "op link f0 f1"};
	snprintf(path, sizeof(path), "%s/t.trace", dir);
	CHECK(trace_write(path, NULL, &m, ops, 3, "state:nlink",
			  "state differs at f0 | io: ext4 r 0", err, sizeof(err)) == 0);
	struct trace *t = calloc(1, sizeof(*t));
	if (!CHECK(t != NULL))
		return 1;
	CHECK(trace_read(path, t, true, err, sizeof(err)) == 0);
	CHECK(t->m.nfs == 2 && !strcmp(t->m.fs[0], "ext4") && !strcmp(t->m.fs[1], "xfs"));
	CHECK(t->nops == 3 && !strcmp(t->ops[1], ops[1]) && !strcmp(t->ops[2], ops[2]));
	CHECK(!strcmp(t->sig, "state:nlink"));
	CHECK(!strcmp(t->detail, "state differs at f0 | io: ext4 r 0"));
	CHECK(t->m.mem == m.mem && t->m.clock_ns == m.clock_ns && t->m.machine_seed == 7);
	CHECK(t->m.durability == CHECK_DURABLE_REMOUNT && t->m.op_budget == 12345);
	CHECK(t->build == TRACE_BUILD_SAME);
	CHECK(t->m.kernel && !strcmp(t->m.kernel, kernel));
	/* Another kernel: refused, unless the replay asks for another kernel. */
	put("Image", "another kernel", kernel, sizeof(kernel));
	CHECK(trace_read(path, t, true, err, sizeof(err)) < 0 && strstr(err, "kernel"));
	CHECK(trace_read(path, t, false, err, sizeof(err)) == 0);
	/* A changed image is refused either way. */
	put("b.img", "image b, written since", img1, sizeof(img1));
	CHECK(trace_read(path, t, false, err, sizeof(err)) < 0);
	/* A damaged trace: the end cut off. */
	FILE *f = fopen(path, "r+");
	if (CHECK(f != NULL)) {
		fseek(f, 0, SEEK_END);
		CHECK(ftruncate(fileno(f), ftell(f) - 5) == 0);
		fclose(f);
	}
	put("b.img", "image b", img1, sizeof(img1));
	CHECK(trace_read(path, t, false, err, sizeof(err)) < 0);
	/* Written again whole: its paths absolute though given relative. */
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL && chdir(dir) == 0);
	struct check_machine rel = m;
	rel.kernel = "Image", rel.initrd = "initrd", rel.images[0] = "a.img",
	rel.images[1] = "b.img";
	put("Image", "kernel", kernel, sizeof(kernel));
	CHECK(trace_write("t.trace", NULL, &rel, ops, 3, "state:nlink", "x", err, sizeof(err)) ==
	      0);
	CHECK(chdir(cwd) == 0);
	CHECK(trace_read(path, t, true, err, sizeof(err)) == 0 && t->m.kernel[0] == '/' &&
	      t->version == 3 && t->m.op_budget == 12345);
	/* Moved with its files to another folder: found beside it. */
	char moved[64], cmd2[2048];
	snprintf(moved, sizeof(moved), "%.40s/moved", dir);
	snprintf(cmd2, sizeof(cmd2), "mkdir '%s' && mv '%s' '%s' '%s' '%s' '%s' '%s/'", moved,
		 kernel, initrd, img0, img1, path, moved);
	CHECK(system(cmd2) == 0);
	snprintf(path, sizeof(path), "%.60s/t.trace", moved);
	CHECK(trace_read(path, t, true, err, sizeof(err)) == 0 && strstr(t->notes, "found at") &&
	      strstr(t->m.images[1], "/moved/b.img"));
	/* A malformed operation: refused, naming the file and the line. */
	snprintf(cmd2, sizeof(cmd2), "sed -i 's/^op link f0 f1$/op link f0/' '%s'", path);
	CHECK(system(cmd2) == 0);
	CHECK(trace_read(path, t, true, err, sizeof(err)) < 0 && strstr(err, "t.trace:") &&
	      strstr(err, "malformed link"));
	free(t);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("could not remove %s\n", dir);
	printf("test_trace: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
