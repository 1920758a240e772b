/* virt.h - the Linux board: one RV64GC hart in S-mode over the machine's own
 * SBI, RAM at 0x80000000, a PLIC, a 16550 UART, a goldfish RTC, the syscon
 * power device and one virtio-blk per disk, laid out as QEMU's `virt`
 * (virt_map.h). The kernel is entered directly; there is no firmware.
 *
 * Time is virtual: `time` advances one tick (100 ns at the 10 MHz timebase)
 * per instruction, and WFI skips to the next deadline; the RTC reads a
 * chosen wall-clock base plus that virtual time. Nothing reads the host clock
 * unless the configuration asks for it (clock_host).
 *
 * The guest agent reports at the doorbell; virt_run() returns when it does
 * (or when the guest powers off, panics, hangs, or runs out of budget). */
#ifndef THEMIS_VIRT_H
#define THEMIS_VIRT_H

#include <stdio.h>

#include "../cpu/cpu.h"
#include "../dev/goldfish_rtc.h"
#include "../dev/plic.h"
#include "../dev/sifive_test.h"
#include "../dev/uart16550.h"
#include "../dev/virtio_blk.h"
#include "../disk/disk.h"
#include "../mem/ram.h"
#include "splat.h"
#include "virt_hostfn.h"
#include "virt_map.h"

#define VIRT_MAX_DISKS VIRT_VIRTIO_SLOTS
/* Console lines kept for error reports: enough to reach back from a panic
 * to its cause (Linux 6.12 prints 53 lines between a failed initramfs
 * unpack and the panic it ends in). */
#define VIRT_PHASES 8 /* phases guest instructions are counted by (virt_phase) */
struct virt_sampler;
#define VIRT_CONSOLE_KEEP 64
#define VIRT_LINE_MAX	  256

/* RAM the board accepts: whole MiB, from what Linux boots in to what the
 * board's memory map holds (virt_init refuses the rest, whoever asks: a
 * --mem, a trace, a saved machine). */
#define VIRT_MEM_MIN (16ULL << 20)
#define VIRT_MEM_MAX (16ULL << 30)

struct virt_disk_config {
	const char *path;
	bool read_only;
};

struct virt_config {
	const char *kernel, *initrd; /* initrd may be NULL */
	const char *append;	     /* kernel command line */
	uint64_t mem;
	struct virt_disk_config disks[VIRT_MAX_DISKS];
	int ndisks;
	uint64_t clock_ns; /* wall-clock time at power-on, ns since the epoch */
	bool clock_host;   /* ...or the host's clock, read once at power-on */
	uint64_t seed;	   /* /chosen/rng-seed is derived from it */
	int next;	   /* at READY: 0 stop there, else the DB_NEXT_* to send */
	bool wait;	   /* at READY: enter the command loop (DB_NEXT_WAIT) */
	bool no_boot;	   /* build the board only (a snapshot will be loaded) */
	FILE *console;	   /* where the UART writes */
};

/* Why virt_run returned, written once: X(NAME, what it means, as messages
 * say it) gives VIRT_NAME and virt_stop_name(VIRT_NAME). */
#define VIRT_STOPS(X)                                                                              \
	X(RUNNING, "still running")                                                                \
	X(READY, "agent ready") /* and the host stopped there */                                   \
	X(POWEROFF, "the guest powered off")                                                       \
	X(REBOOT, "the guest asked for a reboot")                                                  \
	X(PANIC, "kernel panic")                                                                   \
	X(BUDGET, "instruction budget exhausted: the guest hangs or is slow")                      \
	X(HUNG, "the guest hangs asleep")	 /* with nothing that could wake it */             \
	X(MTRAP, "a trap reached M-mode")	 /* where there is no software */                  \
	X(WAITING, "agent waiting for commands") /* at the doorbell */

enum virt_stop {
#define VIRT_STOP_ENUM(name, text) VIRT_##name,
	VIRT_STOPS(VIRT_STOP_ENUM)
#undef VIRT_STOP_ENUM
};

/* The stop's text from VIRT_STOPS ("kernel panic"), or "?" if out of range. */
const char *virt_stop_name(enum virt_stop stop);

/* The board's devices, one line each: X(field, device type, dims), dims
 * empty for one instance or [N] for N (one per disk).
 * struct virt_devs holds each one's state (struct TYPE_state) and struct
 * virt_wires its wiring (struct TYPE), both generated from this list, in
 * this order; virt.c's virt_devices[] says where each sits on the bus, one
 * entry per line here in the same order (the parts hashes and snapshots
 * take follow it): a _Static_assert in virt.c counts them, and
 * tests/unit/test_devices.c (board_parts) checks order and cover. */
