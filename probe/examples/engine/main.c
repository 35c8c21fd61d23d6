/* Usage: probe_example_c DB_DIR  ->  White king 46 against black king 5, White to move: "loss". */
#include <stdio.h>

#include "probe/dtb.h"

int main(int argc, char** argv) {
    char* error = NULL;
    dtb_handle* tb = argc == 2 ? dtb_open(argv[1], NULL, &error) : NULL;
    if (!tb) { fprintf(stderr, "%s\n", error ? error : "usage: probe_example_c DB_DIR"); dtb_free_error(error); return 2; }
    const uint64_t white = 1ull << 45, black = 1ull << 4;  /* bit s-1 = square s */
    const int v = dtb_probe_wdl(tb, white, black, white | black, DTB_WHITE_TO_MOVE);
    /* The same position in the engines' ghost layout (square s at bit (s-1) + (s-1)/10), and the
       quiet probe (no capture search; DTB_CAPTURE if the side to move had a capture). */
    const uint64_t ghost_white = 1ull << 49, ghost_black = 1ull << 4;
    const int g = dtb_probe_wdl_ghost(tb, ghost_white, ghost_black, ghost_white | ghost_black, DTB_WHITE_TO_MOVE);
    const int q = dtb_probe_wdl_quiet(tb, white, black, white | black, DTB_WHITE_TO_MOVE);
    printf("%s\n", v == DTB_WIN ? "win" : v == DTB_DRAW ? "draw" : v == DTB_LOSS ? "loss" : "unknown");
    dtb_close(tb);
    return v <= DTB_WIN && g == v && q == v ? 0 : 1;
}
