#!/usr/bin/env bash
# In-scope accuracy on CLINC150 (Larson et al., 2019): `router train` on train.jsonl (selecting
# the epoch on valid.jsonl), then `router eval test.jsonl --json`; plus Debian's fastText on the
# same split as a same-machine reference. One named setting per run, one result line each:
#
#   bench/clinc150_accuracy.sh d64            # one router setting (names: see SETTINGS below)
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

# name -> `router train` flags (on top of router's defaults: d_model 64, 4 heads, 2 layers, d_ff
# 256, vocab 4000, batch 32, lr 2e-3, dropout 0.1, label smoothing 0.1, weight decay 0.01,
# warmup 0.05, 20 epochs, patience 5, seed 42).
declare -A SETTINGS=(
  [d64]="--epochs 30 --patience 100"
  [d64-seed7]="--epochs 30 --patience 100 --seed 7"
  [d64-b16-seed7]="--epochs 30 --patience 100 --batch-size 16 --seed 7"
  [d64-drop0.2]="--epochs 30 --patience 100 --dropout 0.2"
  [d64-v2000]="--epochs 30 --patience 100 --vocab-size 2000"
  [d64-v8000]="--epochs 30 --patience 100 --vocab-size 8000"
  [d64-lr4e-3]="--epochs 30 --patience 100 --lr 4e-3"
  [d64-wd0.1]="--epochs 30 --patience 100 --weight-decay 0.1"
  [d64-b16]="--epochs 30 --patience 100 --batch-size 16"
  [d64-layers1]="--epochs 30 --patience 100 --layers 1"
  [d64-nopos]="--epochs 30 --patience 100 --positional none"
  [d64-local2]="--epochs 30 --patience 100 --local-heads 2"
  [d64-ls0.2]="--epochs 30 --patience 100 --label-smoothing 0.2"
  [d64-b16-ls0.2-e40]="--epochs 40 --patience 100 --batch-size 16 --label-smoothing 0.2"
  [d128]="--epochs 30 --patience 100 --d-model 128 --d-ff 512"
  [b16-e60-drop0.2]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2"
  [d128-h8-b16-drop0.2]="--epochs 30 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512"
  [d128-h8-b16-drop0.3-e40]="--epochs 40 --patience 100 --batch-size 16 --dropout 0.3 --d-model 128 --heads 8 --d-ff 512"
  [d128-h8-b16-drop0.4-e60]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.4 --d-model 128 --heads 8 --d-ff 512"
  [d128-h8-b16-drop0.3-e40-td0.1]="--epochs 40 --patience 100 --batch-size 16 --dropout 0.3 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.1"
  [d128-h8-b16-drop0.2-e40-td0.2]="--epochs 40 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2"
  [d128-h8-b16-drop0.2-e60-td0.2]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2"
  [d128-h8-b16-drop0.3-e40-seed7]="--epochs 40 --patience 100 --batch-size 16 --dropout 0.3 --d-model 128 --heads 8 --d-ff 512 --seed 7"
  [d128-h8-b16-drop0.2-e60-td0.2-seed7]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --seed 7"
  [d128-h8-b16-drop0.3-e40-seed1]="--epochs 40 --patience 100 --batch-size 16 --dropout 0.3 --d-model 128 --heads 8 --d-ff 512 --seed 1"
  [d128-h8-b16-drop0.2-e60-td0.2-seed1]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --seed 1"
  [d128-h8-b16-drop0.2-e80-td0.3]="--epochs 80 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.3"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-seed7]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --seed 7"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-seed1]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --seed 1"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.9998]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.9998"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-ls0.2]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --label-smoothing 0.2"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-wd0.1]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --weight-decay 0.1"
  [d128-h8-l3-b16-drop0.2-e60-td0.2-ema0.999]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --layers 3 --d-ff 512 --token-dropout 0.2 --ema 0.999"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.1]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.1"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.1-seed7]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.1 --seed 7"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.1-seed1]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.1 --seed 1"
  [d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.2]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.2"
  [d128-h8-b16-drop0.2-e80-td0.2-ema0.999-bpe0.1]="--epochs 80 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.1"
  [d128-h8-b16-drop0.2-e80-td0.2-ema0.999-bpe0.1-seed7]="--epochs 80 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.1 --seed 7"
  [d128-h8-b16-drop0.2-e80-td0.2-ema0.999-bpe0.1-seed1]="--epochs 80 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999 --bpe-dropout 0.1 --seed 1"
  [d128-h8-b16-drop0.2-e80-td0.2-ema0.999]="--epochs 80 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --token-dropout 0.2 --ema 0.999"
  [d128-h8-b16-drop0.2-e60-ema0.999-bpe0.1]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 128 --heads 8 --d-ff 512 --ema 0.999 --bpe-dropout 0.1"
  [d192-h8-b16-drop0.2-e60-td0.2]="--epochs 60 --patience 100 --batch-size 16 --dropout 0.2 --d-model 192 --heads 8 --d-ff 768 --token-dropout 0.2"
)
ORDER=(d64 d64-seed7 d64-b16 d64-b16-seed7 d64-ls0.2 d64-b16-ls0.2-e40 d64-drop0.2 d64-lr4e-3
  d64-wd0.1 d64-v2000 d64-v8000 d64-layers1 d64-nopos d64-local2 d128 b16-e60-drop0.2
  d128-h8-b16-drop0.2 d128-h8-b16-drop0.3-e40 d128-h8-b16-drop0.4-e60 d128-h8-b16-drop0.3-e40-td0.1
  d128-h8-b16-drop0.2-e40-td0.2 d128-h8-b16-drop0.2-e60-td0.2 d128-h8-b16-drop0.2-e80-td0.3
  d128-h8-b16-drop0.3-e40-seed7 d128-h8-b16-drop0.2-e60-td0.2-seed7 d128-h8-b16-drop0.3-e40-seed1
  d128-h8-b16-drop0.2-e60-td0.2-seed1 d192-h8-b16-drop0.2-e60-td0.2
  d128-h8-b16-drop0.2-e60-td0.2-ema0.999 d128-h8-b16-drop0.2-e60-td0.2-ema0.999-seed7
  d128-h8-b16-drop0.2-e60-td0.2-ema0.999-seed1 d128-h8-b16-drop0.2-e60-td0.2-ema0.9998
  d128-h8-b16-drop0.2-e60-td0.2-ema0.999-ls0.2 d128-h8-b16-drop0.2-e60-td0.2-ema0.999-wd0.1
  d128-h8-l3-b16-drop0.2-e60-td0.2-ema0.999 d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.1
  d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.1-seed7 d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.1-seed1
  d128-h8-b16-drop0.2-e60-td0.2-ema0.999-bpe0.2 d128-h8-b16-drop0.2-e80-td0.2-ema0.999-bpe0.1
  d128-h8-b16-drop0.2-e80-td0.2-ema0.999-bpe0.1-seed7 d128-h8-b16-drop0.2-e80-td0.2-ema0.999-bpe0.1-seed1
  d128-h8-b16-drop0.2-e80-td0.2-ema0.999 d128-h8-b16-drop0.2-e60-ema0.999-bpe0.1)

