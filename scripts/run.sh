#!/usr/bin/env bash
# Installs, builds, then runs the main job on a small default: the rules engine on sample
# positions, then the 2-4 piece databases built into a folder (first argument, default ./db),
# their statistics, and a few probes. Each step is one function, called in order at the bottom.
#
#   scripts/run.sh [DB_DIR]
#   BUILD_DIR    build directory (default build)
#   PERFT_DEPTH  depth of the perft check (default 7)
#   PIECES       largest number of pieces to build (default 4)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
PERFT_DEPTH=${PERFT_DEPTH:-7}
PIECES=${PIECES:-4}
DB_DIR=${1:-db}
START_FEN="W:W31-50:B1-20"
SAMPLE_FEN="W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"  # Woldouby
DTB="$BUILD_DIR/tools/dtb"

section() { printf '\n==== %s ====\n' "$*"; }

step_build() {
  section "build"
  BUILD_DIR="$BUILD_DIR" bash scripts/build.sh
}

step_moves() {
  section "legal moves of $SAMPLE_FEN"
  "$DTB" moves "$SAMPLE_FEN"
}

step_perft() {
  section "perft of the start position to depth $PERFT_DEPTH (depth, leaf nodes, seconds)"
  "$DTB" perft "$START_FEN" --depth "$PERFT_DEPTH"
}

step_gen() {
  section "databases of 2-$PIECES pieces, with distances to win, into $DB_DIR (finished files are kept)"
  "$DTB" gen --pieces "$PIECES" --dtw --out "$DB_DIR"
}

step_stats() {
  section "statistics of $DB_DIR"
  "$DTB" stats --db "$DB_DIR"
}

step_probe() {
  section "probing sample positions in $DB_DIR (value for the side to move; --moves: every move, best first)"
  "$DTB" probe --db "$DB_DIR" --dtw --moves \
    "W:WK46:BK5" "W:WK2,6:BK50" "W:W33:B2" "B:W27,28:BK25" "W:W23:B5,6"
}

step_adjudicate() {
  section "adjudicating the sample games in samples/sample.pdn"
  "$DTB" adjudicate --db "$DB_DIR" samples/sample.pdn
}

step_build
step_moves
step_perft
step_gen
step_stats
step_probe
step_adjudicate
section "done"
