#!/usr/bin/env bash
# Training speed, router vs the PyTorch reference (tools/torch_ref.py), on CLINC150 train.jsonl:
# d_model 64, 4 heads, 2 layers, d_ff 256, max_len 128, batch 32, vocab 4000; 2 threads each,
# and 1 thread each for comparison.
#
#   bench/train_speed.sh        # prints one line per run, then a summary with the ratios
#
# Both sides train on the same token ids: a small helper, compiled here against router's own
# library, learns the tokenizer exactly as `router train` does and writes the ids; PyTorch reads
# them, so tokenisation is outside both timings (router tokenises before its first epoch). An
# epoch = the training steps + a forward pass over 150 validation examples (router validates
# every epoch; a small file keeps that share under 1%). Epoch 1 is warm-up and not counted; a
# run's figure is the mean of epochs 2..EPOCHS. Runs are back to back, never concurrent.
#
# Fairness to PyTorch (Debian's python3-torch 1.13):
#  - BLAS: it calls whatever libblas.so.3 the system provides, by default the unoptimised
#    reference BLAS (libblas3). The script unpacks Debian's libopenblas0-pthread into $OUT
#    (apt-get download; nothing is installed or switched system-wide) and points the torch runs
#    at it with LD_LIBRARY_PATH (or set OPENBLAS_DIR to a directory with OpenBLAS's libblas.so.3).
#  - Threads: libgomp's default busy-waiting collapses when the two cores are shared with other
#    jobs, so the 2-thread torch runs use OMP_WAIT_POLICY=PASSIVE.
#  - Two sampled runs (SAMPLE_STEPS random steps, scaled to an epoch) show what the defaults cost:
#    reference BLAS, and busy-waiting OpenMP.
# Environment: CLINC, ROUTER (default build/apps/router), OUT (default /tmp/train-speed-bench),
# EPOCHS (3), ROUNDS (2), SAMPLE_STEPS (40; 0 skips the sampled runs).
set -euo pipefail
cd "$(dirname "$0")/.."
CLINC=${CLINC:-../shared/datasets/clinc150}
ROUTER=${ROUTER:-build/apps/router}
OUT=${OUT:-/tmp/train-speed-bench}
EPOCHS=${EPOCHS:-3}
ROUNDS=${ROUNDS:-2}
SAMPLE_STEPS=${SAMPLE_STEPS:-40}
PY=/usr/bin/python3  # Debian's python3-torch lives there
BUILD=$(dirname "$(dirname "$ROUTER")")
mkdir -p "$OUT"
head -n 150 "$CLINC/valid.jsonl" > "$OUT/valid150.jsonl"

ARCH=(--d-model 64 --heads 4 --layers 2 --d-ff 256 --max-len 128 --batch-size 32)
RULES=(--lr 2e-3 --weight-decay 0.01 --dropout 0.1 --label-smoothing 0.1 --warmup 0.05 --clip 1.0)
# The reference has none of these; router's defaults have them, so router's runs turn them off.
ROUTER_ONLY=(--token-dropout 0 --bpe-dropout 0 --ema 0)

# --- token ids from router's tokenizer ---------------------------------------------------------
cat > "$OUT/encode_ids.cc" <<'EOF'
// Trains router's tokenizer on TRAIN exactly as `router train` does (same texts, same order, same
// vocab size), then writes "LABEL_INDEX<TAB>ids" for each file, truncated to MAX_LEN, labels in
// sorted order (router's default), and META.json with vocab_size and num_labels.
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "input/dataset.h"
#include "text/tokenizer.h"

int main(int argc, char** argv) {
  if (argc < 6) return 2;  // TRAIN VOCAB MAX_LEN META.json OUT1 [IN2 OUT2 ...]
  const auto train = router::read_examples(argv[1]);
  std::vector<std::string> texts;
  std::set<std::string> labels;
  for (const auto& e : train) texts.push_back(e.text), labels.insert(e.label);
  const auto tok = router::Tokenizer::train(texts, std::atoi(argv[2]));
  const size_t max_len = std::atoi(argv[3]);
  std::map<std::string, int> index;
  for (const auto& l : labels) index.emplace(l, static_cast<int>(index.size()));
  std::ofstream(argv[4]) << "{\"vocab_size\": " << tok.vocab_size()
                         << ", \"num_labels\": " << labels.size() << "}\n";
  for (int a = 5; a < argc; a += 2) {
    const auto examples = a == 5 ? train : router::read_examples(argv[a - 1]);
    std::ofstream out(argv[a]);
    for (const auto& e : examples) {
      auto ids = tok.encode(e.text);
      if (ids.size() > max_len) ids.resize(max_len);
      out << index.at(e.label) << '\t';
      for (size_t i = 0; i < ids.size(); ++i) out << (i ? " " : "") << ids[i];
      out << '\n';
    }
  }
}
EOF
g++ -std=c++20 -O2 -Ilib "$OUT/encode_ids.cc" "$BUILD/lib/librouter_lib.a" \
  -lsentencepiece -lsentencepiece_train -lspdlog -lfmt -pthread -o "$OUT/encode_ids"
