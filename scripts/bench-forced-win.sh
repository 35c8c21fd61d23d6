#!/usr/bin/env bash
# Forced-win search benchmark: `dtb adjudicate` on ordinary 5-piece endings (scripts/forced_win_bench.pdn:
# four men, king and men, kings and men against a king), one game at a time, printing per game the
# verdict, the search's answer, wall-clock seconds and peak memory (/usr/bin/time -v).
#
#   DB         a 2-5 piece database folder with DTW (default: built into $WORK/db5dtw with
#              `dtb gen --pieces 5 --dtw`, about 5 minutes on two cores)
#   DTB        the dtb executable to use (default: built into $BUILD_DIR by scripts/build.sh)
#   BUILD_DIR  build directory (default build-native)
#   DTB_NATIVE ON (default): built with -march=native, as the quoted figures; OFF: the portable build
#   WORK       scratch folder (default a temporary one, removed at the end)
#   ARGS       extra options for dtb adjudicate (e.g. "--search-seconds 60")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build-native}
PDN=scripts/forced_win_bench.pdn
if [[ -z ${WORK:-} ]]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
if [[ -z ${DTB:-} ]]; then
  BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
  DTB="$BUILD_DIR/tools/dtb"
fi
if [[ -z ${DB:-} ]]; then
  DB=$WORK/db5dtw
  echo "building the 2-5 piece databases with DTW into $DB ..." >&2
  "$DTB" gen --pieces 5 --dtw --out "$DB" >/dev/null
fi

# One file per game: each game starts at its [Event tag.
awk -v dir="$WORK" '/^\[Event / { n++ } n { print > (dir "/game" n ".pdn") }' "$PDN"
printf '%-32s %-6s %-13s %-9s %8s %8s\n' "final position" result verdict forced seconds "peak MB"
for game in $(ls "$WORK"/game*.pdn | sort -V); do
  fen=$(sed -n 's/^\[FEN "\(.*\)"\]/\1/p' "$game")
  result=$(sed -n 's/^\[Result "\(.*\)"\]/\1/p' "$game")
  # shellcheck disable=SC2086
  /usr/bin/time -v "$DTB" adjudicate --db "$DB" --json ${ARGS:-} "$game" >"$WORK/out" 2>"$WORK/time" || true
  verdict=$(grep -o '"verdict":"[a-z]*"' "$WORK/out" | cut -d'"' -f4 || true)
  forced=$(grep -o '"forced_win":"[a-z]*"' "$WORK/out" | cut -d'"' -f4 || true)
  budget=$(grep -q '"budget_exceeded":true' "$WORK/out" && echo " (budget exceeded)" || true)
  seconds=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  peak=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time" | awk '{ printf "%.0f", $1 / 1024 }')
  printf '%-32s %-6s %-13s %-9s %8.2f %8s%s\n' "$fen" "$result" "${verdict:-?}" "${forced:--}" "$seconds" "$peak" "$budget"
done
