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

#define DB_OPCODE 0x0b /* custom-0 */
#define DB_MAX_LEN 4096

/* Commands (a0). */
#define DB_PING 0  /* no buffer; returns DB_MAGIC */
#define DB_READY 1 /* buffer: one-line report; returns a DB_NEXT_* */
#define DB_LOG 2   /* buffer: one line, '\n'-ended, the host may print; returns 0 */

/* DB_PING's answer: "THMS". */
#define DB_MAGIC 0x54484d53u

/* DB_READY's answer: what the agent does next. */
#define DB_NEXT_POWEROFF 0 /* sync and power off */
#define DB_NEXT_SCRIPT 1   /* run the fixed script on every disk, then power off */
#define DB_NEXT_LIST 2     /* list t/ on every disk ("list<N> ..." lines), then power off */

/* Any command's answer when the host does not know the command or cannot
 * read the buffer (all ones in a0). */
#define DB_ERROR (~0ull)

#endif
