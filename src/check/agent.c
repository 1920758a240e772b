/* agent.c - the host's client of the guest agent, one place: a command
 * run on the machine (and on its peer under two kernels, the replies
 * merged as one machine's), the agent's per-disk replies parsed by what
 * each command answers (src/proto/agent_cmds.h), and the few requests
 * built on them that the check step, the lenses and the tools share: a
 * result of one disk, a dump, the disks synced or quiesced for their
 * checkers, and what messages call each disk. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lens/corrupt_fsck.h"
#include "../machine/virt.h"
#include "../machine/virt_unwind.h"
#include "check.h"
#include "ops.h"

const char *check_label(const struct check_machine *m, int i, char out[CHECK_LABEL_MAX])
{
	if (!m->kernel_b || i > 1) {
		snprintf(out, CHECK_LABEL_MAX, "%s", m->fs[i]);
		return out;
	}
	const char *k[2] = {m->kernel, m->kernel_b};
	for (int j = 0; j < 2; j++)
		k[j] = strrchr(k[j], '/') ? strrchr(k[j], '/') + 1 : k[j];
	snprintf(out, CHECK_LABEL_MAX, "%s@%s%s", m->fs[i], k[i],
		 i && !strcmp(k[0], k[1]) ? "#2" : "");
	return out;
}

struct disk *check_disk(struct virt *v, int i)
{
	return i < v->ndisks || !v->peer ? &v->disks[i] : &v->peer->disks[i - v->ndisks];
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

/* "v PATH:K ..." (see the agent's check.c): what exists on disk 0. */
static void parse_view(const char *l, struct op_view *view)
{
	for (l += 2; *l && *l != '\n';) {
		size_t n = strcspn(l, " \n");
		const char *colon = memchr(l, ':', n);
		if (colon && colon - l < 64 && colon + 1 < l + n) {
			bool dir = colon[1] == 'd';
			if (dir ? view->ndirs < OP_POOL_MAX : view->nfiles < OP_POOL_MAX)
				snprintf(dir ? view->dirs[view->ndirs++]
					     : view->files[view->nfiles++],
					 64, "%.*s", (int)(colon - l), l);
		}
		l += n + (l[n] == ' ');
	}
}

/* "m DISK H..." (the agent's print_masked): what disk's ignored fields held. */
static void parse_masked(const char *l, int nfs, struct check_step *s)
{
	char *end;
	long i = strtol(l + 2, &end, 10);
	if (end == l + 2 || i < 0 || i >= nfs)
		return;
	for (int f = 0; f < RULE_NFIELDS; f++) {
		const char *p = end;
		s->masked[i][f] = strtoull(p, &end, 16);
		if (end == p)
			return;
	}
	s->masked_from |= 1u << i;
}

/* check_parse_reply, with only the disks whose bit is set in `disks`
 * bound to answer. */
static int parse_reply_of(const char *log, int nfs, unsigned disks, unsigned need,
			  struct check_step *s, char *why, size_t whylen)
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
		} else if (sscanf(l, "f %d !%23s", &i, e) == 2 && i >= 0 && i < nfs) {
			snprintf(s->fp_err[i], sizeof(s->fp_err[i]), "%s", e);
		} else if (l[0] == 'v' && l[1] == ' ') {
			parse_view(l, &s->view);
		} else if (l[0] == 'm' && l[1] == ' ') {
			parse_masked(l, nfs, s);
		}
	}
	if (((have_r & disks) == disks || !(need & CHECK_REPLY_R)) &&
	    ((have_f & disks) == disks || !(need & CHECK_REPLY_F)))
		return 0;
	snprintf(why, whylen, "the agent did not answer for every disk: %.200s",
		 log && *log ? log : "(nothing)");
	return -1;
}

int check_parse_reply(const char *log, int nfs, unsigned need, struct check_step *s, char *why,
		      size_t whylen)
{
	return parse_reply_of(log, nfs, (1u << nfs) - 1, need, s, why, whylen);
}

/* The agent command of cmd's first word (src/proto/agent_cmds.h): its
 * reply and flags; false for a word the table does not have. */
static bool command_of(const char *cmd, unsigned *reply, unsigned *flags)
{
	static const struct {
		const char *word;
		unsigned reply, flags;
	} cmds[] = {
#define STEP_CMD(word, reply, flags, usage) {#word, reply, flags},
	    AGENT_COMMANDS(STEP_CMD)
#undef STEP_CMD
	};
	size_t n = strcspn(cmd, " ");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (n == strlen(cmds[i].word) && !strncmp(cmd, cmds[i].word, n)) {
			*reply = cmds[i].reply;
			*flags = cmds[i].flags;
			return true;
		}
	return false;
}

