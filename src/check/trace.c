/* trace.c - see trace.h; the format is documented line by line in
 * docs/trace.md. In short:
 *   themis-trace 3
 *   fs ext4 xfs
 *   build HASH                (the machine's identity, identity.h: XXH3-128
 *   kernel PATH HASH           of each file's content; PATH absolute)
 *   initrd PATH HASH
 *   image FS PATH HASH        (one per filesystem, in disk order)
 *   kernel-version TEXT       (the kernel's banner: for people, not checked)
 *   kernel-b PATH HASH        (explore FS --kernel A --kernel B only: the
 *   kernel-b-version TEXT      second kernel, disk 1's, and its banner)
 *   mem BYTES
 *   clock NS
 *   machine-seed N
 *   time 0|1
 *   warnings 0|1
 *   durability off|drop-caches|remount
 *   op-budget N
 *   crash-states K         (explore --crash only)
 *   fsck 1                    (explore --fsck only)
 *   options ARGS              (the exploring run's options: for people)
 *   op ...                    (the operations from the root, in order; none:
 *                              the discrepancy is at the root)
 *   crash POINT               (explore --crash: the crash point after the last
 *                              operation, crash.h; replay crashes it alone)
 *   discrepancy SIG DETAIL    (what they lead to)
 *   end
 * Format 3 made warnings, durability and op-budget required (a hang must
 * replay as a hang; the console level changes the guest's timing). Formats
 * 1 and 2 are read with the defaults of their time (off, 8e9 instructions,
 * quiet); format 1 has no build line.
 *
 * Files are found again as they were recorded: at the recorded path if its
 * content hash still matches, else beside the trace (a trace moved with its
 * files), else by hash among the build's own files (the files of
 * BUILD/guest and BUILD/images, BUILD the folder of the running executable or its
 * parent). A trace that breaks the format is refused naming file and line. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../lens/crash.h"
#include "../lens/lens.h"
#include "trace.h"

#define TRACE_MAGIC_PREFIX "themis-trace "
#define TRACE_VERSION	   3
#define TRACE_ID_MAX	   (16u << 10)
#define KERNEL_BANNER	   "Linux version "

void trace_kernel_version(const char *path, char *out, size_t cap)
{
	out[0] = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	static const char want[] = KERNEL_BANNER;
	size_t matched = 0, n = 0;
	for (int c; (c = getc(f)) != EOF;) {
		if (matched < sizeof(want) - 1) {
			matched = c == want[matched] ? matched + 1 : c == want[0] ? 1 : 0;
			continue;
		}
		if (c == '\n' || c == 0 || c < ' ' || c > '~' || n + 1 >= cap)
			break;
		out[n++] = (char)c;
	}
	fclose(f);
	if (matched == sizeof(want) - 1 && n && n + sizeof(want) < cap) {
		out[n] = 0;
		memmove(out + sizeof(want) - 1, out, n + 1);
		memcpy(out, want, sizeof(want) - 1);
	} else {
		out[0] = 0;
	}
}

/* Which of a format's lines a trace had: the required ones must all be. */
enum {
	SEEN_MEM = 1,
	SEEN_CLOCK = 2,
	SEEN_SEED = 4,
	SEEN_TIME = 8,
	SEEN_WARNINGS = 16,
	SEEN_DURABILITY = 32,
	SEEN_BUDGET = 64,
	SEEN_FS = 128,
};

/* The header's number lines, the one list its writer and parser share, in
 * the order written: X(word, member, min, max, need, value). need is the
 * SEEN bit of a required line, always written; 0 an optional one, written
 * when its value is not 0 (absent, the member stays 0). value is what is
 * written: the op-budget in force rather than 0 for "the default", so a
 * hang replays as a hang even if a later build's default differs. The
 * lenses write and read their own lines (lens.h: trace_write,
 * trace_parse). */
#define TRACE_NUMBERS(X)                                                                           \
	X("mem", mem, 0, UINT64_MAX, SEEN_MEM, m->mem)                                             \
	X("clock", clock_ns, 0, UINT64_MAX, SEEN_CLOCK, m->clock_ns)                               \
	X("machine-seed", machine_seed, 0, UINT64_MAX, SEEN_SEED, m->machine_seed)                 \
	X("time", time, 0, 1, SEEN_TIME, m->time)                                                  \
	X("warnings", warnings, 0, 1, SEEN_WARNINGS, m->warnings)                                  \
	X("op-budget", op_budget, 1, UINT64_MAX, SEEN_BUDGET,                                      \
	  m->op_budget ? m->op_budget : CHECK_OP_BUDGET)

