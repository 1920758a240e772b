/* bare.h - the bare-metal board behind `themis bare`: one hart, RAM, a
 * 16550 UART, a CLINT and QEMU virt's test finisher, plus the HTIF `tohost`
 * word of the RISC-V ISA tests. See docs/bare-machine.md for the map. */
#ifndef THEMIS_BARE_H
#define THEMIS_BARE_H

#include <stdio.h>

#include "../cpu/cpu.h"
#include "../dev/clint.h"
#include "../dev/sifive_test.h"
#include "../dev/uart16550.h"
#include "../mem/ram.h"

#define BARE_RAM_BASE	 0x80000000ULL
#define BARE_RAM_DEFAULT (128ULL << 20)

enum bare_stop {
	BARE_PASS,     /* tohost = 1 or finisher pass */
	BARE_FAIL,     /* tohost odd > 1 or finisher fail: see code */
	BARE_BUDGET,   /* the instruction budget ran out */
	BARE_DEADLOCK, /* WFI with no interrupt that could ever wake the hart */
};

struct bare {
	struct cpu cpu;
	struct ram ram;
	struct uart16550 uart; /* the devices' wiring... */
	struct clint clint;
	struct sifive_test finisher;
	struct { /* ...and their state (this board is never forked) */
		struct uart16550_state uart;
		struct clint_state clint;
		struct sifive_test_state finisher;
	} dev;
	struct mmio_bus bus;
	bool has_tohost;
	uint64_t tohost;
	bool stopped;
	enum bare_stop stop;
	int code; /* failing test number (tohost >> 1) or finisher code */
};

/* Build the board with `mem` bytes of RAM and load `elf`. 0, or -1 with a
 * one-line reason in err. The console goes to `console`. */
int bare_init(struct bare *m, uint64_t mem, const char *elf, FILE *console, char *err,
	      size_t errlen);
/* The same board with empty RAM and the hart at the start of RAM. */
int bare_init_blank(struct bare *m, uint64_t mem, FILE *console, char *err, size_t errlen);
void bare_free(struct bare *m);

/* Run until the program reports, or `max_insns` instructions (0 = no limit). */
enum bare_stop bare_run(struct bare *m, uint64_t max_insns);

#endif
