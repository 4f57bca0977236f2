#!/usr/bin/env bash
# Builds the tests with AddressSanitizer + UndefinedBehaviorSanitizer (-DROUTER_SANITIZE=ON) in
# build-asan and runs the whole suite through ctest, including every `router` process the tests
# start. Any sanitizer report fails the run, even one from a child process whose test passed:
# reports go to build-asan/sanitizer/ and the script fails if a file appears there.
# Extra arguments go to ctest (e.g. -R Hostile). Needs clang-14 (CXX_SANITIZE=g++ also works).
set -euo pipefail
cd "$(dirname "$0")/.."

out=build-asan
cxx=${CXX_SANITIZE:-clang++-14}
if ! command -v "$cxx" > /dev/null; then
  echo "test-sanitized: $cxx not found (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2
  exit 2
fi
# Release keeps the suite fast; ROUTER_SANITIZE adds -fno-omit-frame-pointer for the stacks.
cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DROUTER_SANITIZE=ON \
  -DROUTER_BUILD_BENCH=OFF > /dev/null
cmake --build "$out" -j "$(nproc)" --target router_tests

logs=$PWD/$out/sanitizer
rm -rf "$logs"
mkdir -p "$logs"
# intercept_tls_get_addr=0: clang-14's leak checker guesses the size of each dynamically allocated
# TLS block (GMime and GLib's, opened at run time) from the bytes before it; with glibc 2.36 the
# guess can be garbage, depending only on how the heap happens to be laid out, and its tracer then
# crashes at exit ("Tracer caught signal 11"). Without the interception those blocks are not
# scanned as roots; no leak report comes from that in this suite.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:intercept_tls_get_addr=0:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="log_path=$logs/lsan"
rc=0
ctest --test-dir "$out" --output-on-failure -j "$(nproc)" --timeout 900 "$@" || rc=$?
if [ -n "$(ls -A "$logs")" ]; then
  echo "test-sanitized: sanitizer reports:" >&2
  for f in "$logs"/*; do echo "== $f" >&2; head -n 60 "$f" >&2; done
  rc=1
fi
[ $rc -eq 0 ] && echo "test-sanitized: the suite passed under ASan+UBSan with no report" >&2
exit $rc