/* What a command answers per disk, to parse (check_parse_reply's need):
 * its table's reply (a durable view with dump answers records). */
static unsigned reply_of(const char *cmd)
{
	unsigned reply = 0, flags = 0;
	if (!command_of(cmd, &reply, &flags))
		return 0;
	return (flags & AGENT_DUMP_NO_F) && strstr(cmd, " dump") ? 0 : reply;
}

/* Commands that apply an operation to every disk in turn. */
static bool applies_op(const char *cmd)
{
	unsigned reply, flags = 0;
	return command_of(cmd, &reply, &flags) && (flags & AGENT_APPLIES);
}

/* The agent's "fatal: ..." line, if it said one before the guest stopped,
 * as " (the agent: ...)"; else "". */
static void agent_last_words(const struct virt *v, char *out, size_t cap)
{
	const char *f = v->log ? strstr(v->log, "fatal: ") : NULL;
	out[0] = 0;
	if (f)
		snprintf(out, cap, " (the agent: %.*s)", (int)strcspn(f, "\n"), f);
}

/* Run one agent command on one machine: 0, or -1 with why (`who` names
 * the machine in it: "" or " under the second kernel"). */
static int run_command(struct virt *v, const char *cmd, const char *who, char *why, size_t whylen)
{
	virt_clear_log(v);
	if (virt_command(v, cmd)) {
		snprintf(why, whylen, "the agent was not waiting for a command%s", who);
		return -1;
	}
	uint64_t budget = v->op_budget ? v->op_budget : CHECK_OP_BUDGET;
	/* Time held still through a command that applies an operation to
	 * every disk: each disk's turn starts at the same instant (the agent
	 * sets the clock back to it) and no tick moves the clock inside one
	 * turn and not another, so times compare value for value. */
	bool hold = applies_op(cmd);
	virt_hold_time(v, hold);
	enum virt_stop stop = virt_run(v, cpu_steps(&v->cpu) + budget);
	virt_hold_time(v, false);
	if (stop != VIRT_WAITING || v->dev.panic_at) {
		char last[160], where[512] = "";
		agent_last_words(v, last, sizeof(last));
		if (stop == VIRT_BUDGET && !v->dev.panic_at) /* a hang: where it spins */
			virt_where(v, CHECK_HANG_FRAMES, where, sizeof(where));
		snprintf(why, whylen, "guest failure during '%s'%s: %s%s%s%s%s", cmd, who,
			 virt_stop_name(v->dev.panic_at ? VIRT_PANIC : stop),
			 v->stop_detail[0] ? ": " : "", v->stop_detail, where, last);
		return -1;
	}
	return 0;
}

/* Under two kernels: v's log becomes its own reply followed by its peer's
 * per-disk lines ("r I", "f I", "m I", "e I", "t I", "b I"), each disk renumbered
 * past v's own, so the reply reads as one machine's with every disk. The
 * peer's other lines (its view, a setting's echo) say what v's say. */
static int merge_peer_log(struct virt *v, char *why, size_t whylen)
{
	const char *a = v->log ? v->log : "", *b = v->peer->log ? v->peer->log : "";
	size_t lines = 1;
	for (const char *c = b; *c; c++)
		lines += *c == '\n';
	/* A renumbered head ("f 1 ") is at most 12 bytes longer than the
	 * one it replaces, and every line may need its newline. */
	size_t cap = strlen(a) + strlen(b) + 13 * lines + 1, n = strlen(a);
	char *out = malloc(cap);
	if (!out) {
		snprintf(why, whylen, "out of memory for the second kernel's reply");
		return -1;
	}
	memcpy(out, a, n + 1);
	for (const char *l = b; *l;) {
		size_t len = strcspn(l, "\n");
		int disk, at = 0;
		char kind;
		if (strchr("rfmetb", l[0]) && l[1] == ' ' &&
		    sscanf(l, "%c %d %n", &kind, &disk, &at) == 2 && at > 0 && (size_t)at <= len)
			n += (size_t)snprintf(out + n, cap - n, "%c %d %.*s\n", kind,
					      disk + v->ndisks, (int)(len - (size_t)at), l + at);
		l += len + (l[len] == '\n');
	}
	free(v->log);
	v->log = out;
	v->log_len = n;
	v->log_cap = cap;
	return 0;
}

