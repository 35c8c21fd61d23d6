#!/usr/bin/env bash
# Generator benchmark: builds dtb (Release), then builds every database of up to $PIECES pieces
# from scratch into $OUT and prints wall time, positions per second, peak resident memory and
# total bytes on disk.
#
#   BUILD_DIR  build directory (default build)
#   PIECES     largest number of pieces (default 5)
#   OUT        database folder, emptied first (default bench-db$PIECES)
#   THREADS    worker threads (default: all cores)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
PIECES=${PIECES:-5}
OUT=${OUT:-bench-db$PIECES}
THREADS=${THREADS:-}

BUILD_DIR="$BUILD_DIR" bash scripts/build.sh >/dev/null
DTB="$BUILD_DIR/tools/dtb"
[[ -x /usr/bin/time ]] || { echo "bench-gen: /usr/bin/time is needed (scripts/install-deps.sh installs it)" >&2; exit 1; }

rm -rf "$OUT"
args=(gen --pieces "$PIECES" --out "$OUT")
[[ -n "$THREADS" ]] && args+=(--threads "$THREADS")
echo "command: $DTB ${args[*]}"
log=$(mktemp)
/usr/bin/time -f "%e %M" -o "$log.time" "$DTB" "${args[@]}" 2>"$log"
read -r seconds peak_kb <"$log.time"
positions=$("$DTB" stats --db "$OUT" --tsv | awk 'NR > 1 { p += $6 } END { print p }')
bytes=$("$DTB" stats --db "$OUT" --tsv | awk 'NR > 1 { b += $11 } END { print b }')
printf 'pieces          2-%s\n' "$PIECES"
printf 'wall time       %.1f s\n' "$seconds"
printf 'positions       %s\n' "$positions"
awk -v p="$positions" -v s="$seconds" -v k="$peak_kb" \
  'BEGIN { printf "positions/s     %.0f\npeak memory     %.0f MiB\n", p / s, k / 1024 }'
printf 'bytes on disk   %s\n' "$bytes"
rm -f "$log" "$log.time"
