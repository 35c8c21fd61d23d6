#!/usr/bin/env bash
# Generator benchmark: builds dtb (Release), then builds every database of up to $PIECES pieces
# from scratch into $OUT and prints wall time, positions per second, peak resident memory and
# total bytes on disk; with VERIFY=1, then times `dtb verify` of what it built.
#
#   BUILD_DIR  build directory (default build-native)
#   DTB_NATIVE ON (default): built with -march=native, as the quoted figures; OFF: the portable build
#   PIECES     largest number of pieces (default 5)
#   OUT        database folder, emptied first (default bench-db$PIECES)
#   THREADS    worker threads (default: all cores)
#   DTW        1: build the WDL files alone first, then everything again from scratch with --dtw,
#              and print what the distances cost (the difference) and the size of the .dtw files
#   VERIFY     1: after the WDL build, `dtb verify --db $OUT` (every core, or THREADS), and print
#              its wall time, peak memory and its ratio to the build's wall time (goal: at most
#              1.5); with DTW=1 also after the build with distances, which it checks too
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build-native}
PIECES=${PIECES:-5}
OUT=${OUT:-bench-db$PIECES}
THREADS=${THREADS:-}

BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
DTB="$BUILD_DIR/tools/dtb"
[[ -x /usr/bin/time ]] || { echo "bench-gen: /usr/bin/time is needed (scripts/install-deps.sh installs it)" >&2; exit 1; }

# Builds from scratch into $OUT with the extra arguments given; sets seconds and peak_kb.
build_from_scratch() {
  rm -rf "$OUT"
  local args=(gen --pieces "$PIECES" --out "$OUT" "$@")
  [[ -n "$THREADS" ]] && args+=(--threads "$THREADS")
  echo "command: $DTB ${args[*]}"
  local log
  log=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$log.time" "$DTB" "${args[@]}" 2>"$log" || { tail -5 "$log" >&2; exit 1; }
  read -r seconds peak_kb <"$log.time"
  rm -f "$log" "$log.time"
}

# Checks every file of $OUT with dtb verify; prints its time against the build's ($1 seconds).
verify_build() {
  local build_seconds=$1 args=(verify --db "$OUT") log seconds peak_kb
  [[ -n "$THREADS" ]] && args+=(--threads "$THREADS")
  echo "command: $DTB ${args[*]}"
  log=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$log.time" "$DTB" "${args[@]}" >"$log" 2>&1 || { tail -5 "$log" >&2; exit 1; }
  read -r seconds peak_kb <"$log.time"
  printf 'verify          %s\n' "$(grep -E '^ok' "$log" | tail -1)"
  awk -v v="$seconds" -v b="$build_seconds" -v k="$peak_kb" \
    'BEGIN { printf "verify time     %.1f s wall, peak %.0f MiB, %.2f times the build (goal: at most 1.5)\n", v, k / 1024, v / b }'
  rm -f "$log" "$log.time"
}

build_from_scratch
wdl_seconds=$seconds
positions=$("$DTB" stats --db "$OUT" --tsv | awk 'NR > 1 { p += $6 } END { print p }')
bytes=$("$DTB" stats --db "$OUT" --tsv | awk 'NR > 1 { b += $11 } END { print b }')
printf 'pieces          2-%s\n' "$PIECES"
printf 'wall time       %.1f s\n' "$seconds"
printf 'positions       %s\n' "$positions"
awk -v p="$positions" -v s="$seconds" -v k="$peak_kb" \
  'BEGIN { printf "positions/s     %.0f\npeak memory     %.0f MiB\n", p / s, k / 1024 }'
printf 'bytes on disk   %s\n' "$bytes"
if [[ "${VERIFY:-0}" == 1 ]]; then verify_build "$wdl_seconds"; fi

if [[ "${DTW:-0}" == 1 ]]; then
  build_from_scratch --dtw
  dtw_bytes=$(cat "$OUT"/*.dtw | wc -c)
  printf 'with --dtw      %.1f s wall, peak %.0f MiB\n' "$seconds" "$(awk -v k="$peak_kb" 'BEGIN { print k / 1024 }')"
  awk -v t="$seconds" -v w="$wdl_seconds" \
    'BEGIN { printf "distances cost  %.1f s, %.2f times the WDL build (goal: at most 1)\n", t - w, (t - w) / w }'
  awk -v d="$dtw_bytes" -v b="$bytes" \
    'BEGIN { printf "DTW bytes       %d, %.2f times the WDL files (goal: at most 3)\n", d, d / b }'
  if [[ "${VERIFY:-0}" == 1 ]]; then verify_build "$seconds"; fi
fi
