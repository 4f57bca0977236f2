#!/usr/bin/env bash
# The built-in Crumb model's recipe with some options changed, measured on the test split: how
# the swap-pair accuracy depends on the epochs, the seed and the other options.
#
#   bench/crumb_recipes.sh                         # the recipe of models/crumb.json, unchanged
#   bench/crumb_recipes.sh --epochs 20 --seed 7    # the same recipe with these flags changed
#
# The recipe is models/crumb.json's own `metadata.options`, given to `router train --config`;
# flags given here win over it. One result line per run: the flags, training seconds, best epoch,
# validation, dev and test accuracy and swap pairs (and, with no flags, whether the model is
# byte-identical to the committed one). Dev has held-out material of its own, so it can rank runs
# without the test split. Environment: ROUTER (default build/apps/router), OUT (models and logs,
# default /tmp/crumb-recipes), THREADS (default 2, as scripts/train-crumb.sh; the model does not
# depend on it), TRAIN, VALID, DEV and TEST (the splits, default data/crumb/*.jsonl, relative to
# the repository's root: set TRAIN to try another training split against the same validation, dev
# and test).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=${ROUTER:-build/apps/router}
OUT=${OUT:-/tmp/crumb-recipes}
THREADS=${THREADS:-2}
TRAIN=${TRAIN:-data/crumb/train.jsonl}
VALID=${VALID:-data/crumb/valid.jsonl}
DEV=${DEV:-data/crumb/dev.jsonl}
TEST=${TEST:-data/crumb/test.jsonl}
case "${1:-}" in -h | --help) sed -n '2,16p' "$0"; exit 2 ;; esac
mkdir -p "$OUT"

label="${*:-committed}"
[[ $TEST == data/crumb/test.jsonl ]] || label="TEST=$TEST $label"
[[ $DEV == data/crumb/dev.jsonl ]] || label="DEV=$DEV $label"
[[ $VALID == data/crumb/valid.jsonl ]] || label="VALID=$VALID $label"
[[ $TRAIN == data/crumb/train.jsonl ]] || label="TRAIN=$TRAIN $label"
name=$(printf '%s' "$label" | tr -c 'A-Za-z0-9.=-' '_')
recipe="$OUT/recipe.json"
jq '.metadata.options' models/crumb.json > "$recipe"
model="$OUT/$name.json"

t0=$(date +%s.%N)
if ! "$ROUTER" train --config "$recipe" --train "$TRAIN" \
  --valid "$VALID" --labels "$(jq -r '.labels | join(",")' models/crumb.json)" \
  --threads "$THREADS" -o "$model" "$@" 2> "$OUT/$name.log"; then
  tail -n 5 "$OUT/$name.log" >&2
  exit 1
fi
t1=$(date +%s.%N)

# The validation and dev splits' own scores too: whether they could have chosen among runs.
valid=$("$ROUTER" -q eval "$VALID" -m "$model" --json)
dev=$("$ROUTER" -q eval "$DEV" -m "$model" --json)
result=$("$ROUTER" -q eval "$TEST" -m "$model" --json)
line=$(printf '%s\ttrain_seconds %.1f\tbest_epoch %s\tvalid_accuracy %.4f\tvalid_pairs %.4f (%s/%s)\tdev_accuracy %.4f\tdev_pairs %.4f (%s/%s)\ttest_accuracy %.4f\tswap_pairs %.4f (%s/%s)' \
  "$label" "$(echo "$t1 - $t0" | bc)" "$(jq '.metadata.best_epoch' "$model")" \
  "$(jq .accuracy <<< "$valid")" "$(jq .pair_accuracy <<< "$valid")" \
  "$(jq .pair_groups_right <<< "$valid")" "$(jq .pair_groups <<< "$valid")" \
  "$(jq .accuracy <<< "$dev")" "$(jq .pair_accuracy <<< "$dev")" \
  "$(jq .pair_groups_right <<< "$dev")" "$(jq .pair_groups <<< "$dev")" \
  "$(jq .accuracy <<< "$result")" "$(jq .pair_accuracy <<< "$result")" \
  "$(jq .pair_groups_right <<< "$result")" "$(jq .pair_groups <<< "$result")")
if [[ $# -eq 0 && $TRAIN == data/crumb/train.jsonl && $VALID == data/crumb/valid.jsonl ]]; then
  if cmp -s "$model" models/crumb.json; then
    line+=$'\tidentical to models/crumb.json'
  else
    line+=$'\tDIFFERS from models/crumb.json'
    # The committed models round as 256-bit vectors do (docs/architecture.md, "Training").
    if "$ROUTER" --version | grep -q AVX-512; then
      line+=' (an AVX-512 build: -DROUTER_AVX512=OFF reproduces it)'
    fi
  fi
fi
echo "$line"
