#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang++ (in build-fuzz/, with AddressSanitizer and
# UndefinedBehaviorSanitizer) and runs each for SECONDS seconds (default 60) on a scratch copy of
# its seed corpus. Exits non-zero when a target crashes, hangs, leaks, runs out of memory or breaks
# one of its invariants, printing the path of the input that did it (rerun it with
# `build-fuzz/fuzz/<target> <file>`).
#
#   scripts/fuzz.sh [SECONDS]
#
#   FUZZ_BUILD_DIR  build directory (default build-fuzz)
#   FUZZ_WORK_DIR   scratch corpora and reproducers (default $FUZZ_BUILD_DIR/fuzz-work, emptied first)
#   FUZZ_TARGETS    targets to run (default: fen_fuzz move_fuzz pdn_fuzz table_fuzz table_checksummed_fuzz)
#
# Seeds: the FENs quoted in tests/, fuzz/seeds/move, the PDN files of tests/data/pdn and samples/,
# and the database files of fuzz/seeds/tables (which the table targets also open as the real
# databases next to the fuzzed file, DTB_FUZZ_TABLES); plus fuzz/regressions/<target>, inputs
# that once failed, run first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SECONDS_PER_TARGET=${1:-60}
[[ "$SECONDS_PER_TARGET" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; }
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
WORK=${FUZZ_WORK_DIR:-$BUILD/fuzz-work}
TARGETS=(${FUZZ_TARGETS:-fen_fuzz move_fuzz pdn_fuzz table_fuzz table_checksummed_fuzz})

for tool in clang clang++; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DDTB_TESTS=OFF -DDTB_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target "${TARGETS[@]}"

rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# Copies the seeds of `target` into the scratch corpus folder $WORK/<target>/corpus.
seed_corpus() {
  local corpus=$WORK/$1/corpus
  mkdir -p "$corpus"
  case $1 in
    fen_fuzz)
      local n=0
      grep -rhoE '"[WB]:[^"]*"' tests | sort -u | while IFS= read -r quoted; do
        n=$((n + 1))
        printf '%s' "${quoted:1:${#quoted}-2}" >"$corpus/test-fen-$n"
      done ;;
    move_fuzz) cp fuzz/seeds/move/* "$corpus/" ;;
    pdn_fuzz) cp tests/data/pdn/*.pdn samples/*.pdn "$corpus/" ;;
    table_fuzz | table_checksummed_fuzz) cp fuzz/seeds/tables/* "$corpus/" ;;
  esac
  if [[ -d fuzz/regressions/$1 ]]; then cp fuzz/regressions/"$1"/* "$corpus/"; fi
}

failed=()
for target in "${TARGETS[@]}"; do
  seed_corpus "$target"
  mkdir -p "$WORK/$target/crashes"
  echo "fuzz: $target for ${SECONDS_PER_TARGET} s"
  # -malloc_limit_mb: no input may make the code allocate 512 MiB at once (a header's sizes must
  # be checked against the file before anything is allocated).
  mkdir -p "$WORK/$target/tmp"  # the table targets' scratch folder, left behind by a crash
  if ! DTB_FUZZ_TABLES=$PWD/fuzz/seeds/tables TMPDIR=$WORK/$target/tmp \
      ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      "$BUILD/fuzz/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$WORK/$target/crashes/" \
        "$WORK/$target/corpus" >"$WORK/$target/log" 2>&1; then
    tail -n 40 "$WORK/$target/log" >&2
    for reproducer in "$WORK/$target/crashes"/*; do
      [[ -e "$reproducer" ]] && echo "fuzz: $target failed; reproducer: $reproducer" >&2
    done
    failed+=("$target")
  else
    grep -E '^stat::number_of_executed_units' "$WORK/$target/log" | sed "s/^/fuzz: $target /" || true
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: FAILED: ${failed[*]} (logs in $WORK/<target>/log)" >&2
  exit 1
fi
echo "fuzz: ${#TARGETS[@]} targets ran ${SECONDS_PER_TARGET} s each without a finding"
