/* unit.h - what the unit tests share: CHECK, which counts a check and
 * names a failing one by file and line, and a runner over a table of named
 * tests (`build/asan/test_X [test-name]` runs one). Header-only: each test
 * is one program. */
#ifndef THEMIS_TESTS_UNIT_H
#define THEMIS_TESTS_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

#define CHECK(cond) unit_check((cond), #cond, __FILE__, __LINE__)

static inline bool unit_check(bool ok, const char *what, const char *file, int line)
{
	checks++;
	if (!ok) {
		failures++;
		printf("%s:%d: check failed: %s\n", file, line, what);
	}
	return ok;
}

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* Run every test of the table, or the one argv[1] names; print a line per
 * test and a summary. The exit status: 0 all passed, 1 a check failed, 2
 * no test of that name. */
static inline int unit_main(const char *prog, const struct unit_test *tests, size_t n, int argc,
			    char **argv)
{
	int run = 0;
	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], tests[i].name))
			continue;
		int before = failures;
		tests[i].fn();
		run++;
		printf("%-40s %s\n", tests[i].name, failures == before ? "ok" : "FAILED");
	}
	if (run == 0) {
		fprintf(stderr, "no test named %s\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	printf("%s: %d tests, %d checks, %d failed\n", prog, run, checks, failures);
	return failures ? 1 : 0;
}

#define UNIT_MAIN(prog, tests)                                                                     \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		return unit_main(prog, tests, sizeof(tests) / sizeof(tests[0]), argc, argv);       \
	}

#endif
