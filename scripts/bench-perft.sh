#!/usr/bin/env bash
# Move generator benchmark: builds (Release), runs `dtb perft --depth $DEPTH` on the start position
# $RUNS times on one thread, and prints the median time of the deepest depth and leaf nodes per second.
#
#   BUILD_DIR  build directory (default build-native)
#   DTB_NATIVE ON (default): built with -march=native, as the quoted figures; OFF: the portable build
#   DEPTH      perft depth (default 9)
#   RUNS       number of runs (default 3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build-native}
DEPTH=${DEPTH:-9}
RUNS=${RUNS:-3}
START_FEN="W:W31-50:B1-20"

BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
DTB="$BUILD_DIR/tools/dtb"

echo "command: $DTB perft '$START_FEN' --depth $DEPTH   ($RUNS runs)"
times=()
nodes=""
for ((run = 1; run <= RUNS; ++run)); do
  # `dtb perft` prints DEPTH<TAB>NODES<TAB>SECONDS for every depth up to DEPTH; keep the last line.
  line=$("$DTB" perft "$START_FEN" --depth "$DEPTH" | tail -n 1)
  read -r depth count seconds <<<"$line"
  [[ "$depth" == "$DEPTH" ]] || { echo "bench-perft: unexpected output: $line" >&2; exit 1; }
  nodes=$count
  times+=("$seconds")
  echo "run $run: depth $depth  $count leaves  $seconds s"
done

median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
awk -v n="$nodes" -v t="$median" -v d="$DEPTH" 'BEGIN {
  printf "perft %d: %d leaves, median %.3f s, %.1f million leaves/s (one thread)\n", d, n, t, n / t / 1e6 }'
