#!/usr/bin/env bash
# Installs, builds, then runs the main job on a small default. Each step is one function, called
# in order at the bottom; append new steps (building and probing databases) the same way.
#
#   BUILD_DIR    build directory (default build)
#   PERFT_DEPTH  depth of the perft check (default 7)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
PERFT_DEPTH=${PERFT_DEPTH:-7}
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

step_build
step_moves
step_perft
section "done"
