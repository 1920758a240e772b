/* embed.h - a file of the tree carried inside themis as bytes
 * [sym_start, sym_end) (.incbin), so what uses it needs no file at run
 * time and cannot drift from the tree: the reproducers' fixed parts
 * (check/repro.c) and the checkers' preloaded library (lens/corrupt_fsck.c).
 * The path is the compiler's, from the repository's top; the Makefile
 * makes the object depend on the file. */
#ifndef THEMIS_UTIL_EMBED_H
#define THEMIS_UTIL_EMBED_H

#define EMBED_FILE(sym, file)                                                                      \
	__asm__(".pushsection .rodata\n.globl " #sym "_start\n.globl " #sym "_end\n" #sym          \
		"_start:\n.incbin \"" file "\"\n" #sym "_end:\n.popsection\n");                    \
	extern const char sym##_start[] __attribute__((visibility("hidden")));                     \
	extern const char sym##_end[] __attribute__((visibility("hidden")))

#endif
