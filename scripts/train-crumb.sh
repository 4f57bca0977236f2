#!/usr/bin/env bash
# Reproduces the two built-in models from the committed Crumb data: models/crumb.json (sinusoidal
# positions) and models/crumb-nopos.json (the same architecture, data, options and seed, without
# positions), then evaluates both on the test split. Deterministic: the same files every time.
set -euo pipefail
cd "$(dirname "$0")/.."
router=${ROUTER:-build/apps/router}
if "$router" --version | grep -q AVX-512; then
  echo "train-crumb: $router uses AVX-512, which rounds otherwise than the 256-bit vectors the" \
    "committed models were trained with; configure with -DROUTER_AVX512=OFF to reproduce them" >&2
fi
labels=refund_item,refund_delivery_fee,replace_item,cancel_order,change_order,order_status,feedback,general_inquiry
options=(--train data/crumb/train.jsonl --valid data/crumb/valid.jsonl --labels "$labels"
         --d-model 64 --heads 4 --layers 2 --d-ff 128 --local-heads 4 --max-len 128 --vocab-size 4000
         --epochs 12 --patience 12 --batch-size 32 --lr 3e-3 --dropout 0.1 --weight-decay 0.1
         --label-smoothing 0.1 --token-dropout 0.1 --ema 0.998
         --seed 42 --threads 2)
"$router" train "${options[@]}" --positional sinusoidal -o models/crumb.json
"$router" train "${options[@]}" --positional none -o models/crumb-nopos.json
for m in models/crumb.json models/crumb-nopos.json; do
  echo "== $m"
  "$router" eval data/crumb/test.jsonl -m "$m"
done
