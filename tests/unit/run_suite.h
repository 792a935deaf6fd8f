/* The main of every Check unit test: run one suite, fail if a test did. */
#ifndef HUTCH_RUN_SUITE_H
#define HUTCH_RUN_SUITE_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
