#!/usr/bin/env bash
# Whole-process comparison, router vs Debian's fastText vs the PyTorch reference, in one run:
#
#   bench/compare.sh      # prints one table: medians, peak memory, and ratios to router
#
# 1. Cold start, one email, from process start to the label printed (hyperfine, medians):
#    `router classify -f email.txt` (built-in model), the same reading stdin (`router classify
#    < email.txt`, through a shell; hyperfine subtracts the shell's own start-up), the same with
#    `-m models/crumb.json` (the JSON loader), `fasttext predict MODEL.bin email.txt` with a small
#    model trained here on data/crumb/train.jsonl (word n-grams 1-2, dim 16, 100,000 buckets), and
#    `python3 -c 'import torch'` (the PyTorch reference cannot start faster than its import).
# 2. Batch throughput on EMAILS emails (data/crumb/test.jsonl repeated): `router batch` (2
#    threads), `fasttext predict` (one email per line; single-threaded by design), and
#    bench/torch_batch.py (set up as in bench/batch_speed.sh) at batch size TORCH_BATCH (length-sorted unless TORCH_SORT=0; default:
#    the best setting found by bench/batch_speed.sh if its output is in BATCH_OUT, else 128) on ids
#    from `router tokenize`, timed separately. Whole processes, hyperfine medians of RUNS runs.
# 3. Peak RSS of each cold-start command and of each batch job (/usr/bin/time).
#
# Environment: ROUTER (build/apps/router), OUT (/tmp/compare-bench), EMAILS (100000), RUNS (3),
# COLD_RUNS (40), BATCH_OUT (/tmp/batch-speed-bench), TORCH_BATCH, TORCH_SORT, OPENBLAS_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=$(realpath "${ROUTER:-build/apps/router}")
OUT=${OUT:-/tmp/compare-bench}
EMAILS=${EMAILS:-100000}
RUNS=${RUNS:-3}
COLD_RUNS=${COLD_RUNS:-40}
BATCH_OUT=${BATCH_OUT:-/tmp/batch-speed-bench}
PY=/usr/bin/python3
mkdir -p "$OUT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- data --------------------------------------------------------------------------------------
"$PY" - data/crumb "$OUT" "$EMAILS" <<'PY'
import json, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def load(name):
    return [json.loads(l) for l in open(f"{src}/{name}", encoding="utf-8") if l.strip()]
one_line = lambda t: " ".join(t.split())
train, test = load("train.jsonl"), load("test.jsonl")
with open(f"{out}/ft_train.txt", "w", encoding="utf-8") as f:
    for r in train:
        f.write(f"__label__{r['label']} {one_line(r['text'])}\n")
with open(f"{out}/ft_test.txt", "w", encoding="utf-8") as f:
    for r in test:
        f.write(f"__label__{r['label']} {one_line(r['text'])}\n")
with open(f"{out}/email.txt", "w", encoding="utf-8") as f:
    f.write(test[0]["text"] + "\n")
with open(f"{out}/email_line.txt", "w", encoding="utf-8") as f:
    f.write(one_line(test[0]["text"]) + "\n")
with open(f"{out}/emails.jsonl", "w", encoding="utf-8") as f, \
        open(f"{out}/emails.txt", "w", encoding="utf-8") as g:
    for i in range(n):
        t = test[i % len(test)]["text"]
        f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
        g.write(one_line(t) + "\n")
PY

# --- fastText: a small model -------------------------------------------------------------------
fasttext supervised -input "$OUT/ft_train.txt" -output "$OUT/ft" -wordNgrams 2 -dim 16 \
  -bucket 100000 -epoch 25 -lr 0.5 -thread 2 -seed 1 -verbose 0
ft_acc=$(fasttext test "$OUT/ft.bin" "$OUT/ft_test.txt" | awk '/^P@1/ {print $2}')
echo "fastText model: $(du -h "$OUT/ft.bin" | cut -f1), test P@1 $ft_acc" >&2

