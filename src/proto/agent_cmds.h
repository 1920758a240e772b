/* agent_cmds.h - the guest agent's checker commands, the one list: the
 * agent dispatches from it (guest/agent/check.c, check_command) and the
 * host reads from it what each command answers and whether it applies an
 * operation to every disk (src/check/step.c). Each command's grammar and
 * reply lines are described where the agent implements it (check.c's
 * opening comment). Plain macros only: the agent includes this file.
 *
 * AGENT_COMMANDS(X) calls X(word, reply, flags, usage) per command:
 *   word   the command's first word;
 *   reply  what it answers per disk that the host parses (AGENT_REPLY_R:
 *          "r I RET ERRNO", AGENT_REPLY_F: "f I HEX32"; 0: nothing
 *          per-disk to parse, or lines its caller reads itself);
 *   flags  AGENT_APPLIES: it applies an operation to every disk in turn
 *          (the host holds the clock still through it, so each disk's
 *          turn starts at one instant); AGENT_DUMP_NO_F: with a "dump"
 *          word it answers records, not fingerprints (durable);
 *   usage  its arguments, for the agent's usage line. */
#ifndef THEMIS_PROTO_AGENT_CMDS_H
#define THEMIS_PROTO_AGENT_CMDS_H

#define AGENT_REPLY_R 1u
#define AGENT_REPLY_F 2u

#define AGENT_APPLIES	1u
#define AGENT_DUMP_NO_F 2u

#define AGENT_COMMANDS(X)                                                                          \
	X(op, AGENT_REPLY_R | AGENT_REPLY_F, AGENT_APPLIES, "NAME ARGS...")                        \
	X(run, 0, AGENT_APPLIES, "NAME ARGS...")                                                   \
	X(reset, 0, AGENT_APPLIES, "")                                                             \
	X(fp, AGENT_REPLY_F, 0, "[time]")                                                          \
	X(dump, 0, 0, "[time]")                                                                    \
	X(durable, AGENT_REPLY_F, AGENT_DUMP_NO_F, "drop-caches|remount [dump]")                   \
	X(umount, AGENT_REPLY_R, 0, "[I...]")                                                      \
	X(mount, AGENT_REPLY_R, 0, "[I...]")                                                       \
	X(readonly, AGENT_REPLY_R, 0, "[I...]")                                                    \
	X(ignore, 0, 0, "FIELD...")                                                                \
	X(timegran, 0, 0, "NS ATIME_NS")                                                           \
	X(times, 0, 0, "PATH...")                                                                  \
	X(mountopt, 0, 0, "strictatime|relatime|noatime")                                          \
	X(diff, 0, 0, "PATH")                                                                      \
	X(range, 0, 0, "PATH OFF LEN...")                                                          \
	X(sleep, 0, 0, "SECONDS[.FRACTION]")                                                       \
	X(rtc, 0, 0, "")

/* Each command's number, so that the host names a command as
 * AGENT_WORD(word) or AGENT_WORD(word, " ARGS"): the command's text, a
 * string literal a format may be (the compiler still checks it), and a
 * compile error for a word AGENT_COMMANDS does not have. */
enum {
#define AGENT_CMD_ENUM(word, reply, flags, usage) AGENT_CMD_##word,
	AGENT_COMMANDS(AGENT_CMD_ENUM)
#undef AGENT_CMD_ENUM
};
#define AGENT_WORD(word, ...) (&(#word __VA_ARGS__)[0 * AGENT_CMD_##word])

#endif
