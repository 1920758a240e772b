/* Reports that sub-test 7 failed through tohost. */
#include "test.h"
RVTEST_BEGIN
	li TESTNUM, 7
	FAIL
RVTEST_END
