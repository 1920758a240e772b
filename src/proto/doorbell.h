/* The doorbell: how the guest agent talks to the Themis host.
 *
 * Shared by the guest agent (riscv64, static libc) and the host (the
 * emulator's C code), so it holds only constants: no types, no libc.
 *
 * The call is the custom-0 instruction (major opcode 0x0b), R-type, with
 *   a0 = command, a1 = guest-virtual address of a buffer, a2 = its length,
 * and the host's result in a0. The agent emits it as
 *   .insn r 0x0b, 0, 0, a0, a0, a1        (funct3 = 0, funct7 = 0)
 * The host reads a0/a1/a2 whatever the rd/rs fields say and writes a0.
 *
 * The buffer lives in the calling process's address space (user mode,
 * translated through the current satp), is at most DB_MAX_LEN bytes and is
 * resident: the agent mlockall()s itself before the first call. Buffers
 * carry text, not NUL-terminated (the length says where it ends).
 *
 * With a doorbell, the agent's output lines go through DB_LOG only (not
 * the console); without one, to the console.
 *
 * Where there is no doorbell (QEMU) the instruction is illegal and the
 * kernel sends SIGILL: the agent probes with DB_PING under a SIGILL handler
 * and takes a fault, or an answer other than DB_MAGIC, to mean "no host".
 */
#ifndef THEMIS_GUEST_DOORBELL_H
#define THEMIS_GUEST_DOORBELL_H

#define DB_OPCODE  0x0b /* custom-0 */
#define DB_MAX_LEN 4096

/* Commands (a0). */
#define DB_PING	 0 /* no buffer; returns DB_MAGIC */
#define DB_READY 1 /* buffer: one-line report; returns a DB_NEXT_* */
#define DB_LOG	 2 /* buffer: one line, '\n'-ended, the host may print; returns 0 */
#define DB_WAIT                                                                                    \
	3 /* buffer: writable, a2 = its capacity; the host writes one                              \
	   * command line; returns its length (see below) */

#define DB_MARK                                                                                    \
	4 /* no buffer: a1 = the phase of the command the guest's work                             \
	   * from here on is for (DB_PHASE_*); returns 0. Costs the                                \
	   * host nothing but a count: where guest instructions go */

/* DB_MARK's phases, within an `op` command: the operation itself, then the
 * walk that fingerprints the tree after it (the host's phase list,
 * src/check/phase.h, holds them at these numbers). */
#define DB_PHASE_OP 1
#define DB_PHASE_FP 2

/* DB_PING's answer: "THMS". */
#define DB_MAGIC 0x54484d53u

/* DB_READY's answer: what the agent does next. */
#define DB_NEXT_POWEROFF 0 /* sync and power off */
#define DB_NEXT_SCRIPT	 1 /* run the fixed script on every disk, then power off */
#define DB_NEXT_LIST	 2 /* list t/ on every disk ("list<N> ..." lines), then power off */
#define DB_NEXT_WAIT	 3 /* print "next wait", then the command loop (below), for ever */

/* The command loop (after DB_NEXT_WAIT). The agent, for ever:
 *   1. memsets its command buffer (static, page-aligned, DB_MAX_LEN bytes,
 *      so it is one resident, present and dirty page: mlockall() plus the
 *      memset) and calls DB_WAIT with a1 = the buffer, a2 = DB_MAX_LEN;
 *   2. the host writes one command line into the buffer (at most a2 bytes,
 *      not NUL-terminated, a trailing '\n' allowed) and returns its length;
 *   3. the agent runs the command, prints its lines with DB_LOG, the last
 *      one being the result, and goes back to 1.
 * While the host has no command ready it stalls the call: it leaves the pc
 * on the instruction (no result, nothing retired) and executes it again
 * later. The guest never polls: DB_WAIT returns when there is a command.
 * The call to DB_WAIT is thus the step boundary: a command's lines are all
 * out when the next DB_WAIT arrives, and the guest is quiet at that point
 * (the host may snapshot, fork or restore the machine there).
 *
 * A DB_WAIT answer of DB_ERROR or above a2 is logged ("error DB_WAIT ...")
 * and the call repeated; the third such answer in a row powers off.
 *
 * Commands (words separated by spaces or tabs; leading and trailing blanks
 * ignored; the line ends at the first '\n', '\r' or NUL; other control
 * bytes become '?'). Every reply is deterministic (no times, inode numbers
 * or pointers) and at most DB_MAX_LEN bytes with its '\n':
 *   poweroff       unmount every disk ("umount ..." lines), "poweroff",
 *                  sync, power off (no DB_WAIT follows)
 *   script         the fixed script on every disk (as DB_NEXT_SCRIPT, same
 *                  lines) ending with "script done"; no power off
 *   list [DIR]     the sorted listing of DIR on every disk (default t;
 *                  "." or a relative path without "." or ".." parts, e.g.
 *                  w for the work's), its lines tagged "list<N>", ending
 *                  with "listing done"
 *   work SEED N    on every disk: N pseudo-random operations under w/,
 *                  chosen from SEED (decimal, 64 bits) and the disk's index
 *                  (writes at random offsets, truncate, unlink, mkdir,
 *                  rmdir, rename, link, symlink, chmod, fsync, fdatasync,
 *                  and a sync() after every 8th); one line per disk:
 *                  "work SEED N -> OK" with OK the operations that
 *                  succeeded, or "work SEED N -> skipped: vdX not mounted";
 *                  "work SEED N -> no disks" when there is none. N <= 1000000
 *   sync           sync(); "sync -> 0"
 *   echo TEXT      "echo TEXT": the command line, cleaned as above
 *   op NAME ARGS...  the model checker's: one filesystem operation on
 *                  every disk, "r I RET ERRNO" then "f I HEX32" per disk
 *                  (and, when fields are ignored, "m I H16..." after it: a
 *                  hash of what each field of src/proto/rule_fields.h held,
 *                  0 for one not ignored)
 *   fp [time]      the fingerprint of every disk's tree, "f I HEX32" (and
 *                  "m I H16..." as for op)
 *   dump [time]    every entry of every disk's tree, "e I PATH FIELDS..."
 *   reset          empty every disk's tree, "r I RET ERRNO" per disk
 *   ignore LIST    fields left out of records and fingerprints ("*"), LIST a
 *                  comma list of mode uid gid nlink xattrs roottime dirsize
 *                  (rule_fields.h), or - for none: what a filesystem under
 *                  test cannot represent (the host's ignore rules)
 *   umount, mount  unmount / mount every disk, "r I RET ERRNO" per disk (the
 *                  benchmark baseline: the host rewrites the images between;
 *                  mount drops the block device cache first)
 *                  (the last four: grammar and fingerprint in check.c;
 *                  times appear only with "time")
 * Errors (and the loop goes on): "error empty command",
 * "error unknown command: LINE", "error usage: USAGE". */

/* Any command's answer when the host does not know the command or cannot
 * read (DB_WAIT: write) the buffer (all ones in a0). */
#define DB_ERROR (~0ull)

#endif
