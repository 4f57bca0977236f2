#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build the router binary alone (the tests and
# benchmarks are built by step 2, scripts/test.sh), and run the fee-vs-cake demo on the built-in
# model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)" --target router
build/apps/router demo