int check_apply_on(struct virt *v, int nfs, unsigned disks, const char *cmd, struct check_step *s,
		   char *why, size_t whylen)
{
	memset(s, 0, sizeof(*s)); /* a failed step leaves no stale answers */
	if (run_command(v, cmd, "", why, whylen) ||
	    (v->peer && (run_command(v->peer, cmd, " under the second kernel", why, whylen) ||
			 merge_peer_log(v, why, whylen))))
		return -1;
	unsigned need = reply_of(cmd);
	return need ? parse_reply_of(v->log, nfs, disks, need, s, why, whylen) : 0;
}

int check_apply(struct virt *v, int nfs, const char *cmd, struct check_step *s, char *why,
		size_t whylen)
{
	return check_apply_on(v, nfs, (1u << nfs) - 1, cmd, s, why, whylen);
}

int check_synced(struct virt *v, const struct check_machine *m, check_disk_fn *each, void *ctx,
		 char *why, size_t whylen)
{
	struct check_step st;
	if (virt_fork(v)) {
		snprintf(why, whylen, "cannot fork the machine");
		return -1;
	}
	int rc = check_apply(v, m->nfs, AGENT_WORD(run, " sync"), &st, why, whylen);
	for (int i = 0; i < m->nfs && !rc; i++)
		rc = each(check_disk(v, i), i, ctx, why, whylen);
	virt_release(v);
	return rc ? -1 : 0;
}

/* "WORD I..." for the disks whose bit is set in `disks`. */
static void disks_command(char *cmd, size_t cap, const char *word, int nfs, unsigned disks)
{
	size_t n = (size_t)snprintf(cmd, cap, "%s", word);
	for (int i = 0; i < nfs && n < cap; i++)
		if (disks >> i & 1)
			n += (size_t)snprintf(cmd + n, cap - n, " %d", i);
}

/* The disks whose filesystem has a checker. */
static unsigned checked_disks(const struct check_machine *m)
{
	unsigned disks = 0;
	for (int i = 0; i < m->nfs; i++)
		disks |= (unsigned)corrupt_fsck_exists(m->fs[i]) << i;
	return disks;
}

int check_quiesce(struct virt *v, const struct check_machine *m, unsigned disks,
		  unsigned *unmounted, char *why, size_t whylen)
{
	struct check_step st;
	char cmd[16 + 4 * CHECK_MAX_FS];
	*unmounted = 0;
	if (!(disks &= checked_disks(m)))
		return 0;
	disks_command(cmd, sizeof(cmd), AGENT_WORD(readonly), m->nfs, disks);
	if (check_apply(v, m->nfs, cmd, &st, why, whylen))
		return -1;
	for (int i = 0; i < m->nfs; i++)
		if (st.ret[i] < 0)
			*unmounted |= 1u << i;
	if (!*unmounted)
		return 0;
	disks_command(cmd, sizeof(cmd), AGENT_WORD(umount), m->nfs, *unmounted);
	if (check_apply(v, m->nfs, cmd, &st, why, whylen))
		return -1;
	for (int i = 0; i < m->nfs; i++)
		if (st.ret[i] < 0) {
			snprintf(why, whylen,
				 "%s neither remounts read-only nor unmounts for its checker: %s",
				 m->fs[i], st.err[i]);
			return -1;
		}
	return 0;
}

const char *check_quiesced_how(unsigned unmounted, int i)
{
	return unmounted >> i & 1 ? "an unmount" : "a read-only remount";
}

char *check_dump(struct virt *v, int nfs, const char *cmd, char *why, size_t whylen)
{
	struct check_step st;
	if (check_apply(v, nfs, cmd, &st, why, whylen))
		return NULL;
	char *copy = strdup(v->log ? v->log : "");
	if (!copy)
		snprintf(why, whylen, "out of memory for a dump");
	return copy;
}

int check_agent(struct virt *v, int nfs, const char *cmd, char *why, size_t whylen)
{
	struct check_step st;
	return check_apply(v, nfs, cmd, &st, why, whylen);
}

int check_agent_result(struct virt *v, const char *cmd, int64_t *ret, char err[24], char *why,
		       size_t whylen)
{
	struct check_step st;
	if (check_apply(v, 1, cmd, &st, why, whylen))
		return -1;
	*ret = st.ret[0];
	snprintf(err, 24, "%s", st.err[0][0] ? st.err[0] : "0");
	return 0;
}
