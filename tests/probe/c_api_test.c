/* The C API, compiled as C99: opens the 2-4 piece databases given as argv[1] and probes positions
 * whose values are known. Exit status 0 when every check passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dtb.h"

static int failures = 0;

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                  \
        }                                                                \
    } while (0)

/* Bit s-1 stands for square s. */
static uint64_t sq(int s) { return (uint64_t)1 << (s - 1); }

static int log_calls = 0;
static void count_log(const char* message, void* user) {
    (void)message;
    ++*(int*)user;
}

int main(int argc, char** argv) {
    dtb_options options;
    dtb_handle* tb;
    char* error = NULL;
    const char* reason = NULL;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DATABASE_FOLDER\n", argv[0]);
        return 2;
    }

    /* A folder that does not exist: NULL and a message. */
    tb = dtb_open("/nonexistent/dtb/folder", NULL, &error);
    CHECK(tb == NULL);
    CHECK(error != NULL && strlen(error) > 0);
    dtb_free_error(error);
    CHECK(dtb_open("/nonexistent/dtb/folder", NULL, NULL) == NULL); /* error may be NULL */

    dtb_default_options(&options);
    CHECK(options.cache_mb > 0);
    options.cache_mb = 16;
    options.log = count_log;
    options.log_user = &log_calls;
    error = NULL;
    tb = dtb_open(argv[1], &options, &error);
    if (!tb) {
        fprintf(stderr, "dtb_open(%s): %s\n", argv[1], error ? error : "?");
        free(error);
        return 1;
    }
    CHECK(error == NULL);
    CHECK(dtb_max_pieces(tb) == 4);

    /* Nothing is cached yet: the soft probe may not read the file. */
    CHECK(dtb_probe_wdl_soft(tb, sq(1), sq(50), sq(1) | sq(50), DTB_WHITE_TO_MOVE) == DTB_UNKNOWN);

    /* King against king: a draw, either side to move. */
    CHECK(dtb_probe_wdl(tb, sq(1), sq(50), sq(1) | sq(50), DTB_WHITE_TO_MOVE) == DTB_DRAW);
    CHECK(dtb_probe_wdl(tb, sq(1), sq(50), sq(1) | sq(50), DTB_BLACK_TO_MOVE) == DTB_DRAW);
    /* Now cached. */
    CHECK(dtb_probe_wdl_soft(tb, sq(1), sq(50), sq(1) | sq(50), DTB_WHITE_TO_MOVE) == DTB_DRAW);
    /* Kings on the long diagonal: the king on 46 can only move along it, into the flying king on 5. */
    CHECK(dtb_probe_wdl(tb, sq(46), sq(5), sq(46) | sq(5), DTB_WHITE_TO_MOVE) == DTB_LOSS);
    CHECK(dtb_probe_wdl(tb, sq(46), sq(5), sq(46) | sq(5), DTB_BLACK_TO_MOVE) == DTB_LOSS);

    /* The side to move takes the last piece (a capture position, resolved by search). */
    CHECK(dtb_probe_wdl(tb, sq(28), sq(23), 0, DTB_WHITE_TO_MOVE) == DTB_WIN);
    CHECK(dtb_probe_wdl(tb, sq(28), sq(23), 0, DTB_BLACK_TO_MOVE) == DTB_WIN);
    /* White's man on 6 is stuck behind the black man on 1: no move, lost. */
    CHECK(dtb_probe_wdl(tb, sq(6), sq(1), 0, DTB_WHITE_TO_MOVE) == DTB_LOSS);

    /* Illegal positions. */
    CHECK(dtb_probe_wdl(tb, sq(28), sq(28), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID);    /* overlap */
    CHECK(dtb_probe_wdl(tb, sq(3), sq(20), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID);     /* man on 1-5 */
    CHECK(dtb_probe_wdl(tb, sq(30), sq(47), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID);    /* man on 46-50 */
    CHECK(dtb_probe_wdl(tb, sq(30), sq(20), sq(25), DTB_WHITE_TO_MOVE) == DTB_INVALID); /* king alone */
    CHECK(dtb_probe_wdl(tb, sq(30) | ((uint64_t)1 << 55), sq(20), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID);
    CHECK(dtb_probe_wdl(tb, sq(30), sq(20), 0, 2) == DTB_INVALID);
    CHECK(dtb_probe_wdl(NULL, sq(30), sq(20), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID);
    CHECK(dtb_probe_wdl_reason(tb, sq(28), sq(28), 0, DTB_WHITE_TO_MOVE, &reason) == DTB_INVALID);
    CHECK(reason != NULL && strlen(reason) > 0);

    /* Six pieces and no capture: beyond the databases. */
    CHECK(dtb_probe_wdl_reason(tb, sq(46) | sq(47) | sq(48), sq(1) | sq(2) | sq(3), sq(46) | sq(47) | sq(48) |
                                   sq(1) | sq(2) | sq(3), DTB_WHITE_TO_MOVE, &reason) == DTB_UNKNOWN);
    CHECK(reason != NULL && strlen(reason) > 0);
    /* A known value comes with an empty reason. */
    CHECK(dtb_probe_wdl_reason(tb, sq(1), sq(50), sq(1) | sq(50), DTB_WHITE_TO_MOVE, &reason) == DTB_DRAW);
    CHECK(reason != NULL && reason[0] == '\0');

    CHECK(log_calls == 0); /* nothing went wrong with the files */
    dtb_close(tb);

    /* The capture search's bound: white's man takes 28x19, then black's king on 5 must take it back
       (five ways); two positions are not enough to see the lines through, the default is. */
    dtb_default_options(&options);
    CHECK(options.capture_search_nodes > 2);
    tb = dtb_open(argv[1], &options, NULL);
    CHECK(tb != NULL);
    if (tb) {
        CHECK(dtb_probe_wdl(tb, sq(28) | sq(46), sq(23) | sq(1) | sq(5), sq(46) | sq(1) | sq(5), DTB_WHITE_TO_MOVE) <= DTB_WIN);
        dtb_close(tb);
    }
    options.capture_search_nodes = 2;
    tb = dtb_open(argv[1], &options, NULL);
    CHECK(tb != NULL);
    if (tb) {
        CHECK(dtb_probe_wdl_reason(tb, sq(28) | sq(46), sq(23) | sq(1) | sq(5), sq(46) | sq(1) | sq(5),
                                   DTB_WHITE_TO_MOVE, &reason) == DTB_UNKNOWN);
        CHECK(reason != NULL && strcmp(reason, "capture search exceeded 2 positions") == 0);
        dtb_close(tb);
    }
    dtb_close(NULL);
    CHECK(dtb_max_pieces(NULL) == 0);

    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("c_api_test: all checks passed\n");
    return failures ? 1 : 0;
}
