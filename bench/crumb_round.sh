#!/usr/bin/env bash
# Judges a round of new hand-written training mail as data/crumb/README.md says rounds are
# judged: on data/crumb/judge.jsonl and judge2.jsonl, mail by writers who wrote no training email.
#
#   ROUTER=/tmp/build-avx2/apps/router bench/crumb_round.sh w89.jsonl w90.jsonl ...
#   ROUTER=/tmp/build-avx2/apps/router bench/crumb_round.sh --committed   # the committed side only
#
# Trains the built-in recipe (scripts/train-crumb.sh, crumb.json only) with seeds 42, 43 and 44
# twice: on the committed hand-written mail ("committed"), and with the new writers' files added
# by the committed hash split (tools/crumb_hand_split.py; "with"). TAUGHT=1 then teaches each
# seed by the side's three models (router train --teacher, the recipe of steps 12-17 in
# docs/benchmarks.md) and judges the taught ones instead. Prints one line per judged model:
# accuracy and swap pairs on each judge's mail and on the committed validation mail, and for seed
# 42 the synthetic test split; then the means over the seeds, for each judge and for the two
# together. A round is kept when its mean on the two judges' mail together is at least the
# committed mean in pairs and in accuracy, and seed 42 keeps the synthetic test at 98% / 98%
# pairs. data/crumb/real-test.jsonl is never scored here.
# Six trainings: about 50 minutes on two cores; twelve with TAUGHT=1. Models are kept in OUT
# under the hash of all they are made from (the hand-written mail, the synthetic training split,
# scripts/train-crumb.sh and the router binary) and used again, so a run can be resumed and
# "committed" is trained once for several rounds. --committed trains and judges only that side
# (three trainings, six with TAUGHT=1): the baseline for a rule, or a cache made ahead of a round.
# Environment: ROUTER (a 256-bit build, as for scripts/train-crumb.sh; default build/apps/router),
# OUT (default /tmp/crumb-round), TAUGHT.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in "" | -h | --help) sed -n '2,24p' "$0"; exit 2 ;; esac
ROUTER=${ROUTER:-build/apps/router}
if [[ ! -x $ROUTER ]]; then
  echo "crumb_round: no router at $ROUTER (build it, or set ROUTER)" >&2
  exit 1
fi
ROUTER=$(realpath "$ROUTER")
sides=(committed with)  # "with" the round's files added
if [[ $1 == --committed ]]; then
  if [[ $# -gt 1 ]]; then
    echo "crumb_round: --committed takes no round files" >&2
    exit 2
  fi
  sides=(committed)
  shift
else
  # The round's files are checked first, so that a bad one leaves no OUT folder behind.
  python3 tools/crumb_hand_check.py "$@" > /dev/null
fi
OUT=${OUT:-/tmp/crumb-round}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")

if [[ $# -gt 0 ]]; then  # a round's files
  python3 tools/crumb_hand_split.py "$OUT/round-train.jsonl" "$OUT/round-valid.jsonl" "$@"
  cat data/crumb/hand/train.jsonl "$OUT/round-train.jsonl" > "$OUT/with-train.jsonl"
  cat data/crumb/hand/valid.jsonl "$OUT/round-valid.jsonl" > "$OUT/with-valid.jsonl"
fi

# "ACCURACY PAIRS_RIGHT PAIR_GROUPS" of one model on one file.
score() {
  "$ROUTER" -q eval "$2" -m "$1" --json |
    jq -r '"\(.accuracy) \(.pair_groups_right) \(.pair_groups)"'
}

# Trains crumb.json into folder $1 with seed $2 and CRUMB_TEACHERS $3, unless it is there; the
# side's hand-written mail is in ${hand[@]}.
train() {
  [[ -s $1/crumb.json ]] && return 0
  mkdir -p "$1"
  if ! CRUMB_HAND_TRAIN=${hand[0]} CRUMB_HAND_VALID=${hand[1]} CRUMB_SEED=$2 \
    CRUMB_TEACHERS=$3 CRUMB_ONLY=crumb CRUMB_OUT_DIR="$1" ROUTER="$ROUTER" \
    scripts/train-crumb.sh > "$1/log" 2>&1; then
    tail -n 5 "$1/log" >&2
    echo "crumb_round: training $side seed $2 failed (log: $1/log)" >&2
    exit 1
  fi
}

for side in "${sides[@]}"; do
  if [[ $side == with ]]; then
    hand=("$OUT/with-train.jsonl" "$OUT/with-valid.jsonl")
  else
    hand=(data/crumb/hand/train.jsonl data/crumb/hand/valid.jsonl)
  fi
  tag=$(cat "${hand[@]}" data/crumb/train.jsonl scripts/train-crumb.sh "$ROUTER" | sha256sum |
    cut -c 1-12)
  # The recipe's own models, one a seed: what is judged, and with TAUGHT=1 the teachers (the
  # folders keep the name they had when every recipe was taught, so old caches still match).
  teachers=""
  for seed in 42 43 44; do
    train "$OUT/$tag-teacher-$seed" "$seed" none
    teachers+="$OUT/$tag-teacher-$seed/crumb.json "
  done
  judged=""  # "ACCURACY PAIRS ACCURACY2 PAIRS2", a line per seed, for the means
  for seed in 42 43 44; do
    if [[ -n ${TAUGHT:-} ]]; then
      dir="$OUT/$tag-$seed"
      train "$dir" "$seed" "$teachers"
    else
      dir="$OUT/$tag-teacher-$seed"
    fi
    model="$dir/crumb.json"
    read -r acc right groups < <(score "$model" data/crumb/judge.jsonl)
    read -r acc2 right2 groups2 < <(score "$model" data/crumb/judge2.jsonl)
    read -r vacc vright vgroups < <(score "$model" data/crumb/hand/valid.jsonl)
    line=$(printf '%s seed %s\tjudge %.4f %s/%s\tjudge2 %.4f %s/%s\tvalid %.4f %s/%s' "$side" \
      "$seed" "$acc" "$right" "$groups" "$acc2" "$right2" "$groups2" "$vacc" "$vright" "$vgroups")
    if [[ $seed == 42 ]]; then
      read -r tacc tright tgroups < <(score "$model" data/crumb/test.jsonl)
      line+=$(printf '\tsynthetic test %.4f %s/%s' "$tacc" "$tright" "$tgroups")
    fi
    echo "$line"
    judged+="$acc $right $acc2 $right2"$'\n'
  done
  # "both": the mean of the two judges' accuracies (1,440 and 1,438 emails) and the sum of pairs.
  awk -v side="$side" '{ a += $1; r += $2; a2 += $3; r2 += $4; n++ }
    END { printf "%s mean\tjudge %.4f %.2f pairs\tjudge2 %.4f %.2f pairs\tboth %.4f %.2f pairs\n",
      side, a / n, r / n, a2 / n, r2 / n, (a + a2) / (2 * n), (r + r2) / n }' <<< "${judged%$'\n'}"
done
