/*
 * dtb.h: the C API of the dtb probing library (international draughts endgame databases).
 *
 * C99 and C++ compatible. Link with dtb::probe (CMake: find_package(dtb) then
 * target_link_libraries(app PRIVATE dtb::probe)); the library itself is C++.
 *
 *     char* error = NULL;
 *     dtb_handle* tb = dtb_open("/path/to/db", NULL, &error);
 *     if (!tb) { fprintf(stderr, "%s\n", error); dtb_free_error(error); return 1; }
 *     int v = dtb_probe_wdl(tb, white, black, kings, DTB_WHITE_TO_MOVE);
 *     if (v == DTB_WIN) ...
 *     dtb_close(tb);
 *
 * Boards are three 64-bit masks: `white` and `black` hold every piece of that colour, `kings` the
 * kings of both colours; squares 1..50 are numbered row by row from the top as White sees the
 * board (white men start on 31-50). Two layouts of the masks are accepted:
 *   - dense (dtb_probe_wdl, ...): bit s-1 stands for square s; bits 50..63 must be 0;
 *   - ghost (the functions ending in _ghost): the 10x10 engine layout with an unused "ghost" bit
 *     after every ten squares, square s at bit (s-1) + (s-1)/10 (squares 1-10 at bits 0-9, 11-20
 *     at 11-20, ..., 41-50 at 44-53). It is the library's own layout and that of Kingsrow's driver,
 *     so such engines convert nothing. The ghost bits 10, 21, 32, 43 and bits 54..63 must be 0.
 * A board with a bit set outside its layout's squares is DTB_INVALID. Values are for the side to move.
 *
 * Thread safety: one handle may be used by any number of threads at once (dtb_close excepted).
 */
#ifndef DTB_PROBE_DTB_H
#define DTB_PROBE_DTB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Probe results, for the side to move. The known values are 0..2 (v <= DTB_WIN). */
#define DTB_LOSS 0
#define DTB_DRAW 1
#define DTB_WIN 2
#define DTB_UNKNOWN 3 /* a needed file is missing or corrupt, too many pieces, capture search too large, or (soft) not cached */
#define DTB_INVALID 4 /* illegal position: overlapping pieces, a man on its crowning row, bad side... */
#define DTB_CAPTURE 5 /* quiet probes only: the side to move has a capture, so no value is given */

/* side_to_move */
#define DTB_WHITE_TO_MOVE 0
#define DTB_BLACK_TO_MOVE 1

typedef struct dtb_handle dtb_handle;

typedef struct dtb_options {
    size_t cache_mb;    /* decompressed blocks (.wdl and .dtw) kept in memory, MiB (default 64; 0 keeps none) */
    int max_pieces;     /* largest piece count to use; 0 = every database found (default) */
    int max_open_files; /* database files (.wdl and .dtw) held open at once (default 64) */
    /* Called once per distinct problem (missing or corrupt file, ...), never by two threads at
       once; may be NULL. It must not call back into the library. `message` is valid during the
       call only. */
    void (*log)(const char* message, void* user);
    void* log_user;
    /* Most positions one probe visits while searching compulsory captures down into the databases
       (default 100000); beyond it the probe returns DTB_UNKNOWN, with the reason "capture search
       exceeded N positions". 0 = no bound. */
    uint64_t capture_search_nodes;
    /* Non-zero: keep every .wdl file's values in memory in a run-length code read without
       decompressing (1.24 times the files of 2-6 pieces; docs/PROBING.md), loaded on first need or by
       dtb_preload; WDL probes then never read the disk. Default 0. */
    int resident;
} dtb_options;

/* Fills `options` with the defaults. */
void dtb_default_options(dtb_options* options);

/* Opens the databases of folder `dir` (files are read lazily, on first need). `options` may be
   NULL for the defaults. Returns NULL on failure (e.g. `dir` is not a readable folder); then, if
   `error` is not NULL, *error receives a malloc'd message to release with dtb_free_error (or free). */
dtb_handle* dtb_open(const char* dir, const dtb_options* options, char** error);

void dtb_free_error(char* error);

/* Closes the handle and frees its memory. No probe may be running on it. NULL is accepted. */
void dtb_close(dtb_handle* handle);

/* Win/draw/loss value for the side to move (DTB_WHITE_TO_MOVE or DTB_BLACK_TO_MOVE). Positions
   where the side to move must capture are resolved by searching the captures. */
int dtb_probe_wdl(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move);

/* As dtb_probe_wdl, but answers only from blocks already cached, never reading the disk:
   DTB_UNKNOWN when something is not cached. Cheap enough for every search leaf. */
