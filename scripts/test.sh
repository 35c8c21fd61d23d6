#!/usr/bin/env bash
# Builds and runs the whole test suite twice: a Release build (build/), then a build with
# AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/). Exits non-zero on any failure.
#
#   BUILD_DIR       Release build directory (default build)
#   ASAN_BUILD_DIR  sanitizer build directory (default build-asan)
#   ASAN_CTEST_ARGS extra ctest arguments for the sanitizer run (default "-LE slow": every test
#                   but the end-to-end database builds, which the Release run covers)
#   SKIP_ASAN=1     skip the AddressSanitizer build
#   TSAN_BUILD_DIR  ThreadSanitizer build directory (default build-tsan); it builds and runs the
#                   tests labelled "tsan" (the probing library's multi-threaded stress test and the
#                   games judged in parallel by the adjudication library)
#   SKIP_TSAN=1     skip the ThreadSanitizer build
#   FUZZ_SECONDS    seconds each libFuzzer target runs (default 20; scripts/fuzz.sh, clang++, build-fuzz/)
#   SKIP_FUZZ=1     skip the fuzzing
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
ASAN_BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
TSAN_BUILD_DIR=${TSAN_BUILD_DIR:-build-tsan}
ASAN_CTEST_ARGS=${ASAN_CTEST_ARGS--LE slow}
JOBS=$(nproc)
# The sanitizer builds: -O1 and line tables only, as the sanitizers' documentation advises; it
# compiles in two thirds of the time of RelWithDebInfo's -O2 -g, and the reports keep file:line.
SANITIZER_FLAGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
                 "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")

section() { printf '\n==== %s (%s) ====\n' "$*" "$(date +%T)"; }

section "dependencies"
bash scripts/install-deps.sh

section "Release build ($BUILD_DIR)"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DDTB_TESTS=ON
cmake --build "$BUILD_DIR" -j"$JOBS"

section "Release tests"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2

if [[ "${SKIP_ASAN:-0}" != 1 ]]; then
  section "AddressSanitizer + UBSan build ($ASAN_BUILD_DIR)"
  cmake -S . -B "$ASAN_BUILD_DIR" "${SANITIZER_FLAGS[@]}" -DDTB_TESTS=ON \
    -DDTB_SANITIZE=address,undefined -DDTB_NATIVE=ON
  cmake --build "$ASAN_BUILD_DIR" -j"$JOBS"

  section "AddressSanitizer + UBSan tests${ASAN_CTEST_ARGS:+ ($ASAN_CTEST_ARGS)}"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # shellcheck disable=SC2086  # ASAN_CTEST_ARGS is a list of words on purpose
  ctest --test-dir "$ASAN_BUILD_DIR" --output-on-failure -j2 $ASAN_CTEST_ARGS
fi

if [[ "${SKIP_TSAN:-0}" != 1 ]]; then
  section "ThreadSanitizer build ($TSAN_BUILD_DIR)"
  cmake -S . -B "$TSAN_BUILD_DIR" "${SANITIZER_FLAGS[@]}" -DDTB_TESTS=ON -DDTB_SANITIZE=thread
  cmake --build "$TSAN_BUILD_DIR" -j"$JOBS" --target probe_stress_test adjudicate_parallel_test

  section "ThreadSanitizer tests (-L tsan)"
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  ctest --test-dir "$TSAN_BUILD_DIR" --output-on-failure -L tsan --no-tests=error
fi

if [[ "${SKIP_FUZZ:-0}" != 1 ]]; then
  section "fuzzing (${FUZZ_SECONDS:-20} s a target)"
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
fi

section "all tests passed"
