#!/usr/bin/env bash
# In-scope accuracy on CLINC150 (Larson et al., 2019): `router train` on train.jsonl (selecting
# the epoch on valid.jsonl), then `router eval test.jsonl --json`; plus Debian's fastText on the
# same split as a same-machine reference. One named setting per run, one result line each:
#
#   bench/clinc150_accuracy.sh defaults       # router train with no flags
#   bench/clinc150_accuracy.sh budget 15m     # router train --time-budget 15m, nothing else
#   bench/clinc150_accuracy.sh d64            # one router setting (bench/clinc150/d64.json)
#   bench/clinc150_accuracy.sh fasttext       # fastText -wordNgrams 2 (more fastText flags may
#                                             # follow, e.g. -epoch 50 -lr 1.0: the last one wins)
#   bench/clinc150_accuracy.sh all            # every setting, one after the other
#
# Environment: CLINC (dataset dir, default ../shared/datasets/clinc150 from the project root),
# ROUTER (binary, default build/apps/router), OUT (models and logs, default /tmp/clinc150-bench),
# THREADS (default 1: results are identical for any thread count, and on this 2-core machine a
# second thread barely helps, see docs/benchmarks.md). Runs are sequential: the machine is shared.
# The data is read where it lies; nothing from CLINC150 is copied into the project.
set -euo pipefail
cd "$(dirname "$0")/.."
CLINC=${CLINC:-../shared/datasets/clinc150}
ROUTER=${ROUTER:-build/apps/router}
OUT=${OUT:-/tmp/clinc150-bench}
THREADS=${THREADS:-1}
mkdir -p "$OUT"

# One recipe per setting: bench/clinc150/NAME.json, a JSON object of `router train` options
# (read with --config; keys as in a model's metadata.options) on top of `--preset fast`, the
# defaults these settings were measured against: d_model 64, 4 heads, 2 layers, d_ff 256, vocab
# 4000, batch 32, lr 2e-3, dropout 0.1, label smoothing 0.1, weight decay 0.01, warmup 0.05, 20
# epochs, patience 5, seed 42, no word dropout, BPE-dropout or averaging. `defaults` (an empty
# recipe) is the one setting without the preset: today's defaults.
# bench/clinc150/ORDER lists the settings in the order `all` runs them.
RECIPES=bench/clinc150
mapfile -t ORDER < "$RECIPES/ORDER"

# A recipe as the flags it stands for, in the file's order: {"batch_size": 16} -> --batch-size 16.
recipe_flags() {
  jq -r 'to_entries | map("--\(.key | gsub("_"; "-")) \(.value)") | join(" ")' "$RECIPES/$1.json"
}

now() { date +%s.%N; }

# run_router SETTING [RESULT_NAME EXTRA_FLAGS...]
run_router() {
  local name=$1 result=${2:-$1} flags
  local extra=("${@:3}")
  flags=$(recipe_flags "$name")
  local model="$OUT/$result.json" log="$OUT/$result.log"
  local t0 t1
  t0=$(now)
  local preset=(--preset fast)
  [ "$name" = defaults ] && preset=()
  "$ROUTER" train "${preset[@]}" --config "$RECIPES/$name.json" --train "$CLINC/train.jsonl" \
    --valid "$CLINC/valid.jsonl" -o "$model" --threads "$THREADS" "${extra[@]}" 2> "$log"
  t1=$(now)
  local acc best members
  acc=$("$ROUTER" -q eval "$CLINC/test.jsonl" -m "$model" --json --threads "$THREADS" |
    jq .accuracy)
  best=$(jq '.metadata.best_epoch' "$model")
  members=$(jq '.metadata.options.ensemble // 1' "$model")
  printf '%s\ttest_accuracy %.4f\ttrain_seconds %.0f\tbest_epoch %s\tmembers %s\tflags: %s\n' \
    "$result" "$acc" "$(echo "$t1 - $t0" | bc)" "$best" "$members" "$flags ${extra[*]}"
}

run_fasttext() {
  local flags=(-wordNgrams 2 -epoch 25 -lr 0.5 -dim 100 -thread "$THREADS" -seed 1 "$@")
  local dir="$OUT/fasttext"
  mkdir -p "$dir"
  # fastText's format: "__label__LABEL text", one example per line.
  for split in train test; do
    jq -r '"__label__" + .label + " " + (.text | gsub("\\s+"; " "))' "$CLINC/$split.jsonl" \
      > "$dir/$split.txt"
  done
  local t0 t1
  t0=$(now)
  fasttext supervised -input "$dir/train.txt" -output "$dir/model" "${flags[@]}" -verbose 0
  t1=$(now)
  # `fasttext test` prints N, P@1, R@1; with one label per line P@1 = accuracy.
  local p1
  p1=$(fasttext test "$dir/model.bin" "$dir/test.txt" | awk '$1 == "P@1" {print $2}')
  printf 'fasttext\ttest_accuracy %.4f\ttrain_seconds %.0f\tflags: %s\n' "$p1" \
    "$(echo "$t1 - $t0" | bc)" "${flags[*]}"
}

case "${1:-}" in
  fasttext) shift; run_fasttext "$@" ;;
  budget) run_router defaults "budget-${2:?budget needs a duration, e.g. 15m}" --time-budget "$2" ;;
  all) for n in "${ORDER[@]}"; do run_router "$n"; done; run_fasttext ;;
  "" | -h | --help) sed -n '2,17p' "$0"; exit 2 ;;
  *)
    if [[ $1 == */* || ! -f "$RECIPES/$1.json" ]]; then
      echo "unknown setting '$1'; one of: ${ORDER[*]} fasttext budget all" >&2
      exit 2
    fi
    run_router "$1" ;;
esac