#define VIRT_DEVICES(X)                                                                            \
	X(test, sifive_test, )                                                                     \
	X(rtc, goldfish_rtc, )                                                                     \
	X(uart, uart16550, )                                                                       \
	X(blk, virtio_blk, [VIRT_MAX_DISKS])                                                       \
	X(plic, plic, )

/* The board's forkable state: every device's state struct (plain data, see
 * dev.h) and the board's own, with no pointer anywhere, so the fork copies
 * it whole, and hashes and snapshots take its bytes part by part
 * (virt_parts). A device's state is reached through its wiring in struct
 * virt_wires, which virt_init sets once and nothing forks. */
struct virt_devs {
#define VIRT_DEV_STATE(field, type, dims) struct type##_state field dims;
	VIRT_DEVICES(VIRT_DEV_STATE)
#undef VIRT_DEV_STATE
	/* The board's own, last (virt_parts takes it from timer_deadline on): */
	uint64_t timer_deadline; /* SBI timer: STIP when time >= this */
	uint64_t panic_at;	 /* instruction count when a panic was seen, or 0 */
};

/* The devices' wiring (state, hart, lines, DMA, disk, callbacks). */
struct virt_wires {
#define VIRT_DEV_WIRE(field, type, dims) struct type field dims;
	VIRT_DEVICES(VIRT_DEV_WIRE)
#undef VIRT_DEV_WIRE
};

/* One named, versioned run of bytes of struct virt_devs: a device instance
 * or the board's own state. Hashes and snapshots walk these. */
struct virt_part {
	const char *name;
	uint32_t version;
	size_t offset, size; /* within struct virt_devs */
};

#define VIRT_MAX_PARTS 16

/* One fork level: the hart and the devices as they were at the fork. */
struct virt_level {
	uint8_t cpu[CPU_STATE_SIZE];
	struct cpu_tlb_saved tlb; /* a cache, kept so a restore starts warm */
	struct virt_devs dev;
	int stop; /* enum virt_stop */
};

#define VIRT_MAX_LEVELS 64
#define VIRT_CMD_MAX	4096

struct virt {
	struct cpu cpu;
	struct ram ram;
	struct virt_devs dev;
	struct virt_wires wire;
	struct disk disks[VIRT_MAX_DISKS];
	char *disk_path[VIRT_MAX_DISKS]; /* owned copies of the base images' paths */
	char *kernel_path;		 /* an owned copy of the kernel's (NULL: none) */
	int ndisks;
	struct mmio_bus bus;
	struct virt_level *levels; /* VIRT_MAX_LEVELS of them */
	unsigned depth;

	uint64_t clock_base_ns;
	int next;  /* see virt_config */
	bool wait; /* see virt_config */
	enum virt_stop stop;
	char stop_detail[VIRT_LINE_MAX];
	char ready_report[VIRT_LINE_MAX];
	char cmd[VIRT_CMD_MAX]; /* the command for the agent's next DB_WAIT */
	size_t cmd_len;
	bool cmd_pending;
	char *log;	    /* the agent's DB_LOG lines since virt_clear_log */
	uint64_t op_budget; /* the checker's per-command instruction budget */
	size_t log_len, log_cap;
	/* Run boundaries that found the timer due and not yet raised: a slice
	 * that outran its deadline. Always 0 on a correct board (the tests
	 * check); not machine state. */
	uint64_t timer_late;
	/* Holds of time (virt_hold_time) that ran out (VIRT_HOLD_MAX) before
	 * their release: not machine state. */
	uint64_t holds_expired;

	/* Where guest instructions go, for the checker's account (not
	 * machine state: a restore does not take them back). virt_run adds
	 * what each slice stepped to phase_insns[phase]; the caller names
	 * the phase (virt_phase), and the agent may switch it within a
	 * command (DB_MARK). tag: the caller's label for samples (the
	 * operation kind). */
	uint64_t phase_insns[VIRT_PHASES];
	uint64_t phase_from; /* cpu_steps when the running slice's count began */
	int phase, tag;
	struct virt_sampler *sampler;		 /* NULL: no sampling (virt_sample.c) */
	struct virt_crc_table crc[VIRT_HOSTFNS]; /* the host functions' (virt_hostfn.h) */
	/* The calls of them served, and the bytes they read or wrote, by
	 * kind, for the checker's account (not machine state:
	 * virt_hostfn_take). */
	uint64_t hostfn_calls[VIRT_HOST_NKINDS], hostfn_bytes[VIRT_HOST_NKINDS];

	/* A second machine stepped beside this one (explore with two
	 * kernels): virt_fork, virt_restore and virt_release act on both,
	 * virt_free frees it (it is malloc'd). Running and commands are each
	 * machine's own. NULL: none. */
	struct virt *peer;