/* The number lines of m, as TRACE_NUMBERS says. */
static void write_numbers(FILE *f, const struct check_machine *m)
{
#define TRACE_WRITE_NUMBER(word, member, min, max, need, value)                                    \
	if ((need) || (value))                                                                     \
		fprintf(f, word " %llu\n", (unsigned long long)(value));
	TRACE_NUMBERS(TRACE_WRITE_NUMBER)
#undef TRACE_WRITE_NUMBER
}

/* path made absolute (the file need not stay where the shell was), into
 * out; as given if it cannot be resolved. */
static const char *absolute(const char *path, char *out)
{
	return path && realpath(path, out) ? out : path;
}

/* The head's text into a new string at *out: the identity, the kernels'
 * banners and the machine's settings. 0, or -1 with err. */
static int head_take(const struct check_machine *m, char **out, char *err, size_t errlen)
{
	struct identity *id = malloc(sizeof(*id));
	char *text = malloc(TRACE_ID_MAX);
	char(*abs)[PATH_MAX] = malloc(sizeof(char[CHECK_MAX_FS + 2][PATH_MAX]));
	char version[512], abs_rules[PATH_MAX], kb_abs[PATH_MAX], kb_version[512] = "";
	int rc = id && text && abs ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "cannot write the trace: out of memory");
	const char *images[CHECK_MAX_FS];
	for (int i = 0; !rc && i < m->nfs; i++)
		images[i] = absolute(m->images[i], abs[2 + i]);
	if (!rc && identity_take(id, absolute(m->kernel, abs[0]), absolute(m->initrd, abs[1]),
				 images, m->fs, m->nfs, err, errlen))
		rc = -1;
	if (!rc && (text[0] = 0, identity_to_text(id, true, text, TRACE_ID_MAX) < 0)) {
		snprintf(err, errlen, "cannot write the trace: paths too long");
		rc = -1;
	}
	const char *kb = m->kernel_b ? absolute(m->kernel_b, kb_abs) : NULL;
	uint8_t kb_hash[16];
	if (!rc && kb && !identity_file_hash(kb, kb_hash)) {
		snprintf(err, errlen, "cannot write the trace: cannot read %s", m->kernel_b);
		rc = -1;
	}
	if (!rc) {
		trace_kernel_version(m->kernel, version, sizeof(version));
		if (m->kernel_b)
			trace_kernel_version(m->kernel_b, kb_version, sizeof(kb_version));
	}
	size_t len = 0;
	FILE *f = rc ? NULL : open_memstream(out, &len);
	if (!rc && !f) {
		snprintf(err, errlen, "cannot write the trace: out of memory");
		rc = -1;
	}
	free(id);
	free(abs);
	if (rc) {
		free(text);
		return -1;
	}
	fprintf(f, "%s%d\nfs", TRACE_MAGIC_PREFIX, TRACE_VERSION);
	for (int i = 0; i < m->nfs; i++)
		fprintf(f, " %s", m->fs[i]);
	fprintf(f, "\n%s", text);
	free(text);
	if (version[0])
		fprintf(f, "kernel-version %s\n", version);
	if (m->kernel_b) {
		fprintf(f, "kernel-b %s ", kb);
		for (int i = 0; i < 16; i++)
			fprintf(f, "%02x", kb_hash[i]);
		fprintf(f, "\n");
		if (kb_version[0])
			fprintf(f, "kernel-b-version %s\n", kb_version);
	}
	write_numbers(f, m);
	fprintf(f, "durability %s\n", check_durability_name(m->durability));
	lens_trace_write(m, f); /* what the lenses' options set: crash-states, fsck */
	if (m->rules && !strchr(m->rules->dir, '\n'))
		fprintf(f, "rules %016llx %s\n", (unsigned long long)m->rules->hash,
			absolute(m->rules->dir, abs_rules));
	if (m->options && !strchr(m->options, '\n'))
		fprintf(f, "options %s\n", m->options);
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "cannot write the trace: out of memory");
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

void trace_head_free(struct trace_head *h)
{
	free(h->text);
	h->text = NULL;
}

