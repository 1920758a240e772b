/* Smallest useful test: arithmetic and a branch, then pass. */
#include "test.h"
RVTEST_BEGIN
	TEST_RR(1, add, 5, 2, 3)
	TEST_RI(2, addi, -1, 0, -1)
	PASS
RVTEST_END
