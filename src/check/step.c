/* step.c - one step of the checker, shared by explore, replay and the
 * minimizer: boot the machine, run an agent command, parse what every
 * filesystem answered, and compare the answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../machine/snapshot.h"
#include "check.h"

#define CHECK_OP_BUDGET 8000000000ULL /* instructions an operation may take */

/* Tell the agent the fields some filesystem of the pair cannot represent:
 * they are benign differences, left out of every fingerprint. */
static int set_ignored(struct virt *v, const struct check_machine *m, char *err, size_t errlen)
{
	char cmd[128] = "ignore -", fields[96] = "";
	for (int i = 0; i < m->nfs; i++) {
		const char *f = fs_unrepresented(m->fs[i]);
		if (*f && !strstr(fields, f))
			snprintf(fields + strlen(fields), sizeof(fields) - strlen(fields), "%s%s",
				 *fields ? "," : "", f);
	}
	if (*fields)
		snprintf(cmd, sizeof(cmd), "ignore %s", fields);
	struct check_step st;
	if (check_apply(v, m->nfs, cmd, &st, err, errlen) || !v->log ||
	    strncmp(v->log, "ignore ", 7)) {
		snprintf(err, errlen,
			 "the agent refused '%s' (an initramfs older than this build?)", cmd);
		virt_free(v);
		return -1;
	}
	return 0;
}

int check_boot(struct virt *v, const struct check_machine *m, char *err, size_t errlen)
{
	char append[256] = "";
	size_t used =
	    (size_t)snprintf(append, sizeof(append), "console=ttyS0 panic=-1 quiet themis.fs=");
	struct virt_config cfg = {
	    .kernel = m->kernel,
	    .initrd = m->initrd,
	    .append = append,
	    .mem = m->mem,
	    .ndisks = m->nfs,
	    .clock_ns = m->clock_ns,
	    .seed = m->machine_seed,
	    .wait = true,
	};
	for (int i = 0; i < m->nfs; i++) {
		cfg.disks[i] = (struct virt_disk_config){m->images[i], false};
		used += (size_t)snprintf(append + used, sizeof(append) - used, "%s%s", i ? "," : "",
					 m->fs[i]);
	}
	if (used >= sizeof(append)) {
		snprintf(err, errlen, "kernel command line too long");
		return -1;
	}
	if (m->load) {
		if (virt_load(v, &cfg, m->load, err, errlen))
			return -1;
		if (v->ndisks != m->nfs) {
			snprintf(err, errlen, "%s: the saved machine has %d disks, not %d", m->load,
				 v->ndisks, m->nfs);
			virt_free(v);
			return -1;
		}
		v->op_budget = m->op_budget;
		return set_ignored(v, m, err, errlen);
	}
	if (virt_init(v, &cfg, err, errlen))
		return -1;
	v->op_budget = m->op_budget;
	if (virt_run(v, 40000000000ULL) != VIRT_WAITING) {
		snprintf(err, errlen,
			 "the guest did not reach the agent's command loop (stop %d%s%s)", v->stop,
			 v->stop_detail[0] ? ": " : "", v->stop_detail);
		virt_free(v);
		return -1;
	}
	return set_ignored(v, m, err, errlen);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool parse_hex16(const char *h, uint8_t out[16])
{
	for (int i = 0; i < 16; i++) {
		int a = hexval(h[2 * i]), b = a < 0 ? -1 : hexval(h[2 * i + 1]);
		if (b < 0)
			return false;
		out[i] = (uint8_t)(a << 4 | b);
	}
	return true;
}

/* "r I RET ERR" and "f I HEX32" lines; every disk must answer with both
 * (or only with its fingerprint, for "fp"). */
static int parse_step(const char *log, int nfs, bool need_r, struct check_step *s, char *why,
		      size_t whylen)
{
	unsigned have_r = 0, have_f = 0;
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int i;
		long long ret;
		char e[24], hex[40];
		if (sscanf(l, "r %d %lld %23s", &i, &ret, e) == 3 && i >= 0 && i < nfs) {
			s->ret[i] = ret;
			snprintf(s->err[i], sizeof(s->err[i]), "%s", e);
			have_r |= 1u << i;
		} else if (sscanf(l, "f %d %39s", &i, hex) == 2 && i >= 0 && i < nfs &&
			   strlen(hex) == 32 && parse_hex16(hex, s->fp[i])) {
			have_f |= 1u << i;
		}
	}
	unsigned all = (1u << nfs) - 1;
	if ((have_r == all || !need_r) && have_f == all)
		return 0;
	snprintf(why, whylen, "the agent did not answer for every disk: %.200s",
		 log && *log ? log : "(nothing)");
	return -1;
}

int check_apply(struct virt *v, int nfs, const char *cmd, struct check_step *s, char *why,
		size_t whylen)
{
	static const char *const stops[] = {"running",	     "ready",
					    "powered off",   "reboot",
					    "kernel panic",  "hang (instruction budget)",
					    "hang (asleep)", "trap into M-mode",
					    "waiting"};
	virt_clear_log(v);
	if (virt_command(v, cmd)) {
		snprintf(why, whylen, "the agent was not waiting for a command");
		return -1;
	}
	uint64_t budget = v->op_budget ? v->op_budget : CHECK_OP_BUDGET;
	enum virt_stop stop = virt_run(v, cpu_steps(&v->cpu) + budget);
	if (stop != VIRT_WAITING || v->dev.panic_at) {
		snprintf(why, whylen, "guest failure during '%s': %s%s%s", cmd,
			 v->dev.panic_at ? "kernel panic" : stops[stop],
			 v->stop_detail[0] ? ": " : "", v->stop_detail);
		return -1;
	}
	memset(s, 0, sizeof(*s));
	if (!strncmp(cmd, "op ", 3))
		return parse_step(v->log, nfs, true, s, why, whylen);
	if (!strncmp(cmd, "fp", 2))
		return parse_step(v->log, nfs, false, s, why, whylen);
	return 0;
}

