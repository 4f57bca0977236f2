#!/usr/bin/env bash
# `router serve` under load: wrk against POST /classify with one-paragraph emails.
#
#   bench/serve.sh      # prints one table: connections, requests/s, p50, p99, errors, server RSS
#
# 1. The emails: every text of data/crumb/real-test.jsonl that is one paragraph of 30 to 120
#    words once its "Subject:" line is dropped (no blank line inside), sent as
#    {"text": ...} (application/json), one after another in a loop by a wrk Lua script.
# 2. The server: `router serve --port 0` on 127.0.0.1 with the built-in model and the default
#    workers (one per core; THREADS overrides), warmed up for 3 s.
# 3. wrk --latency at 1, 16 and 64 connections (wrk threads: min(2, connections)). The run at
#    16 connections lasts DURATION seconds (60: the stated goal, p99 under 5 ms with no error);
#    the others SHORT seconds. Errors are wrk's socket errors plus non-2xx answers.
# 4. The server's RSS (VmRSS) before and after each run: memory should stay flat.
# The load average is printed before and after: wrk and the server share the machine's cores.
#
# Environment: ROUTER (build/apps/router), DURATION (60), SHORT (10), THREADS, WRK (wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=$(realpath "${ROUTER:-build/apps/router}")
DURATION=${DURATION:-60}
SHORT=${SHORT:-10}
WRK=${WRK:-wrk}
tmp=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# --- the emails, as a wrk script ---------------------------------------------------------------
python3 - data/crumb/real-test.jsonl > "$tmp/post.lua" <<'PY'
import json, sys
bodies = []
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.strip():
        continue
    text = json.loads(line)["text"]
    if text.startswith("Subject:"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    text = text.strip()
    if "\n\n" in text or not 30 <= len(text.split()) <= 120:
        continue
    bodies.append(json.dumps({"text": text}, ensure_ascii=False))
if not bodies:
    sys.exit("no one-paragraph emails found")
print("bodies = {")
for b in bodies:
    print("  [==[" + b + "]==],")
print("}")
print('''
local i = 0
local headers = {["Content-Type"] = "application/json"}
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "/classify", headers, bodies[i])
end
''')
print(f"-- {len(bodies)} emails", file=sys.stderr)
PY

# --- the server --------------------------------------------------------------------------------
"$ROUTER" serve --port 0 ${THREADS:+--threads "$THREADS"} 2> "$tmp/serve.log" &
pid=$!
port=
for _ in $(seq 100); do
  port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$tmp/serve.log" | sed 's/.*://' || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$tmp/serve.log" >&2; exit 1; }
url="http://127.0.0.1:$port/classify"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores" >&2
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$WRK" -t1 -c1 -d3s -s "$tmp/post.lua" "$url" > /dev/null  # warm-up

printf '%-12s %10s %10s %10s %8s %12s %12s\n' connections 'requests/s' p50 p99 errors \
  'RSS before' 'RSS after'
for conns in 1 16 64; do
  seconds=$SHORT
  [ "$conns" = 16 ] && seconds=$DURATION
  before=$(rss)
  "$WRK" -t$((conns < 2 ? conns : 2)) -c"$conns" -d"${seconds}s" --latency -s "$tmp/post.lua" \
    "$url" > "$tmp/wrk.$conns"
  after=$(rss)
  out="$tmp/wrk.$conns"
  rps=$(awk '/^Requests\/sec/ {print $2}' "$out")
  p50=$(awk '$1 == "50%" {print $2}' "$out")
  p99=$(awk '$1 == "99%" {print $2}' "$out")
  errors=$(awk '/Socket errors/ {gsub(",", ""); s += $4 + $6 + $8 + $10} /Non-2xx/ {s += $5}
                END {print s + 0}' "$out")
  printf '%-12s %10s %10s %10s %8s %9s kB %9s kB   (%s s)\n' "$conns" "$rps" "$p50" "$p99" \
    "$errors" "$before" "$after" "$seconds"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
echo "server exit status after SIGTERM: $status" >&2
