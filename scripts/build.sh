#!/usr/bin/env bash
# Installs the dependencies, then configures and builds dtb (Release) into $BUILD_DIR (default build/).
# Extra arguments are passed to the CMake configure step, e.g. scripts/build.sh -DDTB_NATIVE=ON for a
# build optimised for this machine's CPU (-march=native; the default build runs on any CPU).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}

bash scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$BUILD_DIR" -j"$(nproc)"
echo "build: $BUILD_DIR/tools/dtb"
