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

static const char usage_text[] =
    "bare options:\n"
    "  --max-insns N   stop after N instructions (exit status 124)\n"
    "  --mem SIZE      RAM size, e.g. 128M or 1G (default 128M)\n"
    "  --stats         print instructions, wall time and MIPS to stderr\n"
    "\n"
    "boot options:\n"
    "  --kernel IMAGE      a RISC-V Linux Image (default: build/guest/Image)\n"
    "  --initrd FILE       initramfs (default: build/guest/initramfs.cpio.gz)\n"
    "  --disk IMG[,ro]     a virtio-blk disk (repeatable, up to 8); the base image\n"
    "                      is never written: the guest writes to a private copy\n"
    "  --append ARGS       more kernel command line (themis.fs= is added from the\n"
    "                      filesystems found on the disks)\n"
    "  --mem SIZE          RAM (default 256M)\n"
    "  --clock T           wall clock at power-on: 2026-01-01T00:00:00Z (default),\n"
    "                      @SECONDS, or 'host' (nondeterministic)\n"
    "  --seed N            seed of the guest's random numbers (default 0)\n"
    "  --max-insns N       give up after N instructions (default 40e9)\n"
    "  --script            let the agent run its filesystem script, then power off\n"
    "  --list              let the agent list t/ on every disk, then power off\n"
    "  --save-disks DIR    write each disk's final content to DIR/diskN.img\n"
    "  --save FILE         boot to the agent's command loop and save the machine\n"
    "  --load FILE         start from a saved machine instead of booting (the\n"
    "                      disks must be the same base images; --disk may name\n"
    "                      them, else the paths saved in FILE are used)\n"
    "  --stats             print instructions, time, MIPS and a hash of RAM\n"
    "\n"
    "bare exit status: 0 pass; n when test n failed (tohost = n << 1 | 1);\n"
    "2 bad usage or input; 124 instruction budget exhausted; 125 hart asleep\n"
    "with no interrupt that could wake it.\n"
    "boot exit status: 0 agent reached; 1 the guest panicked, hung or stopped\n"
    "early; 2 bad usage or input.\n";

static void print_commands(void)
{
	printf("usage: themis <command> [options]   (themis <command> --help: its options)\n\n"
	       "commands:\n");
#define LIST(name, fn, summary) printf("  %-10s %s\n", #name, summary);
	THEMIS_VERBS(LIST)
#undef LIST
	printf("  %-10s %s\n", "help", "show this text");
	printf("  %-10s %s\n\n", "--version", "print the version this build is from");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("%s", "missing command");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		print_commands();
		fputs(usage_text, stdout);
		fputs("\n", stdout);
		fputs(explore_help, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("themis %s\n", THEMIS_VERSION);
		return 0;
	}
#define DISPATCH(name, fn, summary)                                                                \
	if (!strcmp(cmd, #name))                                                                   \
		return fn(argc - 2, argv + 2);
	THEMIS_VERBS(DISPATCH)
#undef DISPATCH
	return usage_error("unknown command '%s'", cmd);
}
