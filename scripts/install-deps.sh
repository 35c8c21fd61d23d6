#!/usr/bin/env bash
# Installs the build and test dependencies of dtb (Debian/Ubuntu). Idempotent: when every package
# is already installed it does not touch apt at all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(
  cmake g++ pkg-config
  libzstd-dev libtbb-dev libcli11-dev libxxhash-dev
  libcpp-httplib-dev nlohmann-json3-dev      # dtb serve (HTTP server, JSON)
  libgtest-dev libgmock-dev
  pybind11-dev python3-dev python3-pytest     # the Python module (python/) and its tests
  chromium chromium-driver python3-selenium  # tests/serve/browser_test.py: the explorer page in a browser
  wrk                                        # scripts/bench-serve.sh
  snakemake make                             # dtb plan: the workflow engines its Snakefile and Makefile are for
  slurm-wlm munge                            # tests/gen/workflow_slurm.sh: a single-node Slurm (scripts/slurm-local.sh)
  time
  clang libclang-rt-14-dev  # scripts/fuzz.sh: clang++ and libFuzzer (libclang_rt.fuzzer)
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing ${missing[*]}, and not root and no sudo to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