	FILE *console_out; /* not owned */
	FILE *console;	   /* the UART's stream: tees into console_out and the lines */
	char line[VIRT_LINE_MAX];
	size_t line_len;
	char lines[VIRT_CONSOLE_KEEP][VIRT_LINE_MAX];
	unsigned nlines; /* lines seen; the last VIRT_CONSOLE_KEEP are kept */
	/* The kernel's reports on the console since the checker's mark
	 * (splat.h): bookkeeping beside the machine, not forked with it. */
	struct splat_log splat;
};

/* Name the phase (below VIRT_PHASES) and tag the guest's work from here
 * on counts for, on v and its peer. */
void virt_phase(struct virt *v, int phase, int tag);
/* The instructions counted per phase since the last take, on v and its
 * peer, added into out; the counts start again from 0. */
void virt_phase_take(struct virt *v, uint64_t out[VIRT_PHASES]);

/* The machine's events beside the guest's instructions: the hart's
 * (CPU_EVENTS, numbered as there) and, after them, RAM's pages copied on
 * a write; X(NAME, report.json key, what the summary calls it). */
#define VIRT_EVENTS(X)                                                                             \
	CPU_EVENTS(X)                                                                              \
	X(COPY, "pages_copied", "pages copied on a write")

enum { VIRT_EV_COPY = CPU_NEVENTS, VIRT_NEVENTS };

/* The events counted since the last take, on v and its peer, added into
 * out; the counts start again from 0. */
void virt_events_take(struct virt *v, uint64_t out[VIRT_NEVENTS]);

/* Move from's counts (instructions by phase, events, host functions) into
 * to's, as if to had done from's work: a machine run aside for another's
 * account (the crash lens recovers in a machine of its own). */
void virt_counts_move(struct virt *to, struct virt *from);
/* Drop v's counts (and its peer's): work that is no state's, as a boot's. */
void virt_counts_clear(struct virt *v);

/* Build the board and load kernel, initrd and disks. 0, or -1 with a
 * one-line reason in err (which names the file at fault). */
int virt_init(struct virt *v, const struct virt_config *cfg, char *err, size_t errlen);
void virt_free(struct virt *v);

/* Run until the machine stops, or max_insns (0: no limit). */
enum virt_stop virt_run(struct virt *v, uint64_t max_insns);

/* XXH3-128 of all guest RAM, as 32 hex digits. 0, or -ENOMEM (out is
 * then "out of memory"). */
int virt_ram_hash(const struct virt *v, char out[33]);

/* A hash of the whole machine: RAM, the hart, the devices, every disk.
 * Always 0 (its hash state lives on the stack); int for the callers that
 * treat every hash alike. */
int virt_state_hash(const struct virt *v, uint8_t out[16]);

/* Hold the guest's time still while it runs (hold true), or let it run
 * on (false): instructions then take no time, and time moves only when
 * the hart sleeps, as far as its next deadline. The checker holds time
 * for the length of each operation, so no timer tick falls inside one
 * filesystem's turn and not another's. A hold the guest does not sleep
 * out of within VIRT_HOLD_MAX instructions (a spin on the clock) is let
 * go, and counted in holds_expired. Deterministic: it changes nothing
 * but what time reads. */
#define VIRT_HOLD_MAX 200000000ULL
void virt_hold_time(struct virt *v, bool hold);

/* Give the waiting agent its next command (one line) and let it run. */
int virt_command(struct virt *v, const char *cmd);
void virt_clear_log(struct virt *v);

/* The epsilon-copy fork of the whole machine, in lockstep: RAM, hart,
 * devices and disks. Only between runs (no request is ever in flight: the
 * devices finish every request within the instruction that started it).
 * virt_fork opens a level; virt_restore puts the machine back to it and
 * keeps it open; virt_release does that and closes it; each acts on
 * v->peer too. 0 or -errno
 * (-EINVAL: no level open; nothing changed). */
int virt_fork(struct virt *v);
int virt_restore(struct virt *v);
int virt_release(struct virt *v);

/* The parts of v->dev in the board's order: each device instance of the
 * board's device list (virt.c), then the board's own state. Returns how
 * many (at most VIRT_MAX_PARTS). */
int virt_parts(const struct virt *v, struct virt_part parts[VIRT_MAX_PARTS]);

/* The last console lines, oldest first, for error reports. */
void virt_print_last_lines(const struct virt *v, FILE *out, unsigned n);
/* Whether one of the last console lines (VIRT_CONSOLE_KEEP) holds needle. */
bool virt_console_has(const struct virt *v, const char *needle);

#endif
