#!/usr/bin/env bash
# Times whole commands against each other on a noisy machine: ROUNDS rounds of hyperfine, each
# running every command RUNS times in turn, so that a slow minute falls on all of them alike.
# Prints each command's median, 25th and 75th percentile over all its runs, and the lowest and
# highest of its per-round medians (milliseconds): the spread of the host's pace over the run.
#
#   bench/alternate.sh 'build/apps/router classify -f email.txt' \
#                      'old/apps/router classify -f email.txt'
#
# Environment: ROUNDS (10), RUNS (20), OUT (/tmp/alternate-bench).
set -euo pipefail
ROUNDS=${ROUNDS:-10}
RUNS=${RUNS:-20}
OUT=${OUT:-/tmp/alternate-bench}
mkdir -p "$OUT"
rm -f "$OUT"/round-*.json
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((r = 1; r <= ROUNDS; r++)); do
  # Quiet but for errors: a command that fails stops the script with hyperfine's message.
  hyperfine -N --style none --warmup 3 --runs "$RUNS" --export-json "$OUT/round-$r.json" "$@"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
/usr/bin/python3 - "$OUT" <<'PY'
import glob, json, statistics, sys
times, rounds = {}, {}
for f in sorted(glob.glob(f"{sys.argv[1]}/round-*.json")):
    for r in json.load(open(f))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
        rounds.setdefault(r["command"], []).append(statistics.median(r["times"]))
print("| command | runs | median ms | p25 | p75 | round medians, min | max |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for command, t in times.items():
    q = statistics.quantiles(t, n=4)
    ms = [statistics.median(t), q[0], q[2], min(rounds[command]), max(rounds[command])]
    print(f"| `{command}` | {len(t)} | " + " | ".join(f"{x * 1e3:.2f}" for x in ms) + " |")
PY