int trace_write(const char *path, struct trace_head *head, const struct check_machine *m,
		char ops[][OP_TEXT_MAX], int nops, const char *sig, const char *detail, char *err,
		size_t errlen)
{
	struct trace_head own = {0};
	struct trace_head *h = head ? head : &own;
	char why[400];
	if (!h->text && head_take(m, &h->text, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot write the trace: %s", path, strerror(errno));
		trace_head_free(&own);
		return -1;
	}
	fputs(h->text, f);
	trace_head_free(&own);
	for (int i = 0; i < nops; i++)
		fprintf(f, "%s\n", ops[i]);
	/* The detail's first line is its summary; the lines after it (the
	 * bytes, stats and fsck verdicts shown with it) each follow as "show". */
	int first = (int)strcspn(detail, "\n");
	fprintf(f, "discrepancy %s %.*s\n", sig, first, detail);
	for (const char *l = detail + first; *l == '\n'; l += 1 + strcspn(l + 1, "\n"))
		fprintf(f, "show %.*s\n", (int)strcspn(l + 1, "\n"), l + 1);
	fprintf(f, "end\n");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* "kernel-b PATH HASH": read as an identity's kernel line is. */
static int parse_kernel_b(struct trace *t, const char *rest, char *why, size_t whylen)
{
	struct identity *scratch = calloc(1, sizeof(*scratch));
	char *line = malloc(strlen(rest) + 8);
	int rc = -1;
	if (scratch && line && !t->kernel_b.known) {
		sprintf(line, "kernel %s", rest);
		rc = identity_parse_line(scratch, line) == 1 && scratch->kernel.path[0] ? 0 : -1;
		t->kernel_b = scratch->kernel;
	}
	if (rc)
		snprintf(why, whylen, "kernel-b is one line: kernel-b PATH HASH (32 hex digits)");
	free(scratch);
	free(line);
	return rc;
}

/* A number line of TRACE_NUMBERS into m: 1 (a required line's bit set in
 * seen), 0 not one, -1 its number out of range (why says so). */
static int parse_number(const char *line, struct check_machine *m, unsigned *seen, char *why,
			size_t whylen)
{
	unsigned long long u;
	int rc;
#define TRACE_PARSE_NUMBER(word, member, min, max, need, value)                                    \
	if ((rc = lens_trace_number(line, word, min, max, &u, why, whylen)) != 0) {                \
		m->member = (__typeof__(m->member))u;                                              \
		*seen |= (need);                                                                   \
		return rc;                                                                         \
	}
	TRACE_NUMBERS(TRACE_PARSE_NUMBER)
#undef TRACE_PARSE_NUMBER
	return 0;
}

/* One line (without its newline): 0, or -1 with why. */
static int parse_line(struct trace *t, char *line, unsigned *seen, bool *done, char *why,
		      size_t whylen)
{
	struct check_machine *m = &t->m;
	char b[64];
	unsigned long long u;
	int n, taken = 0, id = identity_parse_line(&t->id, line);
	if (id) {
		if (id < 0)
			snprintf(why, whylen, "malformed or repeated identity line");
		return id < 0 ? -1 : 0;
	}
	if (!strncmp(line, "op ", 3)) {
		if (t->crash[0]) {
			snprintf(why, whylen, "an operation after the crash step");
			return -1;
		}
		if (t->nops == TRACE_MAX_OPS) {
			snprintf(why, whylen, "more than %d operations", TRACE_MAX_OPS);
			return -1;
		}
		if (op_text_check(line, why, whylen))
			return -1;
		strcpy(t->ops[t->nops++], line);
	} else if (!strncmp(line, "fs ", 3) && !(*seen & SEEN_FS)) {
		*seen |= SEEN_FS;
		char *p = line + 3;
		while (sscanf(p, "%15s%n", b, &n) == 1) {
			if (m->nfs == CHECK_MAX_FS || !fs_known(b)) {
				snprintf(why, whylen, "unknown filesystem '%s', or more than %d", b,
					 CHECK_MAX_FS);
				return -1;
			}
			snprintf(t->fsnames[m->nfs], sizeof(t->fsnames[m->nfs]), "%.15s", b);
			m->fs[m->nfs] = t->fsnames[m->nfs];
			m->nfs++;
			p += n;
		}
	} else if (!strncmp(line, "rules ", 6)) {
		if (t->rules_dir[0] || sscanf(line + 6, "%16llx %n", &u, &n) != 1 ||
		    strspn(line + 6, "0123456789abcdef") != 16 || !line[6 + n] ||
		    strlen(line + 6 + n) >= sizeof(t->rules_dir)) {
			snprintf(why, whylen, "one rules line: rules HASH16 DIR");
			return -1;
		}
		t->rules_hash = u;
		snprintf(t->rules_dir, sizeof(t->rules_dir), "%s", line + 6 + n);
	} else if (!strncmp(line, "kernel-b-version ", 17)) {
		snprintf(t->kernel_b_version, sizeof(t->kernel_b_version), "%.*s",
			 (int)sizeof(t->kernel_b_version) - 1, line + 17);
	} else if (!strncmp(line, "kernel-b ", 9)) {
		return parse_kernel_b(t, line + 9, why, whylen);
	} else if (!strncmp(line, "kernel-version ", 15)) {
		snprintf(t->kernel_version, sizeof(t->kernel_version), "%.*s",
			 (int)sizeof(t->kernel_version) - 1, line + 15);
	} else if (!strncmp(line, "options ", 8)) {
		snprintf(t->options, sizeof(t->options), "%.*s", (int)sizeof(t->options) - 1,
			 line + 8);
	} else if ((taken = parse_number(line, m, seen, why, whylen)) != 0) {
	} else if (sscanf(line, "durability %63s", b) == 1) {
		int d = check_durability_by_name(b);
		if (d < 0) {
			snprintf(why, whylen, "durability is off, drop-caches or remount");
			return -1;
		}
		m->durability = (enum check_durability)d;
		*seen |= SEEN_DURABILITY;
	} else if (!strncmp(line, "crash ", 6)) {
		struct crash_step cs;
		if (t->crash[0] || !t->nops || crash_step_parse(line + 6, &cs)) {
			snprintf(
			    why, whylen,
			    "a crash step is one, after the operations: crash end, crash flush "
			    "DISK UPTO or crash subset DISK FROM ORDER");
			return -1;
		}
		snprintf(t->crash, sizeof(t->crash), "%.*s", (int)sizeof(t->crash) - 1, line);
	} else if (sscanf(line, "discrepancy %63s %n", t->sig, &n) == 1) {
		snprintf(t->detail, sizeof(t->detail), "%s", line + n);
	} else if (!strncmp(line, "show ", 5)) {
		size_t have = strnlen(t->detail, sizeof(t->detail));
		snprintf(t->detail + have, sizeof(t->detail) - have, "\n%s", line + 5);
	} else if (!strcmp(line, "end")) {
		*done = true;
	} else if ((taken = lens_trace_parse(m, line, why, whylen)) == 0) {
		snprintf(why, whylen, "not a line of a trace (docs/trace.md lists them)");
		return -1;
	}
	return taken < 0 ? -1 : 0;
}

/* ---- finding the trace's files ---- */

/* Does the file at path hold content `hash`? */
static bool holds(const char *path, const uint8_t hash[16])
{
	uint8_t h[16];
	return identity_file_hash(path, h) && !memcmp(h, hash, 16);
}

/* The content hashes of the build's files, as found by find_in: a
 * process looking for several files (or reading many traces) hashes each
 * of the build's images once, while it stays unchanged (size, mtime). */
#define HASH_CACHE 64
static struct {
	char path[PATH_MAX];
	off_t size;
	struct timespec mtime;
	uint8_t hash[16];
	bool ok;
} hash_cache[HASH_CACHE];
static int hash_cached;

static bool build_file_holds(const char *path, const struct stat *st, const uint8_t hash[16])
{
	for (int i = 0; i < hash_cached; i++)
		if (!strcmp(hash_cache[i].path, path) && hash_cache[i].size == st->st_size &&
		    hash_cache[i].mtime.tv_sec == st->st_mtim.tv_sec &&
		    hash_cache[i].mtime.tv_nsec == st->st_mtim.tv_nsec)
			return hash_cache[i].ok && !memcmp(hash_cache[i].hash, hash, 16);
	int k = hash_cached < HASH_CACHE ? hash_cached++ : (int)(st->st_ino % HASH_CACHE);
	if (strlen(path) >= sizeof(hash_cache[k].path))
		return holds(path, hash);
	memcpy(hash_cache[k].path, path, strlen(path) + 1);
	hash_cache[k].size = st->st_size;
	hash_cache[k].mtime = st->st_mtim;
	hash_cache[k].ok = identity_file_hash(path, hash_cache[k].hash);
	return hash_cache[k].ok && !memcmp(hash_cache[k].hash, hash, 16);
}

/* A file with content `hash` in dir (regular files only, not the build's
 * logs and stamps), into out. */
static bool find_in(const char *dir, const uint8_t hash[16], char *out, size_t cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		struct stat st;
		if (e->d_name[0] == '.' || (n > 4 && !strcmp(e->d_name + n - 4, ".log")) ||
		    (n > 6 && !strcmp(e->d_name + n - 6, ".stamp")))
			continue;
		if ((size_t)snprintf(out, cap, "%s/%s", dir, e->d_name) >= cap)
			continue;
		found =
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && build_file_holds(out, &st, hash);
	}
	closedir(d);
	return found;
}

/* Where the file recorded as f is now (see the top of the file): its
 * path into f->path when found elsewhere, with a note said in notes. */
static void locate(const char *trace_path, struct identity_file *f, const char *what, char *notes,
		   size_t ncap)
{
	if (!f->known || !f->path[0] || holds(f->path, f->hash))
		return;
	char dir[PATH_MAX], cand[PATH_MAX + IDENTITY_PATH_MAX], exe[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", trace_path);
	char *slash = strrchr(dir, '/');
	snprintf(slash ? slash : dir, sizeof(dir) - (size_t)(slash ? slash - dir : 0), "%s",
		 slash ? "" : ".");
	const char *base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	bool found = false;
	if (f->path[0] != '/') {
		snprintf(cand, sizeof(cand), "%s/%s", dir, f->path);
		found = holds(cand, f->hash);
	}
	if (!found) {
		snprintf(cand, sizeof(cand), "%s/%s", dir, base);
		found = holds(cand, f->hash);
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	static const char *const subs[] = {"guest", "images", "../guest", "../images"};
	for (size_t i = 0; !found && n > 0 && i < sizeof(subs) / sizeof(subs[0]); i++) {
		exe[n] = 0;
		char *s = strrchr(exe, '/');
		if (!s)
			break;
		char where[PATH_MAX + 16];
		snprintf(where, sizeof(where), "%.*s/%s", (int)(s - exe), exe, subs[i]);
		found = find_in(where, f->hash, cand, sizeof(cand));
	}
	if (!found || strlen(cand) >= sizeof(f->path))
		return;
	size_t used = strlen(notes);
	snprintf(notes + used, ncap - used, "%s%s is not at %s any more: found at %s",
		 used ? "; " : "", what, f->path, cand);
	memcpy(f->path, cand, strlen(cand) + 1); /* fits: checked above */
}

/* The files the trace names, as they are now, against its record. */
static int check_files(const char *path, struct trace *t, bool check_kernel, char *err,
		       size_t errlen)
{
	struct check_machine *m = &t->m;
	struct identity *now = malloc(sizeof(*now));
	char why[1100];
	unsigned parts = IDENTITY_INITRD | IDENTITY_IMAGES | (check_kernel ? IDENTITY_KERNEL : 0);
	int rc = now ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "%s: out of memory", path);
	if (!rc && identity_take(now, check_kernel ? m->kernel : NULL, m->initrd, m->images, m->fs,
				 m->nfs, why, sizeof(why))) {
		snprintf(
		    err, errlen,
		    "%s: the trace names a file that cannot be read, and none with its content "
		    "is beside the trace or in the build: %s",
		    path, why);
		rc = -1;
	}
	if (!rc && identity_diff(&t->id, now, parts, why, sizeof(why))) {
		snprintf(
		    err, errlen,
		    "%s: %s changed since the trace was recorded, and no file with the recorded "
		    "content is beside the trace or in the build (another configuration: "
		    "rebuild it as it was, or record the trace again)",
		    path, why);
		rc = -1;
	}
	if (!rc)
		t->build = !t->id.build.known ? TRACE_BUILD_UNKNOWN
			   : identity_diff(&t->id, now, IDENTITY_BUILD, why, sizeof(why))
			       ? TRACE_BUILD_OTHER
			       : TRACE_BUILD_SAME;
	free(now);
	return rc;
}

int trace_parse(const char *path, struct trace *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048], why[512] = "";
	int lineno = 1, rc = 0, version = 0, n = 0;
	unsigned seen = 0;
	bool done = false;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, TRACE_MAGIC_PREFIX "%d%n", &version, &n) != 1 || line[n] != '\n' ||
	    version < 1) {
		fclose(f);
		snprintf(err, errlen, "%s: not a Themis trace (no '%s%d' header)", path,
			 TRACE_MAGIC_PREFIX, TRACE_VERSION);
		return -1;
	}
	if (version > TRACE_VERSION) {
		fclose(f);
		snprintf(err, errlen,
			 "%s: trace format %d, newer than this build of themis reads (%d): replay "
			 "it with the build that wrote it",
			 path, version, TRACE_VERSION);
		return -1;
	}
	t->version = version;
	if (version < 3) { /* the defaults of their time */
		t->m.op_budget = CHECK_OP_BUDGET;
		seen |= SEEN_WARNINGS | SEEN_DURABILITY | SEEN_BUDGET;
	}
	while (rc == 0 && !done && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(why, sizeof(why), "line too long");
			rc = -1;
			break;
		}
		line[strcspn(line, "\n")] = 0;
		rc = parse_line(t, line, &seen, &done, why, sizeof(why));
	}
	fclose(f);
	struct check_machine *m = &t->m;
	if (rc) {
		snprintf(err, errlen, "%s:%d: malformed trace: %s", path, lineno, why);
		return -1;
	}
	if (!done) {
		snprintf(err, errlen, "%s:%d: damaged trace: no 'end' line", path, lineno);
		return -1;
	}
	const struct identity *id = &t->id;
	unsigned need = SEEN_FS | SEEN_MEM | SEEN_CLOCK | SEEN_SEED | SEEN_TIME | SEEN_WARNINGS |
			SEEN_DURABILITY | SEEN_BUDGET;
	if (t->crash[0] && !m->crash_states) {
		snprintf(err, errlen, "%s: damaged trace: a crash step without crash-states", path);
		return -1;
	}
	if (m->nfs < 1 || id->nimages != m->nfs || !id->kernel.known || !id->kernel.path[0] ||
	    !id->initrd.known || !id->initrd.path[0] || !m->mem || !t->sig[0] ||
	    (seen & need) != need) {
		snprintf(
		    err, errlen,
		    "%s: damaged trace: its header lacks a line (fs, kernel, initrd, an image a "
		    "filesystem, mem, clock, machine-seed, time%s, or the discrepancy)",
		    path, version >= 3 ? ", warnings, durability, op-budget" : "");
		return -1;
	}
	if (t->kernel_b.known && (m->nfs != 2 || strcmp(m->fs[0], m->fs[1]))) {
		snprintf(err, errlen,
			 "%s: damaged trace: kernel-b with filesystems other than one, twice",
			 path);
		return -1;
	}
	for (int i = 0; i < m->nfs; i++)
		if (!id->images[i].path[0]) {
			snprintf(err, errlen, "%s: damaged trace: image %d has no path", path, i);
			return -1;
		}
	return 0;
}