# --- OpenBLAS for the torch side (see bench/train_speed.sh) -----------------------------------
if [[ -z "${OPENBLAS_DIR:-}" ]]; then
  OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
  for d in "$OUT" "$BATCH_OUT"; do
    [[ -e "$OPENBLAS_DIR/libblas.so.3" ]] && break
    OPENBLAS_DIR="$d/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread"
  done
  if [[ ! -e "$OPENBLAS_DIR/libblas.so.3" ]]; then
    echo "unpacking Debian's libopenblas0-pthread into $OUT/openblas (not installed)" >&2
    (cd "$OUT" && apt-get download libopenblas0-pthread > /dev/null 2>&1)
    dpkg-deb -x "$OUT"/libopenblas0-pthread_*.deb "$OUT/openblas"
    OPENBLAS_DIR="$OUT/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread"
  fi
fi
if [[ -z "${TORCH_BATCH:-}" ]]; then
  TORCH_BATCH=128
  TORCH_SORT=${TORCH_SORT:-1}
  if [[ -s "$BATCH_OUT/torch_search.jsonl" ]]; then
    read -r TORCH_BATCH TORCH_SORT < <(tail -n 1 "$BATCH_OUT/torch_search.jsonl" | "$PY" -c \
      'import json,sys; b=json.load(sys.stdin)["best"]; print(b["batch_size"], int(b["sorted"]))')
  fi
fi
TORCH_SORT=${TORCH_SORT:-1}
sort_flag=""
(( TORCH_SORT )) && sort_flag="--sort"
# As in bench/batch_speed.sh: passive OpenMP waiting, OpenBLAS, glibc keeping freed memory.
TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824
TORCH_ENV="OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=2 LD_LIBRARY_PATH=$OPENBLAS_DIR GLIBC_TUNABLES=$TUNABLES"

# --- 1. cold start -----------------------------------------------------------------------------
hyperfine -N --warmup 5 --runs "$COLD_RUNS" --export-json "$OUT/cold.json" \
  -n "router classify -f (built-in)" "$ROUTER classify -f $OUT/email.txt" \
  -n "router classify -m crumb.json" "$ROUTER classify -m models/crumb.json -f $OUT/email.txt" \
  -n "fasttext predict" "fasttext predict $OUT/ft.bin $OUT/email_line.txt" \
  > "$OUT/cold.txt"
hyperfine --warmup 5 --runs "$COLD_RUNS" --export-json "$OUT/cold_stdin.json" \
  -n "router classify < stdin (built-in)" "$ROUTER classify < $OUT/email.txt" \
  -n "fasttext predict - < stdin" "fasttext predict $OUT/ft.bin - < $OUT/email_line.txt" \
  > "$OUT/cold_stdin.txt"
hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/import.json" \
  -n "python3 -c 'import torch'" "$PY -c 'import torch'" > "$OUT/import.txt"

# --- 2. batch throughput -----------------------------------------------------------------------
start=$(date +%s.%N)
"$ROUTER" tokenize "$OUT/emails.jsonl" -o "$OUT/ids.jsonl"
tokenize_s=$(echo "$(date +%s.%N) - $start" | bc)
hyperfine --runs "$RUNS" --export-json "$OUT/batch.json" \
  -n "router batch" "$ROUTER batch $OUT/emails.jsonl --threads 2 > $OUT/router_out.jsonl" \
  -n "fasttext predict" "fasttext predict $OUT/ft.bin $OUT/emails.txt > $OUT/ft_out.txt" \
  -n "torch_batch.py" "env $TORCH_ENV $PY bench/torch_batch.py --model models/crumb.json \
     --ids $OUT/ids.jsonl --threads 2 --batch-size $TORCH_BATCH $sort_flag \
     --labels $OUT/torch_labels.txt" > "$OUT/batch.txt"

