#!/usr/bin/env bash
# The built-in Crumb model's recipe with some options changed: how accuracy and swap pairs
# depend on the epochs, the seed and the other options, judged where scripts/train-crumb.sh
# judges them.
#
#   bench/crumb_recipes.sh                         # the recipe of models/crumb.json, unchanged
#   bench/crumb_recipes.sh --epochs 20 --seed 7    # the same recipe with these flags changed
#
# The recipe is models/crumb.json's own `metadata.options`, given to `router train --config` on
# scripts/train-crumb.sh's data (its training files joined: the synthetic training split and the
# hand-written training mail, each twice over; the hand-written validation mail); flags given
# here win. A recipe with teachers (teacher-42.json ... of seeds 42, 43 and 44, as the built-in
# models had from step 12 to step 17) gets them trained first, on the same data with the recipe
# less its teachers, and kept in OUT under the hash of all they are made from; flags given here
# change only the taught model.
# One result line per run: the flags, training seconds, best epoch, then accuracy and
# swap pairs on the hand-written validation mail, on its emails of 120 words or more (valid_long),
# on data/crumb/judge.jsonl and judge2.jsonl (writers who wrote no training email: what chooses
# among runs, data/crumb/README.md), on the synthetic dev split and on the synthetic test split;
# with no flags, whether the model is byte-identical to the committed one.
# data/crumb/real-test.jsonl is never scored here: no run is chosen by it.
# Environment: ROUTER (default build/apps/router), OUT (models and logs, default
# /tmp/crumb-recipes), THREADS (default 2, as scripts/train-crumb.sh; the model does not depend
# on it), TRAIN (one file instead of the joined training files), VALID, JUDGE, JUDGE2, DEV and
# TEST (default data/crumb/hand/valid.jsonl, data/crumb/judge.jsonl, data/crumb/judge2.jsonl,
# data/crumb/dev.jsonl, data/crumb/test.jsonl; paths relative to the repository's root).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=$(realpath "${ROUTER:-build/apps/router}")
OUT=${OUT:-/tmp/crumb-recipes}
THREADS=${THREADS:-2}
TRAIN=${TRAIN:-}
VALID=${VALID:-data/crumb/hand/valid.jsonl}
JUDGE=${JUDGE:-data/crumb/judge.jsonl}
JUDGE2=${JUDGE2:-data/crumb/judge2.jsonl}
DEV=${DEV:-data/crumb/dev.jsonl}
TEST=${TEST:-data/crumb/test.jsonl}
case "${1:-}" in -h | --help) sed -n '2,26p' "$0"; exit 2 ;; esac
# Every file scored after the training is checked before it, so a misspelt one costs no training.
for var in VALID JUDGE JUDGE2 DEV TEST ${TRAIN:+TRAIN}; do
  if [[ ! -f ${!var} || ! -r ${!var} ]]; then
    echo "crumb_recipes: $var=${!var}: no such readable file" >&2
    exit 1
  fi
done
mkdir -p "$OUT"
OUT=$(realpath "$OUT")

label="${*:-committed}"
[[ $TEST == data/crumb/test.jsonl ]] || label="TEST=$TEST $label"
[[ $DEV == data/crumb/dev.jsonl ]] || label="DEV=$DEV $label"
[[ $JUDGE2 == data/crumb/judge2.jsonl ]] || label="JUDGE2=$JUDGE2 $label"
[[ $JUDGE == data/crumb/judge.jsonl ]] || label="JUDGE=$JUDGE $label"
[[ $VALID == data/crumb/hand/valid.jsonl ]] || label="VALID=$VALID $label"
[[ -z $TRAIN ]] || label="TRAIN=$TRAIN $label"
name=$(printf '%s' "$label" | tr -c 'A-Za-z0-9.=-' '_')
recipe="$OUT/recipe.json"
jq '.metadata.options' models/crumb.json > "$recipe"
labels=$(jq -r '.labels | join(",")' models/crumb.json)
model="$OUT/$name.json"

