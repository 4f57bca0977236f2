#!/usr/bin/env bash
# Quick start, step 2: install what is missing, build, and run every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
