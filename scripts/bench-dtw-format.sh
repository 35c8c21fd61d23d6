#!/usr/bin/env bash
# DTW encoding measurement (docs/FORMAT.md, "DTW encoding: the measurements"): builds (Release),
# generates the 2-PIECES piece databases with --dtw into DB_DIR if it lacks them (`dtb gen`
# resumes), then runs `dtb bench format --dtw` and prints its table: the total size of the .dtw
# files under each alternative fill, layout, block size, zstd level and stored class.
#
#   usage: scripts/bench-dtw-format.sh [DB_DIR]     (default ./db4-dtw)
#   BUILD_DIR  build directory (default build-native)
#   DTB_NATIVE ON (default): built with -march=native, as the quoted figures; OFF: the portable build
#   PIECES     largest piece count (default 4; 5 takes about 10 minutes to build and to measure)
#   GEN_ARGS   more options for dtb gen, e.g. "--zstd-level 19 --block-positions 32760"
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DB_DIR=${1:-db4-dtw}
BUILD_DIR=${BUILD_DIR:-build-native}
PIECES=${PIECES:-4}
GEN_ARGS=${GEN_ARGS:-}

BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
DTB="$BUILD_DIR/tools/dtb"

# shellcheck source=lib/ensure-databases.sh
source scripts/lib/ensure-databases.sh
# shellcheck disable=SC2086 # GEN_ARGS is a list of options
ensure_databases "$DTB" "$DB_DIR" "$PIECES" .dtw bench-dtw-format --dtw $GEN_ARGS

echo "command: $DTB bench format --dtw --db $DB_DIR"
"$DTB" bench format --dtw --db "$DB_DIR"