# router runs in a folder of its own with the names scripts/train-crumb.sh gives it (the joined
# file crumb-train.jsonl, data/ a link to the project's), because the model records its data
# files' names: only then can it be the committed file byte for byte.
work="$OUT/work"
mkdir -p "$work"
ln -sfn "$PWD/data" "$work/data"
if [[ -z $TRAIN ]]; then
  mapfile -t files < <(scripts/train-crumb.sh --print-training-files)
  cat "${files[@]}" > "$work/crumb-train.jsonl"
  train=crumb-train.jsonl
else
  train=$(realpath "$TRAIN")
fi
valid=$VALID
[[ $valid == /* || $valid == data/* ]] || valid=$(realpath "$VALID")

# The teachers the recipe names, each trained once for this data, recipe and router.
plain="$OUT/recipe-untaught.json"
jq 'del(.teachers, .teacher_weight)' "$recipe" > "$plain"
mapfile -t teachers < <(jq -r '.teachers // [] | .[]' "$recipe")
if [[ ${#teachers[@]} -gt 0 ]]; then
  tag=$(cd "$work" && cat "$train" "$valid" "$plain" "$ROUTER" | sha256sum | cut -c 1-12)
  for name in "${teachers[@]}"; do
    kept="$OUT/teachers-$tag/$name"
    if [[ ! -s $kept ]]; then
      mkdir -p "$OUT/teachers-$tag"
      if ! (cd "$work" && "$ROUTER" train --config "$plain" --train "$train" --valid "$valid" \
        --labels "$labels" --threads "$THREADS" --seed "${name//[!0-9]/}" -o "$kept" \
        2> "$kept.log"); then
        tail -n 5 "$kept.log" >&2
        exit 1
      fi
    fi
    cp "$kept" "$work/$name"
  done
fi

t0=$(date +%s.%N)
if ! (cd "$work" && "$ROUTER" train --config "$recipe" --train "$train" --valid "$valid" \
  --labels "$labels" --threads "$THREADS" \
  -o "$model" "$@" 2> "$OUT/$name.log"); then
  tail -n 5 "$OUT/$name.log" >&2
  exit 1
fi
t1=$(date +%s.%N)

# "NAME_accuracy A  NAME_pairs P (RIGHT/GROUPS)" for one split ("-" for a split without pairs).
score() {
  local r pairs=-
  r=$("$ROUTER" -q eval "$2" -m "$model" --json)
  if [[ $(jq .pair_groups <<< "$r") != 0 ]]; then
    pairs=$(printf '%.4f (%s/%s)' "$(jq .pair_accuracy <<< "$r")" \
      "$(jq .pair_groups_right <<< "$r")" "$(jq .pair_groups <<< "$r")")
  fi
  printf '%s_accuracy %.4f\t%s_pairs %s' "$1" "$(jq .accuracy <<< "$r")" "$1" "$pairs"
}
# The validation mail of 120 words or more: where mean pooling dilutes the deciding clause
# (docs/benchmarks.md, "Real mail", step 27). A pair's two emails have the same words.
long_valid="$OUT/$name.valid-long.jsonl"
trap 'rm -f "$long_valid"' EXIT  # also when a score fails: OUT keeps only models and logs
jq -c 'select([.text | splits("\\s+") | select(length > 0)] | length >= 120)' "$VALID" \
  > "$long_valid"
if [[ -s $long_valid ]]; then
  long_score=$(score valid_long "$long_valid")
else  # a VALID with no long email
  long_score=$'valid_long_accuracy -\tvalid_long_pairs -'
fi
line=$(printf '%s\ttrain_seconds %.1f\tbest_epoch %s\t%s\t%s\t%s\t%s\t%s\t%s' "$label" \
  "$(echo "$t1 - $t0" | bc)" "$(jq '.metadata.best_epoch' "$model")" "$(score valid "$VALID")" \
  "$long_score" "$(score judge "$JUDGE")" "$(score judge2 "$JUDGE2")" \
  "$(score dev "$DEV")" "$(score test "$TEST")")
if [[ $# -eq 0 && -z $TRAIN && $VALID == data/crumb/hand/valid.jsonl ]]; then
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
