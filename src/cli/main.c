/* main.c - the `themis` command line: one verb per capability, each in its
 * own cmd_*.c (bare: a bare-metal program; boot: Linux to the agent). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The build's version: the Makefile passes `git describe --always --dirty`
 * when it compiles the command (src/cli), never the modules. */
#ifndef THEMIS_VERSION
#define THEMIS_VERSION "unknown"
#endif

static void print_commands(void)
{
	printf("usage: themis <command> [options]\n\n"
	       "commands:\n");
#define LIST(name, fn, summary) printf("  %-10s %s\n", #name, summary);
	THEMIS_VERBS(LIST)
#undef LIST
	printf("  %-10s %s\n", "help", "show this text");
	printf("  %-10s %s\n\n", "--version", "print the version this build is from");
	printf("themis help VERB (or themis VERB --help): that command's options.\n");
}

/* `themis help VERB` is `themis VERB --help`. */
static int help(const char *verb)
{
	char opt[] = "--help", *argv[] = {opt, NULL};
#define HELP(name, fn, summary)                                                                    \
	if (!strcmp(verb, #name))                                                                  \
		return fn(1, argv);
	THEMIS_VERBS(HELP)
#undef HELP
	return usage_error("unknown command '%s'", verb);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("%s", "missing command");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		if (argc > 2)
			return help(argv[2]);
		print_commands();
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("themis %s\n", THEMIS_VERSION);
		return 0;
	}
#define DISPATCH(name, fn, summary)                                                                \
	if (!strcmp(cmd, #name)) {                                                                 \
		cli_set_verb(cmd);                                                                 \
		return fn(argc - 2, argv + 2);                                                     \
	}
	THEMIS_VERBS(DISPATCH)
#undef DISPATCH
	return usage_error("unknown command '%s'", cmd);
}