/* POSIX lets rmdir of a non-empty directory fail with either. */
static const char *errno_class(const char *e)
{
	return !strcmp(e, "EEXIST") ? "ENOTEMPTY" : e;
}

static int compare_results(const struct check_machine *m, const struct check_step *s, char *why,
			   size_t whylen)
{
	for (int i = 1; i < m->nfs; i++)
		if (s->ret[i] != s->ret[0] ||
		    strcmp(errno_class(s->err[i]), errno_class(s->err[0]))) {
			size_t n = (size_t)snprintf(why, whylen, "return values differ:");
			for (int k = 0; k < m->nfs && n < whylen; k++)
				n += (size_t)snprintf(why + n, whylen - n, " %s %lld %s", m->fs[k],
						      (long long)s->ret[k], s->err[k]);
			return 1;
		}
	return 0;
}

/* The dump line of disk i for `path` and its fields; NULL if absent. */
static const char *find_entry(const char *log, int disk, const char *path)
{
	char prefix[300];
	int n = snprintf(prefix, sizeof(prefix), "e %d %s ", disk, path);
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, (size_t)n))
			return l + n;
	return NULL;
}

static size_t line_len(const char *l)
{
	return l ? strcspn(l, "\n") : 0;
}

/* Name the first path (in order) and field where disk 0 and disk k differ. */
static void first_difference(const char *log, const struct check_machine *m, int k, char *why,
			     size_t whylen, char *sig, size_t siglen)
{
	for (int pass = 0; pass < 2; pass++) {
		int src = pass ? k : 0, other = pass ? 0 : k;
		char pfx[8];
		int pn = snprintf(pfx, sizeof(pfx), "e %d ", src);
		for (const char *l = log; l && *l;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (strncmp(l, pfx, (size_t)pn))
				continue;
			char path[256];
			if (sscanf(l + pn, "%255s", path) != 1)
				continue;
			const char *a = l + pn + strlen(path) + 1,
				   *b = find_entry(log, other, path);
			if (!b) {
				snprintf(why, whylen, "state differs: %s exists on %s only", path,
					 m->fs[src]);
				snprintf(sig, siglen, "state:exists");
				return;
			}
			size_t la = line_len(a), lb = line_len(b);
			if (la == lb && !memcmp(a, b, la))
				continue;
			/* the first field (key=value) that differs */
			const char *fa = a, *fb = b;
			while (fa < a + la && fb < b + lb) {
				size_t wa = strcspn(fa, " \n"), wb = strcspn(fb, " \n");
				if (wa != wb || memcmp(fa, fb, wa)) {
					size_t key = strcspn(fa, "=");
					snprintf(why, whylen,
						 "state differs at %s: %.*s on %s, %.*s on %s",
						 path, (int)wa, fa, m->fs[src], (int)wb, fb,
						 m->fs[other]);
					snprintf(sig, siglen, "state:%.*s",
						 (int)(key < wa ? key : wa), fa);
					return;
				}
				fa += wa + (fa[wa] == ' '), fb += wb + (fb[wb] == ' ');
			}
		}
	}
	snprintf(why, whylen, "fingerprints differ between %s and %s (entries alike)", m->fs[0],
		 m->fs[k]);
	snprintf(sig, siglen, "state:fingerprint");
}

int check_compare(struct virt *v, const struct check_machine *m, const struct check_step *s,
		  char *why, size_t whylen, char *sig, size_t siglen)
{
	if (compare_results(m, s, why, whylen)) {
		snprintf(sig, siglen, "result");
		return 1;
	}
	int k = 1;
	while (k < m->nfs && !memcmp(s->fp[k], s->fp[0], 16))
		k++;
	if (k == m->nfs)
		return 0;
	struct check_step dump;
	char err[256];
	if (check_apply(v, m->nfs, m->time ? "dump time" : "dump", &dump, err, sizeof(err))) {
		snprintf(why, whylen, "fingerprints differ (%s)", err);
		snprintf(sig, siglen, "state:fingerprint");
		return 1;
	}
	first_difference(v->log, m, k, why, whylen, sig, siglen);
	return 1;
}

int check_view(struct virt *v, const struct check_machine *m, struct op_view *view)
{
	struct check_step st;
	char why[256];
	memset(view, 0, sizeof(*view));
	if (check_apply(v, m->nfs, "dump", &st, why, sizeof(why)))
		return -1;
	for (const char *l = v->log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char path[64], kind[16];
		if (sscanf(l, "e 0 %63s kind=%15s", path, kind) != 2 || !strcmp(path, "."))
			continue;
		if (!strcmp(kind, "dir") && view->ndirs < OP_POOL_MAX)
			snprintf(view->dirs[view->ndirs++], 64, "%s", path);
		else if (strcmp(kind, "dir") && view->nfiles < OP_POOL_MAX)
			snprintf(view->files[view->nfiles++], 64, "%s", path);
	}
	return 0;
}