int trace_read(const char *path, struct trace *t, bool check_kernel, char *err, size_t errlen)
{
	if (trace_parse(path, t, err, errlen))
		return -1;
	struct check_machine *m = &t->m;
	const struct identity *id = &t->id;
	if (check_kernel)
		locate(path, &t->id.kernel, "the kernel", t->notes, sizeof(t->notes));
	locate(path, &t->id.initrd, "the initramfs", t->notes, sizeof(t->notes));
	for (int i = 0; i < m->nfs; i++)
		locate(path, &t->id.images[i], t->id.image_names[i], t->notes, sizeof(t->notes));
	m->kernel = id->kernel.path;
	m->initrd = id->initrd.path;
	if (t->kernel_b.known) {
		if (check_kernel)
			locate(path, &t->kernel_b, "the second kernel", t->notes, sizeof(t->notes));
		m->kernel_b = t->kernel_b.path;
		if (check_kernel && !holds(m->kernel_b, t->kernel_b.hash)) {
			snprintf(
			    err, errlen,
			    "%s: the second kernel (%s) changed since the trace was recorded, "
			    "and no file with the recorded content is beside the trace or in "
			    "the build (another configuration: rebuild it as it was, or record "
			    "the trace again)",
			    path, m->kernel_b);
			return -1;
		}
	}
	for (int i = 0; i < m->nfs; i++)
		m->images[i] = id->images[i].path;
	return check_files(path, t, check_kernel, err, errlen);
}
