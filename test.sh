#!/usr/bin/env bash
# Builds psb and its tests and runs every test with ctest.
#   PSB_BUILD_DIR   build folder (default: build)
#   PSB_CMAKE_ARGS  extra arguments for cmake's configure step, split on spaces
#                   (e.g. "-DPSB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug")
set -euo pipefail
cd "$(dirname "$0")"

build_dir=${PSB_BUILD_DIR:-build}
# shellcheck disable=SC2206 # splitting the extra arguments is the point
extra_args=(${PSB_CMAKE_ARGS:-})

./scripts/install-deps.sh
cmake -S . -B "$build_dir" -DPSB_BUILD_TESTS=ON "${extra_args[@]}"
cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)"
cd "$build_dir"
ctest --output-on-failure -j2
