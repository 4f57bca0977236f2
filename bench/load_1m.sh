#!/usr/bin/env bash
# Load test: `router batch` over 1,000,000 JSON Lines records in a release build.
#
#   bench/load_1m.sh        # prints wall time, records/s and peak RSS for --threads 2 and 1
#
# The input is the texts of data/crumb/test.jsonl cycled, each record {"id": N, "text": ...}
# with N = 0, 1, 2, ... in file order. Checks: both runs exit 0; the 2-thread output has exactly
# one line per record, line N is record N ("id" N first, then "text", then "prediction"); and
# the 1-thread output is byte-identical. Exits 1 on any failure. Built-in model (crumb).
#
# Environment: ROUTER (default build-rel/apps/router), OUT (/tmp/router-load-1m), RECORDS
# (1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=${ROUTER:-build-rel/apps/router}
OUT=${OUT:-/tmp/router-load-1m}
RECORDS=${RECORDS:-1000000}
mkdir -p "$OUT"
in=$OUT/in.jsonl

# Texts as JSON strings, one per line, straight from the test split (keys are in a fixed order
# there: "id", "text", ...).
sed -n 's/^{"id": "[^"]*", "text": \("\([^"\\]\|\\.\)*"\).*/\1/p' data/crumb/test.jsonl > "$OUT/texts"
[ -s "$OUT/texts" ] || { echo "load: no texts extracted" >&2; exit 1; }
awk -v n="$RECORDS" 'NR == FNR { t[m++] = $0; next }
  END { for (i = 0; i < n; i++) printf "{\"id\":%d,\"text\":%s}\n", i, t[i % m] }' \
  "$OUT/texts" /dev/null > "$in"
echo "load: $(wc -l < "$in") records, $(du -m "$in" | cut -f1) MB in $in" >&2

status=0
for threads in 2 1; do
  /usr/bin/time -v "$ROUTER" -q batch "$in" -o "$OUT/out$threads.jsonl" --threads "$threads" \
    2> "$OUT/time$threads.txt" || { echo "load: --threads $threads failed" >&2; cat "$OUT/time$threads.txt" >&2; exit 1; }
  wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$OUT/time$threads.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time$threads.txt")
  secs=$(awk -v w="$wall" 'BEGIN { n = split(w, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }')
  printf 'threads %s  wall %s (%.1f s)  %.0f records/s  peak RSS %.1f MB\n' "$threads" "$wall" \
    "$secs" "$(awk -v n="$RECORDS" -v s="$secs" 'BEGIN { print n / s }')" \
    "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
done

# Every record once, in order, labelled.
bad=$(awk -v n="$RECORDS" '
  index($0, "{\"id\":" (NR - 1) ",\"text\":") != 1 || index($0, ",\"prediction\":{\"label\":") == 0 {
    print "line " NR ": not record " (NR - 1) " with a prediction"; exit }
  END { if (NR != n) print NR " lines for " n " records" }' "$OUT/out2.jsonl")
if [ -n "$bad" ]; then
  echo "load: FAIL: $bad" >&2
  status=1
else
  echo "load: every record labelled exactly once, in order ($RECORDS lines)"
fi
if cmp -s "$OUT/out2.jsonl" "$OUT/out1.jsonl"; then
  echo "load: --threads 2 and --threads 1 outputs are byte-identical ($(du -m "$OUT/out2.jsonl" | cut -f1) MB)"
else
  echo "load: FAIL: outputs differ between --threads 2 and --threads 1" >&2
  status=1
fi
exit $status
