/* The C API, compiled as C99: opens the 2-4 piece databases given as argv[1] and probes positions
 * whose values are known. Exit status 0 when every check passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dtb.h"
#include "tests/probe/c_check.h"

static int failures = 0;


/* Bit s-1 stands for square s. */
static uint64_t sq(int s) { return (uint64_t)1 << (s - 1); }

/* The ghost layout: square s at bit (s-1) + (s-1)/10. */
static uint64_t gsq(int s) { return (uint64_t)1 << ((s - 1) + (s - 1) / 10); }

/* Every board of two or three pieces (any colours and kinds, men on crowning rows and one-sided
   boards included), either side to move, through both layouts: the same answers from every probe;
   and a quiet probe gives DTB_CAPTURE or the full probe's value. Returns the number of boards
   that disagree. */
static long compare_layouts_and_quiet(dtb_handle* tb, long* captures, long* quiet) {
    long bad = 0;
    int sq3[3], a, b, c, kinds, i, side;
    for (a = 1; a <= 50; ++a)
        for (b = a + 1; b <= 50; ++b)
            for (c = b; c <= 50; ++c) { /* c == b: two pieces only */
                const int n = c == b ? 2 : 3;
                sq3[0] = a, sq3[1] = b, sq3[2] = c;
                for (kinds = 0; kinds < (1 << (2 * n)); ++kinds) {
                    uint64_t w = 0, bl = 0, k = 0, gw = 0, gb = 0, gk = 0;
                    for (i = 0; i < n; ++i) {
                        const int kind = kinds >> (2 * i) & 3; /* bit 0: black, bit 1: king */
                        if (kind & 1) bl |= sq(sq3[i]), gb |= gsq(sq3[i]);
                        else w |= sq(sq3[i]), gw |= gsq(sq3[i]);
                        if (kind & 2) k |= sq(sq3[i]), gk |= gsq(sq3[i]);
                    }
                    for (side = DTB_WHITE_TO_MOVE; side <= DTB_BLACK_TO_MOVE; ++side) {
                        const int v = dtb_probe_wdl(tb, w, bl, k, side);
                        const int q = dtb_probe_wdl_quiet(tb, w, bl, k, side);
                        int ok = dtb_probe_wdl_ghost(tb, gw, gb, gk, side) == v &&
                                 dtb_probe_wdl_soft_ghost(tb, gw, gb, gk, side) == dtb_probe_wdl_soft(tb, w, bl, k, side) &&
                                 dtb_probe_wdl_quiet_ghost(tb, gw, gb, gk, side) == q;
                        if (q == DTB_CAPTURE) ++*captures;
                        else if (q != v) ok = 0;
                        else if (v <= DTB_WIN) ++*quiet;
                        if (!ok && bad++ < 5)
                            fprintf(stderr, "disagreement on squares %d %d %d, kinds %d, side %d\n", a, b, c, kinds, side);
                    }
                }
            }
    return bad;
}

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

    /* Quiet probes: a capture is reported, a quiet position answered from the file. */
    CHECK(dtb_probe_wdl_quiet(tb, sq(28), sq(23), 0, DTB_WHITE_TO_MOVE) == DTB_CAPTURE);
    CHECK(dtb_probe_wdl_quiet(tb, sq(28), sq(23), 0, DTB_BLACK_TO_MOVE) == DTB_CAPTURE);
    CHECK(dtb_probe_wdl_quiet(tb, sq(1), sq(50), sq(1) | sq(50), DTB_WHITE_TO_MOVE) == DTB_DRAW);
    CHECK(dtb_probe_wdl_quiet(tb, sq(46), sq(5), sq(46) | sq(5), DTB_BLACK_TO_MOVE) == DTB_LOSS);
    CHECK(dtb_probe_wdl_quiet(tb, sq(28), sq(28), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID);
    CHECK(dtb_probe_wdl_quiet(tb, sq(46) | sq(47) | sq(48), sq(1) | sq(2) | sq(3), sq(46) | sq(47) | sq(48) |
                              sq(1) | sq(2) | sq(3), DTB_WHITE_TO_MOVE) == DTB_UNKNOWN);
    /* Six pieces, white must capture: reported, not searched. */
    CHECK(dtb_probe_wdl_quiet(tb, sq(28) | sq(46) | sq(47), sq(23) | sq(1) | sq(2), sq(46) | sq(47) | sq(1) | sq(2),
                              DTB_WHITE_TO_MOVE) == DTB_CAPTURE);

    /* The ghost layout: the same positions as above. */
    CHECK(dtb_probe_wdl_ghost(tb, gsq(46), gsq(5), gsq(46) | gsq(5), DTB_WHITE_TO_MOVE) == DTB_LOSS);
    CHECK(dtb_probe_wdl_ghost(tb, gsq(28), gsq(23), 0, DTB_BLACK_TO_MOVE) == DTB_WIN);
    CHECK(dtb_probe_wdl_quiet_ghost(tb, gsq(28), gsq(23), 0, DTB_WHITE_TO_MOVE) == DTB_CAPTURE);
    CHECK(dtb_probe_wdl_ghost(tb, gsq(30), gsq(48), 0, DTB_WHITE_TO_MOVE) == DTB_INVALID); /* black man on 46-50 */
    {
        /* Bits that are no square of the ghost layout are refused, in any mask, by every function. */
        const int not_squares[] = {10, 21, 32, 43, 54, 55, 60, 63};
        int dtw = 0;
        size_t j;
        for (j = 0; j < sizeof not_squares / sizeof not_squares[0]; ++j) {
            const uint64_t bit = (uint64_t)1 << not_squares[j];
            CHECK(dtb_probe_wdl_ghost(tb, gsq(1) | bit, gsq(50), gsq(1) | gsq(50), DTB_WHITE_TO_MOVE) == DTB_INVALID);
            CHECK(dtb_probe_wdl_ghost(tb, gsq(1), gsq(50) | bit, gsq(1) | gsq(50), DTB_WHITE_TO_MOVE) == DTB_INVALID);
            CHECK(dtb_probe_wdl_ghost(tb, gsq(1) | bit, gsq(50), gsq(1) | gsq(50) | bit, DTB_WHITE_TO_MOVE) == DTB_INVALID);
            CHECK(dtb_probe_wdl_soft_ghost(tb, gsq(1) | bit, gsq(50), gsq(1) | gsq(50), DTB_WHITE_TO_MOVE) == DTB_INVALID);
            CHECK(dtb_probe_wdl_quiet_ghost(tb, gsq(1), gsq(50) | bit, gsq(1) | gsq(50), DTB_BLACK_TO_MOVE) == DTB_INVALID);
            CHECK(dtb_probe_dtw_ghost(tb, gsq(1), gsq(50) | bit, gsq(1) | gsq(50), DTB_WHITE_TO_MOVE, &dtw) == DTB_INVALID);
            CHECK(dtw == -1);
        }
        CHECK(dtb_probe_wdl_ghost(tb, gsq(1), gsq(50), gsq(1) | gsq(50), 2) == DTB_INVALID);
        CHECK(dtb_probe_wdl_ghost(NULL, gsq(1), gsq(50), gsq(1) | gsq(50), DTB_WHITE_TO_MOVE) == DTB_INVALID);
        /* DTW through both layouts (these databases may hold no .dtw files: then unknown both ways). */
        {
            int d1 = 0, d2 = 0;
            CHECK(dtb_probe_dtw_ghost(tb, gsq(46), gsq(5), gsq(46) | gsq(5), DTB_WHITE_TO_MOVE, &d1) ==
                  dtb_probe_dtw(tb, sq(46), sq(5), sq(46) | sq(5), DTB_WHITE_TO_MOVE, &d2));
            CHECK(d1 == d2);
        }
    }
    {
        long captures = 0, quiet = 0;
        CHECK(compare_layouts_and_quiet(tb, &captures, &quiet) == 0);
        CHECK(captures > 10000 && quiet > 500000);
    }

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
    CHECK(dtb_preload(NULL, 1) == 0);
    CHECK(dtb_resident_bytes(NULL) == 0);

    /* Resident: every 2-4 file (41 materials) loaded up front, the same answers as above. */
    dtb_default_options(&options);
    CHECK(options.resident == 0);
    options.resident = 1;
    tb = dtb_open(argv[1], &options, NULL);
    CHECK(tb != NULL);
    if (tb) {
        CHECK(dtb_resident_bytes(tb) == 0);
        CHECK(dtb_preload(tb, 2) == 41);
        CHECK(dtb_resident_bytes(tb) > 0);
        CHECK(dtb_probe_wdl(tb, sq(1), sq(50), sq(1) | sq(50), DTB_BLACK_TO_MOVE) == DTB_DRAW);
        CHECK(dtb_probe_wdl_soft(tb, sq(1), sq(50), sq(1) | sq(50), DTB_WHITE_TO_MOVE) == DTB_DRAW);
        dtb_close(tb);
    }

    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("c_api_test: all checks passed\n");
    return failures ? 1 : 0;
}