"$OUT/encode_ids" "$CLINC/train.jsonl" 4000 128 "$OUT/meta.json" "$OUT/train.ids" \
  "$OUT/valid150.jsonl" "$OUT/valid150.ids"
awk -F'\t' '{n += split($2, a, " ")}
  END {printf "token ids: %d examples, %.2f tokens each\n", NR, n / NR}' "$OUT/train.ids" >&2

# --- OpenBLAS for the torch side ---------------------------------------------------------------
# shellcheck source=bench/openblas.sh
source bench/openblas.sh  # the working directory is the repository root

# --- timing -----------------------------------------------------------------------------------
mean_after_first() { awk 'NR > 1 {s += $1; n++} END {printf "%.2f", s / n}'; }

# router_run THREADS -> seconds per epoch
router_run() {
  "$ROUTER" train --train "$CLINC/train.jsonl" --valid "$OUT/valid150.jsonl" -o "$OUT/router.json" \
    "${ARCH[@]}" "${RULES[@]}" "${ROUTER_ONLY[@]}" --vocab-size 4000 --epochs "$EPOCHS" \
    --patience 1000 --threads "$1" 2> "$OUT/router.log"
  # "epoch k/N ... 1234 ex/s": examples / seconds of that epoch (steps + validation).
  local n
  n=$(wc -l < "$CLINC/train.jsonl")
  grep -o '[0-9]* ex/s' "$OUT/router.log" | awk -v n="$n" '{printf "%.4f\n", n / $1}' |
    mean_after_first
}

# torch_run VARIANT THREADS BLAS_DIR|"" WAIT_POLICY [EPOCHS [MAX_STEPS]] -> seconds per epoch
torch_run() {
  local env=(OPENBLAS_NUM_THREADS="$2" OMP_WAIT_POLICY="$4")
  [[ -n "$3" ]] && env+=(LD_LIBRARY_PATH="$3")
  env "${env[@]}" "$PY" bench/torch_train_speed.py --variant "$1" --threads "$2" \
    --train-ids "$OUT/train.ids" --valid-ids "$OUT/valid150.ids" --meta "$OUT/meta.json" \
    --epochs "${5:-$EPOCHS}" --max-steps "${6:-0}" "${ARCH[@]}" "${RULES[@]}" \
    2>> "$OUT/torch.log" | tee -a "$OUT/torch.json" |
    "$PY" -c 'import json, sys; print("\n".join(map(str, json.load(sys.stdin)["epoch_seconds"])))' |
    mean_after_first
}

: > "$OUT/torch.log"
: > "$OUT/torch.json"
: > "$OUT/runs.tsv"
row() { printf '%s\t%s\t%s\t%s\n' "$@" | tee -a "$OUT/runs.tsv"; }
printf 'round\tthreads\trun\ts_per_epoch\n'
for round in $(seq 1 "$ROUNDS"); do
  row "$round" 2 router "$(router_run 2)"
  row "$round" 2 torch_reference "$(torch_run reference 2 "$OPENBLAS_DIR" PASSIVE)"
  row "$round" 2 torch_tuned "$(torch_run tuned 2 "$OPENBLAS_DIR" PASSIVE)"
  row "$round" 1 router "$(router_run 1)"
  row "$round" 1 torch_reference "$(torch_run reference 1 "$OPENBLAS_DIR" PASSIVE)"
  row "$round" 1 torch_tuned "$(torch_run tuned 1 "$OPENBLAS_DIR" PASSIVE)"
done
if (( SAMPLE_STEPS > 0 )); then
  row sampled 2 torch_reference_default_blas \
    "$(torch_run reference 2 "" PASSIVE 2 "$SAMPLE_STEPS")"
  row sampled 2 torch_reference_busy_wait \
    "$(torch_run reference 2 "$OPENBLAS_DIR" ACTIVE 2 "$SAMPLE_STEPS")"
fi
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Summary: mean over rounds per (threads, run), and its ratio to router at the same threads.
echo
printf 'threads\trun\tmean_s_per_epoch\tx_router\n'
awk -F'\t' '{s[$2 "\t" $3] += $4; n[$2 "\t" $3]++}
  END {for (k in s) {split(k, a, "\t"); m[k] = s[k] / n[k]; if (a[2] == "router") r[a[1]] = m[k]}
       for (k in s) {split(k, a, "\t")
                     printf "%s\t%s\t%.2f\t%.2f\n", a[1], a[2], m[k], m[k] / r[a[1]]}}' \
  "$OUT/runs.tsv" | sort -k1,1nr -k3,3n
