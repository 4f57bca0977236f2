#!/usr/bin/env bash
# Fuzzes the parsers of untrusted input with libFuzzer under ASan+UBSan (docs/reliability.md).
#   scripts/fuzz.sh [SECONDS] [TARGET...]    default: 60 seconds each, every target
# Targets: tokenizer model_json model_binary dataset mail. Builds in build-fuzz with clang-14,
# makes small seed corpora from tests/fixtures, runs each target in turn, keeps what it learns in
# build-fuzz/corpus/<target>, and prints executions and coverage per target. A crashing input is
# saved under build-fuzz/artifacts/<target>/ and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[ $# -gt 0 ] && shift
all=(tokenizer model_json model_binary dataset mail)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

out=build-fuzz
cxx=${CXX_FUZZ:-clang++-14}
cc=${CC_FUZZ:-clang-14}
if ! command -v "$cxx" > /dev/null; then
  echo "fuzz: $cxx not found (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2
  exit 2
fi

mkdir -p "$out"
cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_COMPILER="$cc" -DROUTER_FUZZ=ON -DROUTER_SANITIZE=ON -DROUTER_BUILD_TESTS=OFF \
  -DROUTER_BUILD_BENCH=OFF > "$out/configure.log" 2>&1 || { cat "$out/configure.log" >&2; exit 1; }
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build "$out" -j "$(nproc)" --target "${build_targets[@]}" fuzz_seed_binary

# Seeds: a handful of small files per target, remade every run from the test fixtures.
fx=tests/fixtures
seeds=$out/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{tokenizer,model_json,model_binary,dataset,mail}
head -n 40 "$fx/tokenizer/corpus.txt" | split -l 1 - "$seeds/tokenizer/line_"
cp "$fx"/mail/*.expected.txt "$seeds/tokenizer/"
printf 'caf\xc3\xa9 \xe2\x82\xac5 \xf0\x9f\x8e\x82\xf0\x9f\x8e\x82' > "$seeds/tokenizer/emoji"
printf 'bad \xff\xfe utf-8 \xc3 and a\0NUL' > "$seeds/tokenizer/invalid"
cp "$fx/models/tiny.json" "$seeds/model_json/"
# An ensemble of two: the same tensors again under "members" (the file ends with the tensors).
{
  sed '$d' "$fx/models/tiny.json" | sed '$s/^  }$/  },/'
  echo '  "members": [{'
  sed -n '/^  "tensors": {$/,/^  }$/p' "$fx/models/tiny.json" | sed '1d;$d'
  printf '  }]\n}\n'
} > "$seeds/model_json/tiny-ensemble.json"
cp "$out/fuzz/tiny.bin" "$seeds/model_binary/"
cp "$fx/models/tiny-train.jsonl" "$seeds/dataset/"
head -n 3 "$fx/models/tiny-train.jsonl" > "$seeds/dataset/three.jsonl"
{ echo '['; head -n 3 "$fx/models/tiny-train.jsonl" | sed '$!s/$/,/'; echo ']'; } \
  > "$seeds/dataset/array.json"
printf '{"text": "x", "pair": 7}\n\n{"text": "caf\xc3\xa9", "label": null}\n' > "$seeds/dataset/mixed.jsonl"
cp "$fx"/mail/*.eml "$fx/mail/inbox.mbox" "$seeds/mail/"

dict_for() {
  case $1 in
    model_json | dataset) echo "-dict=fuzz/json.dict" ;;
    mail) echo "-dict=fuzz/mail.dict" ;;
  esac
}
maxlen_for() {
  case $1 in
    model_json | model_binary) echo 200000 ;;  # the seed model is 90 kB
    *) echo 65536 ;;
  esac
}

# intercept_tls_get_addr=0: see scripts/test-sanitized.sh (the leak checker's guess at GLib's
# dynamic TLS blocks).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
summary=()
for t in "${targets[@]}"; do
  corpus=$out/corpus/$t
  artifacts=$out/artifacts/$t
  log=$out/fuzz_$t.log
  mkdir -p "$corpus" "$artifacts"
  echo "fuzz: $t for ${seconds}s" >&2
  rc=0
  # -timeout: one input taking over 10 s is a hang; -rss_limit_mb also caps single allocations.
  "$out/fuzz/fuzz_$t" "$corpus" "$seeds/$t" $(dict_for "$t") -max_len="$(maxlen_for "$t")" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" > "$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  files=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    summary+=("$(printf '%-13s FAILED (exit %s): see %s and %s' "$t" "$rc" "$log" "$artifacts")")
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 5 >&2 || true
  else
    summary+=("$(printf '%-13s execs %-10s cov %-6s ft %-6s corpus %s' "$t" "${execs:-?}" \
      "${cov:-?}" "${ft:-?}" "$files")")
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
