/* virt_agent.c - the board's link to the guest agent: the doorbell
 * (src/proto/doorbell.h), through which the agent reports ready, logs
 * lines and waits for its next command, and the host side of it: the
 * command waiting for the agent (virt_command) and the log of its lines
 * (virt_clear_log). The agent passes guest-virtual buffers of its own
 * process, copied here through the hart's page tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/doorbell.h"
#include "virt_internal.h"

/* Copy a guest-virtual buffer of the calling process out; false if any
 * page is unmapped or outside RAM. */
static bool copy_from_guest(struct virt *v, uint64_t va, void *buf, uint64_t len)
{
	uint8_t *out = buf;
	while (len) {
		uint64_t pa, n = 4096 - (va & 0xfff);
		if (n > len)
			n = len;
		if (!cpu_virt_to_phys(&v->cpu, va, false, &pa) || !ram_read(&v->ram, pa, out, n))
			return false;
		out += n, va += n, len -= n;
	}
	return true;
}

/* Copy into a guest-virtual buffer of the calling process. */
static bool copy_to_guest(struct virt *v, uint64_t va, const void *buf, uint64_t len)
{
	const uint8_t *in = buf;
	while (len) {
		uint64_t pa, n = 4096 - (va & 0xfff);
		if (n > len)
			n = len;
		if (!cpu_virt_to_phys(&v->cpu, va, true, &pa) || !virt_dma_write(v, pa, in, n))
			return false;
		in += n, va += n, len -= n;
	}
	return true;
}

static void log_append(struct virt *v, const char *line)
{
	size_t n = strlen(line);
	if (v->log_len + n + 2 > v->log_cap) {
		size_t cap = (v->log_cap ? v->log_cap * 2 : 4096) + n;
		char *nl = realloc(v->log, cap);
		if (!nl)
			return;
		v->log = nl;
		v->log_cap = cap;
	}
	memcpy(v->log + v->log_len, line, n);
	v->log_len += n;
	v->log[v->log_len++] = '\n';
	v->log[v->log_len] = 0;
}

void virt_clear_log(struct virt *v)
{
	v->log_len = 0;
	if (v->log)
		v->log[0] = 0;
}

int virt_command(struct virt *v, const char *cmd)
{
	size_t n = strlen(cmd);
	if (v->stop != VIRT_WAITING || n >= sizeof(v->cmd))
		return -EINVAL;
	memcpy(v->cmd, cmd, n);
	v->cmd_len = n;
	v->cmd_pending = true;
	v->stop = VIRT_RUNNING;
	return 0;
}

/* A text buffer of the agent, as one printable line. */
static bool guest_text(struct virt *v, uint64_t va, uint64_t len, char *out, size_t outlen)
{
	if (len > DB_MAX_LEN || len >= outlen)
		len = outlen - 1;
	if (!copy_from_guest(v, va, out, len))
		return false;
	out[len] = 0;
	for (uint64_t i = 0; i < len; i++)
		if (out[i] == '\n' && i + 1 == len)
			out[i] = 0;
		else if ((unsigned char)out[i] < ' ' && out[i] != '\n')
			out[i] = '?';
	return true;
}

uint64_t virt_doorbell(void *opaque, uint64_t cmd, uint64_t buf, uint64_t len)
{
	struct virt *v = opaque;
	char text[DB_MAX_LEN + 1];
	switch (cmd) {
	case DB_PING: return DB_MAGIC;
	case DB_READY:
		if (!guest_text(v, buf, len, v->ready_report, sizeof(v->ready_report)))
			return DB_ERROR;
		if (v->wait)
			return DB_NEXT_WAIT;
		if (v->next)
			return (uint64_t)v->next;
		virt_stop_with(v, VIRT_READY, NULL);
		return DB_NEXT_POWEROFF;
	case DB_LOG:
		if (!guest_text(v, buf, len, text, sizeof(text)))
			return DB_ERROR;
		fprintf(v->console, "%s\n", text); /* as the agent prints without a host */
		log_append(v, text);
		return 0;
	case DB_WAIT:
		if (!v->cmd_pending) {
			virt_stop_with(v, VIRT_WAITING, NULL);
			return CPU_DOORBELL_STALL; /* executed again once a command is there */
		}
		if (v->cmd_len > len || !copy_to_guest(v, buf, v->cmd, v->cmd_len))
			return DB_ERROR;
		v->cmd_pending = false;
		return v->cmd_len;
	case DB_MARK: /* the slice so far counts for the phase it ran in */
		if (buf >= VIRT_PHASES)
			return DB_ERROR;
		v->phase_insns[v->phase] += cpu_steps(&v->cpu) - v->phase_from;
		v->phase_from = cpu_steps(&v->cpu);
		v->phase = (int)buf;
		return 0;
	default: return DB_ERROR;
	}
}
