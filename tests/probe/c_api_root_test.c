/* dtb_probe_root from a C99 program, on the 2-4 piece databases with DTW given as argv[1]. The
 * position is the one of ProbeRoot.TheShortestWinLosesToTheCountAnotherWins (tests/probe/
 * root_test.cpp), where the brute force shows which move wins under the 16-move count. */
#include <stdio.h>

#include "probe/dtb.h"
#include "tests/probe/c_check.h"

static int failures = 0;

static uint64_t sq(int s) { return (uint64_t)1 << (s - 1); }

/* The same board in the engines' layout: square s at bit (s-1)+(s-1)/10. */
static uint64_t ghost(uint64_t dense) {
    uint64_t out = 0;
    int s;
    for (s = 1; s <= 50; ++s)
        if (dense & sq(s)) out |= (uint64_t)1 << ((s - 1) + (s - 1) / 10);
    return out;
}

/* dtb_probe_dtw through both layouts: the same value and distance (the positions after the moves
   have real distances here, where the main C API test's folder has no .dtw files). */
static void check_dtw_layouts(dtb_handle* tb, const dtb_position* p) {
    int dense_dtw = -2, ghost_dtw = -3;
    const int dense = dtb_probe_dtw(tb, p->white, p->black, p->kings, p->side_to_move, &dense_dtw);
    const int in_ghost = dtb_probe_dtw_ghost(tb, ghost(p->white), ghost(p->black), ghost(p->kings), p->side_to_move,
                                             &ghost_dtw);
    CHECK(dense == in_ghost && dense_dtw == ghost_dtw);
}

int main(int argc, char** argv) {
    dtb_handle* tb;
    dtb_position pos;
    dtb_root_state state = {0, 29, NULL, 0, 0};
    dtb_root_move moves[768];
    int n, i, found_shortest = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATABASE_FOLDER\n", argv[0]);
        return 2;
    }
    tb = dtb_open(argv[1], NULL, NULL);
    if (!tb) return 2;

    /* W:WK12,K40,K44:BK6, 29 plies into the 16-move count: 12-1 wins in 7, 44-50 (5) is too slow. */
    pos.white = sq(12) | sq(40) | sq(44);
    pos.black = sq(6);
    pos.kings = pos.white | pos.black;
    pos.side_to_move = DTB_WHITE_TO_MOVE;
    n = dtb_probe_root(tb, &pos, &state, moves, 768);
    CHECK(n > 1);
    CHECK(dtb_probe_root(tb, &pos, &state, NULL, 0) == n); /* counting only */
    if (n > 1) {
        CHECK(moves[0].from == 12 && moves[0].to == 1);
        CHECK(moves[0].value == DTB_WIN && moves[0].dtw == 7 && !moves[0].drawn_by_rules);
        CHECK(moves[0].captured == 0);
        CHECK(moves[0].after.white == (sq(1) | sq(40) | sq(44)) && moves[0].after.black == sq(6));
        CHECK(moves[0].after.side_to_move == DTB_BLACK_TO_MOVE);
        for (i = 0; i < n; ++i)
            if (moves[i].from == 44 && moves[i].to == 50) {
                found_shortest = 1;
                CHECK(moves[i].value == DTB_DRAW && moves[i].drawn_by_rules && moves[i].dtw == 5);
            }
        CHECK(found_shortest);
        for (i = 0; i < n; ++i) check_dtw_layouts(tb, &moves[i].after);
    }

    /* A fresh count: the shortest win is the best move again. */
    state.counted_plies = 0;
    n = dtb_probe_root(tb, &pos, &state, moves, 768);
    CHECK(n > 0 && moves[0].from == 44 && moves[0].to == 50 && moves[0].value == DTB_WIN && moves[0].dtw == 5);
    CHECK(dtb_probe_root(tb, &pos, NULL, moves, 768) == n); /* no state: fresh counts */

    /* Invalid input. */
    state.counted_plies = 32;
    CHECK(dtb_probe_root(tb, &pos, &state, moves, 768) == -1);
    state.counted_plies = 0;
    state.occurred_twice_count = 1; /* but no array */
    CHECK(dtb_probe_root(tb, &pos, &state, moves, 768) == -1);
    state.occurred_twice_count = 0;
    CHECK(dtb_probe_root(NULL, &pos, &state, moves, 768) == -1);
    CHECK(dtb_probe_root(tb, NULL, &state, moves, 768) == -1);
    CHECK(dtb_probe_root(tb, &pos, &state, NULL, 5) == -1);
    pos.black |= sq(12); /* overlapping colours */
    CHECK(dtb_probe_root(tb, &pos, &state, moves, 768) == -1);

    dtb_close(tb);
    if (failures == 0) printf("all checks passed\n");
    return failures == 0 ? 0 : 1;
}
