#!/usr/bin/env bash
# Index benchmark: builds dtb (Release) and prints, for a few materials, how many positions per
# second one thread turns into indices (index) and back (unindex), median of 5 runs.
#   BUILD_DIR  build directory (default build-native)
#   DTB_NATIVE ON (default): built with -march=native, as the quoted figures; OFF: the portable build
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build-native}
BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
echo "command: $BUILD_DIR/tools/dtb bench index"
"$BUILD_DIR/tools/dtb" bench index
