/* args.c - see cli.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check/rules.h"
#include "../fs/fs.h"
#include "cli.h"

/* The verb being run, for the hint under an error (main.c sets it). */
static const char *current_verb;

void cli_set_verb(const char *verb)
{
	current_verb = verb;
}

int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "themis: ");
	fprintf(stderr, fmt, arg);
	if (current_verb)
		fprintf(stderr, "\nTry 'themis help %s'.\n", current_verb);
	else
		fprintf(stderr, "\nTry 'themis help'.\n");
	return EXIT_USAGE;
}

int missing_value(const char *opt)
{
	return usage_error("option '%s' needs a value", opt);
}

int unknown_option(const char *arg)
{
	char what[512];
	snprintf(what, sizeof(what), "unknown option '%s' for '%s'", arg,
		 current_verb ? current_verb : "themis");
	return usage_error("%s", what);
}

int write_out(const char *path, void (*write)(const void *obj, FILE *f), const void *obj)
{
	bool out = !strcmp(path, "-");
	FILE *f = out ? stdout : fopen(path, "w");
	if (!f) {
		fprintf(stderr, "themis: %s: cannot write: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	write(obj, f);
	if (out ? fflush(f) != 0 || ferror(f) : fclose(f) != 0) {
		fprintf(stderr, "themis: %s: cannot write: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/* Parse a decimal count; false if not a whole non-negative number. */
bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* Parse a size such as 4096, 64K, 128M, 2G. */
bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (errno || *end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* Parse 2026-01-01T00:00:00Z (UTC), SECONDS or @SECONDS into ns since the
 * epoch. */
bool parse_clock(const char *s, uint64_t *ns)
{
	uint64_t secs;
	if (s[0] == '@' || (s[0] >= '0' && s[0] <= '9' && !strchr(s, '-'))) {
		if (!parse_u64(s + (s[0] == '@'), &secs) || secs > CLOCK_MAX_SECONDS)
			return false;
		*ns = secs * 1000000000ULL;
		return true;
	}
	struct tm tm = {0};
	char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || (*end != 'Z' && *end) || (*end == 'Z' && end[1]))
		return false;
	time_t t = timegm(&tm);
	if (t < 0 || (uint64_t)t > CLOCK_MAX_SECONDS)
		return false;
	*ns = (uint64_t)t * 1000000000ULL;
	return true;
}

void beside_exe(const char *sub, const char *name, char *out, size_t outlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	int len = snprintf(out, outlen, "%s/%s/%s", n > 0 ? exe : ".", sub, name);
	if (len < 0 || (size_t)len >= outlen)
		snprintf(out, outlen, "%s/%s", sub, name);
}

void default_kernel(char *out, size_t outlen)
{
	const char *env = getenv("THEMIS_KERNEL");
	if (env && *env && strlen(env) < outlen)
		snprintf(out, outlen, "%s", env);
	else
		beside_exe("guest", "Image", out, outlen);
}

/* The command that builds the kernel image `path` names, from its file
 * name: Image[-6.12][-NAME], NAME a folder of guest/bugs or guest/fixes. */
static void build_hint(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *rest = !strncmp(base, "Image", 5) ? base + 5 : NULL;
	const char *version = "";
	if (rest && !strncmp(rest, "-6.12", 5) && (rest[5] == 0 || rest[5] == '-'))
		version = " --version 6.12", rest += 5;
	if (!rest || (*rest && *rest != '-')) {
		snprintf(out, cap,
			 "a RISC-V Image: scripts/build-kernel.sh [--version V] "
			 "[--patch DIR] build (it prints the path to pass)");
		return;
	}
	if (!*rest) {
		snprintf(out, cap, "scripts/build-kernel.sh%s build", version);
		return;
	}
	static const char *const dirs[] = {"guest/bugs", "guest/fixes"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[PATH_MAX], sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "../%s", dirs[i]);
		beside_exe(sub, rest + 1, dir, sizeof(dir));
		if (access(dir, F_OK) == 0) {
			snprintf(out, cap, "scripts/build-kernel.sh%s --patch %s/%s build", version,
				 dirs[i], rest + 1);
			return;
		}
	}
	snprintf(out, cap, "scripts/build-kernel.sh%s --patch DIR build, DIR a folder named %s",
		 version, rest + 1);
}

int resolve_kernel(char *kernel, size_t cap)
{
	if (!strchr(kernel, '/') && access(kernel, F_OK) != 0) {
		char name[PATH_MAX], path[PATH_MAX];
		if (!strcmp(kernel, "6.1") || !strncmp(kernel, "Image", 5))
			snprintf(name, sizeof(name), "%s",
				 strcmp(kernel, "6.1") ? kernel : "Image");
		else
			snprintf(name, sizeof(name), "Image-%s", kernel);
		beside_exe("guest", name, path, sizeof(path));
		if (strlen(path) < cap)
			snprintf(kernel, cap, "%s", path);
	}
	if (access(kernel, R_OK) == 0)
		return 0;
	int e = errno;
	char hint[2 * PATH_MAX], cwd[PATH_MAX];
	build_hint(kernel, hint, sizeof(hint));
	/* said relative to the current folder when inside it, as typed */
	const char *said = kernel;
	size_t n = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;
	if (n && !strncmp(kernel, cwd, n) && kernel[n] == '/')
		said = kernel + n + 1;
	if (e == ENOENT)
		fprintf(stderr, "themis: kernel %s is not built; build it with:\n  %s\n", said,
			hint);
	else
		fprintf(stderr, "themis: kernel %s: cannot read it: %s\n", kernel, strerror(e));
	return EXIT_USAGE;
}

/* Build BUILD/images/FS.img with scripts/mkimages.sh (a missing default
 * image: a checkout that ran make but not make guest). */
static void build_image(const char *fs)
{
	char script[PATH_MAX], build[PATH_MAX], cmd[3 * PATH_MAX];
	beside_exe("..", "scripts/mkimages.sh", script, sizeof(script));
	beside_exe(".", "", build, sizeof(build));
	if (access(script, X_OK) != 0 || strchr(script, '\'') || strchr(build, '\''))
		return;
	fprintf(stderr, "themis: building the %s image with scripts/mkimages.sh\n", fs);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' %s >&2", script, build, fs);
	if (system(cmd) != 0)
		fprintf(stderr, "themis: scripts/mkimages.sh could not build the %s image\n", fs);
}

int unknown_fs(const char *name)
{
	char why[600];
	snprintf(why, sizeof(why), "unknown filesystem '%.40s' (known: %s; themis fs shows them)",
		 name, fs_names(", "));
	return usage_error("%s", why);
}

int resolve_image(const char *fs, const char *given, char *out, size_t cap)
{
	char name[32];
	snprintf(name, sizeof(name), "%s.img", fs);
	if (given)
		snprintf(out, cap, "%s", given);
	else
		beside_exe("images", name, out, cap);
	if (!given && access(out, R_OK) != 0)
		build_image(fs);
	if (access(out, R_OK) != 0) {
		fprintf(stderr, "themis: %s: cannot read the %s image: %s%s\n", out, fs,
			strerror(errno), given ? "" : " (make guest builds them)");
		return EXIT_USAGE;
	}
	const char *t = fs_detect(out);
	if (!t || !fs_mounts(fs, t)) { /* ext4 takes ext2 and ext3 too */
		fprintf(stderr,
			"themis: %s holds %s, not %s (too small, damaged, or another "
			"filesystem)\n",
			out, t ? t : "no filesystem Themis knows", fs);
		return EXIT_USAGE;
	}
	return 0;
}

int load_rules(struct rules *r, const char *dir, const char *const *fs, int nfs)
{
	char def[RULES_PATH_MAX], err[1024];
	if (!dir)
		rules_default_dir(def, sizeof(def));
	if (rules_load(r, dir ? dir : def, fs, nfs, err, sizeof(err))) {
		fprintf(stderr, "themis: %s\n", err);
		return EXIT_USAGE;
	}
	return 0;
}