# --- 3. peak memory ----------------------------------------------------------------------------
rss() { /usr/bin/time -f '%M' -o "$OUT/rss.one" "$@" > /dev/null 2>&1 < "$OUT/email.txt"; cat "$OUT/rss.one"; }
{
  echo "router classify -f (built-in)	$(rss "$ROUTER" classify -f "$OUT/email.txt")"
  echo "router classify < stdin (built-in)	$(rss "$ROUTER" classify)"
  echo "router classify -m crumb.json	$(rss "$ROUTER" classify -m models/crumb.json -f "$OUT/email.txt")"
  echo "fasttext predict	$(rss fasttext predict "$OUT/ft.bin" "$OUT/email_line.txt")"
  echo "fasttext predict - < stdin	$(rss fasttext predict "$OUT/ft.bin" -)"
  echo "python3 -c 'import torch'	$(rss "$PY" -c 'import torch')"
  echo "router batch	$(rss "$ROUTER" batch "$OUT/emails.jsonl" --threads 2)"
  echo "fasttext predict (batch)	$(rss fasttext predict "$OUT/ft.bin" "$OUT/emails.txt")"
  echo "torch_batch.py	$(rss env OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=2 \
    LD_LIBRARY_PATH="$OPENBLAS_DIR" GLIBC_TUNABLES="$TUNABLES" "$PY" bench/torch_batch.py --model models/crumb.json \
    --ids "$OUT/ids.jsonl" --threads 2 --batch-size "$TORCH_BATCH" $sort_flag \
    --labels "$OUT/torch_labels2.txt")"
} > "$OUT/rss.tsv"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- the table ---------------------------------------------------------------------------------
"$PY" - "$OUT" "$EMAILS" "$tokenize_s" "$TORCH_BATCH" "$TORCH_SORT" "$ft_acc" <<'PY'
import json, sys
out, n, tok_s, tb, ts, ft_acc = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:7]
med = {}
for f in ("cold", "cold_stdin", "import", "batch"):
    for r in json.load(open(f"{out}/{f}.json"))["results"]:
        med[(f, r["command"])] = r["median"]
rss = dict(l.rstrip("\n").split("\t") for l in open(f"{out}/rss.tsv"))
mb = lambda k: float(rss[k]) / 1024
base = med[("cold", "router classify -f (built-in)")]
print("Cold start, one email (median of hyperfine runs; ratio = time / router's):")
print("| command | median ms | x router -f | peak RSS MB |")
print("| --- | ---: | ---: | ---: |")
for f, c in [("cold", "router classify -f (built-in)"), ("cold_stdin", "router classify < stdin (built-in)"),
             ("cold", "router classify -m crumb.json"), ("cold", "fasttext predict"),
             ("cold_stdin", "fasttext predict - < stdin"), ("import", "python3 -c 'import torch'")]:
    print(f"| {c} | {1000 * med[(f, c)]:.2f} | {med[(f, c)] / base:.2f} | {mb(c):.1f} |")
rb = med[("batch", "router batch")]
print(f"\nBatch, {n} emails (whole processes, median of runs; emails/s; ratio = router's rate / "
      "the peer's):")
print("| command | median s | emails/s | router / peer | peak RSS MB |")
print("| --- | ---: | ---: | ---: | ---: |")
rows = [("router batch --threads 2", med[("batch", "router batch")], "router batch"),
        ("fasttext predict (1 thread)", med[("batch", "fasttext predict")], "fasttext predict (batch)"),
        (f"torch_batch.py, batch {tb}{' sorted' if int(ts) else ''}, 2 threads",
         med[("batch", "torch_batch.py")], "torch_batch.py"),
        (f"torch_batch.py + router tokenize ({tok_s:.2f} s)", med[("batch", "torch_batch.py")] + tok_s,
         None)]
for name, s, key in rows:
    print(f"| {name} | {s:.2f} | {n / s:.0f} | {s / rb:.2f} | {mb(key) if key else float('nan'):.1f} |")
print(f"\nfastText model: dim 16, word n-grams 1-2, 100,000 buckets; Crumb test P@1 {ft_acc}")
PY
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
