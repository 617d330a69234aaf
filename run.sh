#!/usr/bin/env bash
# Builds psb (Release, in ./build) and runs it. With no arguments: the viewer
# (`psb view`; it needs a display and says so without one: then
# `./run.sh sim --summary` runs the simulation headless).
# With arguments: `psb ARGS...`, e.g. ./run.sh sim --shape ring --time 2
set -euo pipefail
cd "$(dirname "$0")"

./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target psb

if [ "$#" -eq 0 ]; then
    set -- view
fi
exec build/psb "$@"