now() { date +%s.%N; }

run_router() {
  local name=$1 flags=${SETTINGS[$1]}
  local model="$OUT/$name.json" log="$OUT/$name.log"
  local t0 t1
  t0=$(now)
  # shellcheck disable=SC2086  # flags are word-split on purpose
  "$ROUTER" train --train "$CLINC/train.jsonl" --valid "$CLINC/valid.jsonl" -o "$model" \
    --threads "$THREADS" $flags 2> "$log"
  t1=$(now)
  local acc best
  acc=$("$ROUTER" -q eval "$CLINC/test.jsonl" -m "$model" --json --threads "$THREADS" |
    jq .accuracy)
  best=$(jq '.metadata.best_epoch' "$model")
  printf '%s\ttest_accuracy %.4f\ttrain_seconds %.0f\tbest_epoch %s\tflags: %s\n' \
    "$name" "$acc" "$(echo "$t1 - $t0" | bc)" "$best" "$flags"
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
  all) for n in "${ORDER[@]}"; do run_router "$n"; done; run_fasttext ;;
  "" | -h | --help) sed -n '2,15p' "$0"; exit 2 ;;
  *)
    if [[ -z "${SETTINGS[$1]+x}" ]]; then
      echo "unknown setting '$1'; one of: ${ORDER[*]} fasttext all" >&2
      exit 2
    fi
    run_router "$1" ;;
esac
