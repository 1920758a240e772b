/* kline.c - see kline.h. */
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kline.h"
#include "kmap.h"

#define KLINE_TOOL	"riscv64-linux-gnu-addr2line" /* binutils-riscv64-linux-gnu */
#define KLINE_WHERE_MAX 96
#define KLINE_MEMO_MAX	4096 /* addresses remembered: a flood of one report repeats them */
#define KLINE_FRAMES	64   /* frames looked up at once: a report's */

struct kline_memo {
	uint64_t addr;
	char where[KLINE_WHERE_MAX]; /* "fs/ext4/namei.c:3556", "" when unknown */
};

struct kline {
	char debug[4200]; /* KERNEL.debug */
	struct kmap map;
	struct kline_memo memo[KLINE_MEMO_MAX];
	size_t nmemo;
};

extern char **environ;

int kline_open(struct kline **out, const char *kernel)
{
	*out = NULL;
	char path[4200], err[256];
	struct stat st;
	snprintf(path, sizeof(path), "%s.debug", kernel);
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 1;
	struct kline *k = calloc(1, sizeof(*k));
	if (!k)
		return -1;
	snprintf(k->debug, sizeof(k->debug), "%s", path);
	snprintf(path, sizeof(path), "%s.map", kernel);
	int rc = kmap_load(&k->map, path, err, sizeof(err));
	if (rc) {
		free(k);
		return rc < 0 && strstr(err, "out of memory") ? -1 : 1;
	}
	*out = k;
	return 0;
}

void kline_close(struct kline *k)
{
	if (!k)
		return;
	kmap_free(&k->map);
	free(k);
}

/* The address a frame "FUNC+0xOFF/0xLEN" in line names, or 0. */
static uint64_t frame_addr(const struct kline *k, const char *line)
{
	for (const char *plus = strchr(line, '+'); plus; plus = strchr(plus + 1, '+')) {
		if (strncmp(plus + 1, "0x", 2))
			continue;
		const char *start = plus;
		while (start > line && (start[-1] == '_' || start[-1] == '.' ||
					(start[-1] >= '0' && start[-1] <= '9') ||
					(start[-1] >= 'a' && start[-1] <= 'z') ||
					(start[-1] >= 'A' && start[-1] <= 'Z')))
			start--;
		char *end;
		uint64_t off = strtoull(plus + 1, &end, 16);
		if (start == plus || *end != '/' || (size_t)(plus - start) >= KMAP_NAME_MAX)
			continue;
		char name[KMAP_NAME_MAX];
		snprintf(name, sizeof(name), "%.*s", (int)(plus - start), start);
		uint64_t base = kmap_addr(&k->map, name);
		return base ? base + off : 0;
	}
	return 0;
}

static const char *memo_find(const struct kline *k, uint64_t addr)
{
	for (size_t i = 0; i < k->nmemo; i++)
		if (k->memo[i].addr == addr)
			return k->memo[i].where;
	return NULL;
}

/* "/any/where/linux-6.1-debug/fs/ext4/namei.c:3556 (discriminator 2)"
 * as "fs/ext4/namei.c:3556"; "" for addr2line's "??:0". */
static void tidy(const char *raw, char *out, size_t cap)
{
	const char *p = raw, *tree = strstr(raw, "/linux-");
	if (tree && strchr(tree + 1, '/'))
		p = strchr(tree + 1, '/') + 1;
	if (!strncmp(p, "./", 2))
		p += 2;
	size_t n = strcspn(p, " \n");
	out[0] = 0;
	if (n && p[0] != '?' && !strstr(p, ":?") && strncmp(p + n - 2, ":0", 2))
		snprintf(out, cap, "%.*s", (int)n, p);
}

/* Look up addrs[0..n) with one addr2line run, into the memo. */
static void look_up(struct kline *k, const uint64_t *addrs, size_t n)
{
	char args[KLINE_FRAMES][24];
	char *argv[KLINE_FRAMES + 5] = {KLINE_TOOL, "-e", k->debug};
	size_t argc = 3;
	for (size_t i = 0; i < n; i++) {
		snprintf(args[i], sizeof(args[i]), "0x%" PRIx64, addrs[i]);
		argv[argc++] = args[i];
	}
	argv[argc] = NULL;
	int fd[2];
	if (pipe(fd))
		return;
	posix_spawn_file_actions_t fa;
	pid_t pid = -1;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		if (!posix_spawn_file_actions_adddup2(&fa, fd[1], 1) &&
		    !posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) &&
		    !posix_spawn_file_actions_addclose(&fa, fd[0]) &&
		    posix_spawnp(&pid, KLINE_TOOL, &fa, NULL, argv, environ))
			pid = -1;
		posix_spawn_file_actions_destroy(&fa);
	}
	close(fd[1]);
	FILE *f = pid > 0 ? fdopen(fd[0], "r") : NULL;
	char line[512];
	for (size_t i = 0; f && i < n && fgets(line, sizeof(line), f); i++) {
		if (k->nmemo == KLINE_MEMO_MAX)
			break;
		struct kline_memo *m = &k->memo[k->nmemo++];
		m->addr = addrs[i];
		tidy(line, m->where, sizeof(m->where));
	}
	if (f)
		fclose(f);
	else
		close(fd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

void kline_annotate(struct kline *k, const char *text, char *out, size_t cap)
{
	uint64_t want[KLINE_FRAMES];
	size_t nwant = 0;
	for (const char *p = text; k && *p && nwant < KLINE_FRAMES;) {
		size_t len = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		uint64_t a = frame_addr(k, line);
		if (a && !memo_find(k, a))
			want[nwant++] = a;
		p += len + (p[len] == '\n');
	}
	if (nwant)
		look_up(k, want, nwant);
	size_t n = 0;
	out[0] = 0;
	for (const char *p = text; *p && n < cap;) {
		size_t len = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		const char *where = k ? memo_find(k, frame_addr(k, line)) : NULL;
		n += (size_t)snprintf(out + n, cap - n, "%s%s%s%s\n", line,
				      where && *where ? " (" : "", where && *where ? where : "",
				      where && *where ? ")" : "");
		p += len + (p[len] == '\n');
	}
}
