#!/usr/bin/env bash
# Batch labelling throughput, router vs the PyTorch reference on the same weights, in one run:
#
#   bench/batch_speed.sh     # prints a table of emails/s, the ratios, and peak memory
#
# Input: EMAILS records (default 100,000: data/crumb/test.jsonl repeated, {"id", "text"} only),
# the built-in model for router and models/crumb.json (the same weights; the built-in model is
# packed from it) for PyTorch, loaded with tools/torch_ref.py's load_router_json.
#
# - router: `router batch IN --threads 2 -v` (one JSON record out per record in). Timed as a whole
#   process (wall clock, from outside) and as its own loop (the "-v" summary: reading, tokenising,
#   model, writing; start-up excluded). Model work alone: router_bench's BM_BatchPathPerEmail
#   (Model::logits + finish on each test email, exactly the path of `router batch`) on 2 threads.
# - PyTorch: bench/torch_batch.py on the ids that `router tokenize` wrote (the same ids router's
#   encoder sees; tokenising is therefore done for PyTorch, and timed separately here). First a
#   search over batch sizes (BATCH_SIZES), with and without length-sorted batching, on the first
#   SEARCH emails, timing the forward passes only; the best setting then runs the whole job as a
#   process (Python start, import, model load, reading ids, padding, forward, writing labels).
#   torch.set_num_threads(2), OMP_WAIT_POLICY=PASSIVE, OpenBLAS (Debian's libopenblas0-pthread,
#   unpacked into $OUT with apt-get download, not installed), as in bench/train_speed.sh, and
#   glibc's allocator told to keep freed memory (GLIBC_TUNABLES mmap_threshold 32 MiB, the
#   largest allowed, and trim_threshold 1 GiB), which is what router's main() does with mallopt:
#   on this virtual machine a page fault is expensive, and torch allocates fresh tensors for
#   every operation. One sampled row shows PyTorch's speed with glibc's defaults instead.
# - Labels: router's and PyTorch's label must be identical on every email; the script says so or
#   lists the first differences and exits 1.
# - Memory: peak RSS of `router batch` (2 threads) on a RSS_RECORDS-record JSON Lines file
#   (default 1,000,000; 0 skips), with /usr/bin/time -v.
#
# Environment: ROUTER (default build/apps/router), BENCH (default next to ROUTER: ../bench/
# router_bench), OUT (/tmp/batch-speed-bench), EMAILS, ROUNDS (2), BATCH_SIZES
# (4,8,...,512), SEARCH (10000), RSS_RECORDS, OPENBLAS_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=${ROUTER:-build/apps/router}
BENCH=${BENCH:-$(dirname "$(dirname "$ROUTER")")/bench/router_bench}
OUT=${OUT:-/tmp/batch-speed-bench}
EMAILS=${EMAILS:-100000}
ROUNDS=${ROUNDS:-2}
BATCH_SIZES=${BATCH_SIZES:-4,8,16,32,64,128,256,512}
SEARCH=${SEARCH:-10000}
RSS_RECORDS=${RSS_RECORDS:-1000000}
PY=/usr/bin/python3  # Debian's python3-torch lives there
THREADS=2
mkdir -p "$OUT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# repeat_test N FILE: the test set's {"id", "text"}, repeated to N records.
repeat_test() {
  "$PY" - "$1" data/crumb/test.jsonl "$2" <<'PY'
import json, sys
n, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
texts = [json.loads(l)["text"] for l in open(src, encoding="utf-8") if l.strip()]
with open(dst, "w", encoding="utf-8") as out:
    for i in range(n):
        out.write(json.dumps({"id": i, "text": texts[i % len(texts)]}, ensure_ascii=False) + "\n")
PY
}
[[ -s "$OUT/emails.jsonl" && $(wc -l < "$OUT/emails.jsonl") -eq $EMAILS ]] ||
  repeat_test "$EMAILS" "$OUT/emails.jsonl"

# --- OpenBLAS for the torch side -----------------------------------------------------------------
# shellcheck source=bench/openblas.sh
source bench/openblas.sh  # the working directory is the repository root
TORCH_ENV_DEFAULT_MALLOC=(OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS="$THREADS"
                          LD_LIBRARY_PATH="$OPENBLAS_DIR")
