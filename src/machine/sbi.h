/* sbi.h - the machine's own Supervisor Binary Interface: there is no
 * firmware in M-mode, so an ecall from the S-mode kernel is served here
 * directly (SBI v0.3: base, TIME, IPI, RFENCE, HSM, SRST, and the legacy
 * console/timer calls), with the board's effects reached through sbi_board. */
#ifndef THEMIS_SBI_H
#define THEMIS_SBI_H

#include <stdbool.h>
#include <stdint.h>

#include "../cpu/cpu.h"

enum sbi_reset { SBI_RESET_SHUTDOWN = 0, SBI_RESET_COLD = 1, SBI_RESET_WARM = 2 };

struct sbi_board {
	void *opaque;
	void (*set_timer)(void *opaque, uint64_t deadline); /* raise STIP at time >= deadline */
	void (*putchar)(void *opaque, int ch);
	void (*reset)(void *opaque, enum sbi_reset type, uint32_t reason);
};

/* Serve the ecall the hart is executing (a7 = extension, a6 = function,
 * a0.. = arguments; a0/a1 = error/value on return). Always handled. */
bool sbi_call(const struct sbi_board *b, struct cpu *c);

#endif
