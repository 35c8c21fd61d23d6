#!/usr/bin/env bash
# Probe benchmark: builds (Release), generates the 2-5 piece databases into DB_DIR if it lacks them
# (`dtb gen` resumes, so an interrupted run continues), then runs `dtb bench probe` and prints its
# table: warm and cold median time per probe on one thread, probes per second on 1 and THREADS threads.
#
#   usage: scripts/bench-probe.sh [DB_DIR]     (default ./db5)
#   BUILD_DIR  build directory (default build-native)
#   DTB_NATIVE ON (default): built with -march=native, as the quoted figures; OFF: the portable build
#   PIECES     largest piece count to generate and probe (default 5)
#   THREADS    threads for the throughput line (default: number of CPUs)
#   COUNT      random positions (default 100000)
#   SEED       random seed (default 1)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DB_DIR=${1:-db5}
BUILD_DIR=${BUILD_DIR:-build-native}
PIECES=${PIECES:-5}
THREADS=${THREADS:-$(nproc)}
COUNT=${COUNT:-100000}
SEED=${SEED:-1}

BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
DTB="$BUILD_DIR/tools/dtb"

# shellcheck source=lib/ensure-databases.sh
source scripts/lib/ensure-databases.sh
ensure_databases "$DTB" "$DB_DIR" "$PIECES" .wdl bench-probe

echo "command: $DTB bench probe --db $DB_DIR --threads $THREADS --count $COUNT --seed $SEED"
"$DTB" bench probe --db "$DB_DIR" --threads "$THREADS" --count "$COUNT" --seed "$SEED"