TORCH_ENV=("${TORCH_ENV_DEFAULT_MALLOC[@]}"
           GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824)

# timed FILE CMD...: runs CMD, appends "wall_s max_rss_kb" to FILE.
timed() {
  local file=$1
  shift
  /usr/bin/time -f '%e %M' -o "$file.one" "$@"
  cat "$file.one" >> "$file"
}

# --- token ids for PyTorch ----------------------------------------------------------------------
start=$(date +%s.%N)
"$ROUTER" tokenize "$OUT/emails.jsonl" -o "$OUT/ids.jsonl"
end=$(date +%s.%N)
tokenize_s=$(echo "$end - $start" | bc)
echo "router tokenize: $EMAILS emails in ${tokenize_s} s (one thread)" >&2

# --- PyTorch: best batch size (model work only) ---------------------------------------------------
env "${TORCH_ENV[@]}" "$PY" bench/torch_batch.py --model models/crumb.json --ids "$OUT/ids.jsonl" \
  --threads "$THREADS" --search "$BATCH_SIZES" --sample "$SEARCH" | tee "$OUT/torch_search.jsonl" >&2
best=$(tail -n 1 "$OUT/torch_search.jsonl")
best_b=$(echo "$best" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["best"]["batch_size"])')
best_sort=$(echo "$best" | "$PY" -c 'import json,sys; print(int(json.load(sys.stdin)["best"]["sorted"]))')
torch_model_eps=$(echo "$best" | "$PY" -c 'import json,sys; print(round(json.load(sys.stdin)["best"]["emails_per_s"]))')
sort_flag=()
(( best_sort )) && sort_flag=(--sort)
modes=unsorted
(( best_sort )) && modes=sorted
env "${TORCH_ENV_DEFAULT_MALLOC[@]}" "$PY" bench/torch_batch.py --model models/crumb.json \
  --ids "$OUT/ids.jsonl" --threads "$THREADS" --search "$best_b" --modes "$modes" \
  --sample "$SEARCH" > "$OUT/torch_default_malloc.jsonl"
torch_default_eps=$(tail -n 1 "$OUT/torch_default_malloc.jsonl" | "$PY" -c 'import json,sys; print(round(json.load(sys.stdin)["best"]["emails_per_s"]))')

# --- whole processes, alternating --------------------------------------------------------------
: > "$OUT/router.times"
: > "$OUT/torch.times"
: > "$OUT/router_loop.txt"
: > "$OUT/torch_runs.jsonl"
for round in $(seq 1 "$ROUNDS"); do
  timed "$OUT/router.times" "$ROUTER" batch "$OUT/emails.jsonl" --threads "$THREADS" -v \
    -o "$OUT/router_out.jsonl" 2> "$OUT/router.err"
  grep -o '[0-9]* emails/s' "$OUT/router.err" | cut -d' ' -f1 >> "$OUT/router_loop.txt"
  timed "$OUT/torch.times" env "${TORCH_ENV[@]}" "$PY" bench/torch_batch.py \
    --model models/crumb.json --ids "$OUT/ids.jsonl" --threads "$THREADS" \
    --batch-size "$best_b" "${sort_flag[@]}" --labels "$OUT/torch_labels.txt" >> "$OUT/torch_runs.jsonl"
  echo "round $round: router $(tail -n 1 "$OUT/router.times") / torch $(tail -n 1 "$OUT/torch.times") (wall s, max RSS kB)" >&2
done

# --- model work alone, router ------------------------------------------------------------------
"$BENCH" --benchmark_filter='BM_BatchPathPerEmail' --benchmark_format=json \
  --benchmark_min_time=2 > "$OUT/router_bench.json" 2> /dev/null
