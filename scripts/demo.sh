#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build, and run the fee-vs-cake demo on the
# built-in model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build/apps/router demo
