/* The check macro of the C API tests: counts failures in `failures` (a static int the test
 * defines) and reports each with its file and line. */
#ifndef DTB_TESTS_PROBE_C_CHECK_H
#define DTB_TESTS_PROBE_C_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                                \
        }                                                                              \
    } while (0)

#endif