int dtb_probe_wdl_soft(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move);

/* As dtb_probe_wdl; when the result is DTB_UNKNOWN or DTB_INVALID and `reason` is not NULL,
   *reason points to an explanation owned by the handle (valid until dtb_close), else to "". */
int dtb_probe_wdl_reason(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move,
                         const char** reason);

/* The stored value of a quiet position, for engines that resolve captures in their own search: one
   lookup, no capture search. DTB_CAPTURE when the side to move has a capture (the files store no
   value for such positions); otherwise as dtb_probe_wdl (the same value, or DTB_UNKNOWN /
   DTB_INVALID for the same reasons). */
int dtb_probe_wdl_quiet(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move);

/* Distance to win from the .dtw files (dtb gen --dtw): returns the value like dtb_probe_wdl and,
   when `dtw` is not NULL, writes the number of plies until the game ends with best play (the
   winner shortest, the loser longest; odd for a win, even for a loss, 0 when the game is over: a
   loss when the side to move has no move, a win when the other side has no piece) or -1 for a
   draw, an unknown or an invalid position. Meant for roots and analysis. */
int dtb_probe_dtw(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move, int* dtw);

/* The same probes with the board in the ghost layout (square s at bit (s-1) + (s-1)/10, see above):
   same results; a bit on a ghost square or above 53 gives DTB_INVALID. */
int dtb_probe_wdl_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move);
int dtb_probe_wdl_soft_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move);
int dtb_probe_wdl_quiet_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move);
int dtb_probe_dtw_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move,
                        int* dtw);

/* Largest number of pieces the opened databases cover (0 if the folder holds none). */
int dtb_max_pieces(const dtb_handle* handle);

/* Opens (with `resident`: loads) every .wdl file now, on `threads` threads (0: one per core).
   Files that cannot be used are reported through `log`. Returns the number of .wdl files ready
   (0 for a NULL handle, or when memory ran out). */
size_t dtb_preload(dtb_handle* handle, int threads);

/* Bytes of memory the resident files hold (0 without `resident`, or for a NULL handle). */
size_t dtb_resident_bytes(const dtb_handle* handle);

/* ----- Moves at the root, ranked under the FMJD draw rules (docs/DRAW_RULES.md) ----- */

/* A position in the board layout above. */
typedef struct dtb_position {
    uint64_t white, black, kings;
    int side_to_move; /* DTB_WHITE_TO_MOVE or DTB_BLACK_TO_MOVE */
} dtb_position;

/* How far the game's draw-rule counts have run at the root. */
typedef struct dtb_root_state {
    int king_move_plies; /* 6.2: successive plies of king moves without capture already played, 0..49 */
    int counted_plies;   /* 6.3/6.4: plies already played in the running 16- or 5-move count (0 if none) */
    /* Positions that occurred twice since the last man move or capture (a third time draws); the
       root itself may not be one. NULL when occurred_twice_count is 0. */
    const dtb_position* occurred_twice;
    size_t occurred_twice_count;
    /* 0: a capture turning a 16-move ending into a 5-move one starts a fresh count; 1: that count
       ends no later than the 16-move one would have. */
    int keep_earlier;
} dtb_root_state;

typedef struct dtb_root_move {
    int from, to;      /* squares 1..50 */
    uint64_t captured; /* the squares of the pieces it takes, in the board layout above */
    dtb_position after;
    /* For the side to move at the root, under the draw rules: DTB_WIN when the win can be forced
       before a rule draws the game, DTB_LOSS when the opponent can force it, DTB_DRAW otherwise,
       DTB_UNKNOWN when the databases (or the search's budget: 10 s per move) cannot tell. */
    int value;
    /* Plies to the end of the game with best play by the databases, the move included (odd for a
       win, even for a loss); -1 for a draw of the databases or when unknown. */
    int dtw;
    int drawn_by_rules; /* 1: the databases' win or loss that the draw rules turn into a draw */
} dtb_root_move;

/* Every legal move of `pos`, ranked: wins, quickest first; draws (those the rules make last);
   losses, slowest first; unknowns. Writes the first min(n, capacity) of the n legal moves to
   `moves` and returns n (768 is always enough); returns -1 for an invalid position or state (a
   count out of range, the root among the twice-occurred positions). Needs .dtw files (dtb gen
   --dtw) for the positions after the moves. For the root of a search, not its nodes: each move
   may take a search under the counts. */
int dtb_probe_root(dtb_handle* handle, const dtb_position* pos, const dtb_root_state* state, dtb_root_move* moves,
                   int capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DTB_PROBE_DTB_H */
