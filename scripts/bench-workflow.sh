#!/usr/bin/env bash
# Workflow benchmark: builds dtb (Release), then the databases of up to $PIECES pieces three ways
# from scratch: `dtb gen`, the plan of `dtb plan` run by `make -j$JOBS`, and the same plan run by
# `snakemake --cores $JOBS`. Prints each one's wall time and checks that all three wrote the same
# bytes (exit 1 if not).
#
#   BUILD_DIR     build directory (default build-native)
#   PIECES        largest number of pieces (default 5)
#   OUT           scratch folder, emptied first (default bench-workflow$PIECES)
#   JOBS          tasks at once (default 2)
#   GROUP_PIECES  dtb plan --group-pieces (default: PIECES - 1, so that the largest pairs are tasks)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build-native}
PIECES=${PIECES:-5}
OUT=${OUT:-bench-workflow$PIECES}
JOBS=${JOBS:-2}
GROUP_PIECES=${GROUP_PIECES:-$((PIECES - 1))}
export USER=${USER:-$(id -un)}  # Snakemake 7 needs it

BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
DTB=$(cd "$BUILD_DIR/tools" && pwd)/dtb
for tool in make snakemake /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-workflow: $tool is needed (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

timed() {  # label command...: runs it, prints its wall time and peak resident memory
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$OUT/$label.time" "$@" >"$OUT/$label.log" 2>&1 || { tail -20 "$OUT/$label.log" >&2; exit 1; }
  read -r seconds peak_kb <"$OUT/$label.time"
  printf '%-28s %8.1f s wall   peak of one process %6.0f MiB\n' "$label" "$seconds" "$(awk -v k="$peak_kb" 'BEGIN { print k / 1024 }')"
}

timed "dtb gen" "$DTB" gen --pieces "$PIECES" --out "$OUT/gen"
"$DTB" plan --pieces "$PIECES" --group-pieces "$GROUP_PIECES" --task-threads 1 --out "$OUT/make" 2>/dev/null
"$DTB" plan --pieces "$PIECES" --group-pieces "$GROUP_PIECES" --task-threads 1 --out "$OUT/snakemake" 2>/dev/null
echo "plan: $(($(wc -l <"$OUT/make/plan.tsv") - 2)) tasks (dtb plan --pieces $PIECES --group-pieces $GROUP_PIECES)"
timed "make -j$JOBS" make -C "$OUT/make" -j"$JOBS"
timed "snakemake --cores $JOBS" bash -c "cd '$OUT/snakemake' && snakemake --cores $JOBS --quiet"

for engine in make snakemake; do
  for f in "$OUT"/gen/*.wdl; do
    cmp -s "$f" "$OUT/$engine/$(basename "$f")" || { echo "bench-workflow: $engine: $(basename "$f") differs from dtb gen's" >&2; exit 1; }
  done
  [[ $(ls "$OUT/$engine"/*.wdl | wc -l) == $(ls "$OUT"/gen/*.wdl | wc -l) ]] ||
    { echo "bench-workflow: $engine: not the same set of files as dtb gen" >&2; exit 1; }
done
echo "same bytes: dtb gen, make and snakemake wrote identical files ($(ls "$OUT"/gen/*.wdl | wc -l) of them)"