router_model_eps=$("$PY" -c '
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["name"].endswith("threads:2"):
        print(round(b["items_per_second"]))' "$OUT/router_bench.json")

# --- identical labels --------------------------------------------------------------------------
"$PY" - "$OUT/router_out.jsonl" "$OUT/torch_labels.txt" <<'PY'
import json, sys
router = [json.loads(l)["prediction"]["label"] for l in open(sys.argv[1], encoding="utf-8")]
torch = [l.rstrip("\n") for l in open(sys.argv[2], encoding="utf-8")]
diff = [i for i, (a, b) in enumerate(zip(router, torch)) if a != b]
if len(router) != len(torch) or diff:
    print(f"LABELS DIFFER: {len(router)} vs {len(torch)} records, {len(diff)} different, "
          f"first: {diff[:10]}")
    sys.exit(1)
print(f"labels: identical on all {len(router)} emails")
PY

echo "load average after the timed runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- peak memory on a large file ---------------------------------------------------------------
rss_line=""
if (( RSS_RECORDS > 0 )); then
  [[ -s "$OUT/big.jsonl" && $(wc -l < "$OUT/big.jsonl") -eq $RSS_RECORDS ]] ||
    repeat_test "$RSS_RECORDS" "$OUT/big.jsonl"
  /usr/bin/time -v "$ROUTER" batch "$OUT/big.jsonl" --threads "$THREADS" > /dev/null \
    2> "$OUT/big.time"
  rss_kb=$(grep 'Maximum resident set size' "$OUT/big.time" | awk '{print $NF}')
  big_s=$(grep 'Elapsed (wall clock)' "$OUT/big.time" | awk '{print $NF}')
  rss_line="router batch on $RSS_RECORDS records ($(du -m "$OUT/big.jsonl" | cut -f1) MB): peak RSS $((rss_kb / 1024)) MB, wall $big_s"
fi

# --- summary -----------------------------------------------------------------------------------
"$PY" - "$EMAILS" "$OUT" "$router_model_eps" "$torch_model_eps" "$best_b" "$best_sort" \
  "$tokenize_s" "$torch_default_eps" <<'PY'
import json, statistics, sys
n, out, r_model, t_model, b, srt, tok_s, t_default = sys.argv[1:9]
n, r_model, t_model, tok_s = int(n), float(r_model), float(t_model), float(tok_s)
t_default = float(t_default)
def col(path, i):
    return [float(l.split()[i]) for l in open(path) if l.strip()]
r_wall = statistics.median(col(f"{out}/router.times", 0))
t_wall = statistics.median(col(f"{out}/torch.times", 0))
r_rss = max(col(f"{out}/router.times", 1)) / 1024
t_rss = max(col(f"{out}/torch.times", 1)) / 1024
r_loop = statistics.median(col(f"{out}/router_loop.txt", 0))
runs = [json.loads(l) for l in open(f"{out}/torch_runs.jsonl")]
t_model_full = n / statistics.median(r["model_s"] for r in runs)
print(f"\n{n} emails, {2} threads each; PyTorch batch size {b}, "
      f"{'length-sorted' if int(srt) else 'input order'}")
print("| measure | router emails/s | PyTorch emails/s | router / PyTorch |")
print("| --- | ---: | ---: | ---: |")
print(f"| whole process (median wall: router {r_wall:.2f} s, PyTorch {t_wall:.2f} s) "
      f"| {n / r_wall:.0f} | {n / t_wall:.0f} | {t_wall / r_wall:.2f} |")
print(f"| PyTorch whole process + router tokenize ({tok_s:.2f} s) | {n / r_wall:.0f} "
      f"| {n / (t_wall + tok_s):.0f} | {(t_wall + tok_s) / r_wall:.2f} |")
print(f"| router's loop (-v) vs PyTorch forward passes in the job | {r_loop:.0f} "
      f"| {t_model_full:.0f} | {r_loop / t_model_full:.2f} |")
print(f"| model work only (router_bench vs best search setting) | {r_model:.0f} "
      f"| {t_model:.0f} | {r_model / t_model:.2f} |")
print(f"| model work only, PyTorch with glibc's default allocator | {r_model:.0f} "
      f"| {t_default:.0f} | {r_model / t_default:.2f} |")
print(f"peak RSS of these runs: router {r_rss:.0f} MB, PyTorch {t_rss:.0f} MB")
PY
[[ -n "$rss_line" ]] && echo "$rss_line"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
