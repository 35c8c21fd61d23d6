/* Usage: probe_example_c DB_DIR  ->  White king 46 against black king 5, White to move: "loss". */
#include <stdio.h>

#include "probe/dtb.h"

int main(int argc, char** argv) {
    char* error = NULL;
    dtb_handle* tb = argc == 2 ? dtb_open(argv[1], NULL, &error) : NULL;
    if (!tb) { fprintf(stderr, "%s\n", error ? error : "usage: probe_example_c DB_DIR"); dtb_free_error(error); return 2; }
    const uint64_t white = 1ull << 45, black = 1ull << 4;  /* bit s-1 = square s */
    const int v = dtb_probe_wdl(tb, white, black, white | black, DTB_WHITE_TO_MOVE);
    printf("%s\n", v == DTB_WIN ? "win" : v == DTB_DRAW ? "draw" : v == DTB_LOSS ? "loss" : "unknown");
    dtb_close(tb);
    return v <= DTB_WIN ? 0 : 1;
}
