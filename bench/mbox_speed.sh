#!/usr/bin/env bash
# Real-email throughput: `router batch --format mbox` on a 10,000-message mbox built from the
# Crumb test set (data/crumb/test.jsonl, repeated), with the built-in model. Each message gets
# headers, a quoted-printable UTF-8 text/plain body, and every third one is multipart/alternative
# with an HTML twin, so MIME parsing, decoding and cleaning are all in the timing.
#
#   bench/mbox_speed.sh      # prints messages/second (wall clock and router's own -v figure)
#
# Environment: ROUTER (default build/apps/router), OUT (default /tmp/mbox-speed-bench),
# MESSAGES (10000), THREADS (0 = all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=${ROUTER:-build/apps/router}
OUT=${OUT:-/tmp/mbox-speed-bench}
MESSAGES=${MESSAGES:-10000}
THREADS=${THREADS:-0}
mkdir -p "$OUT"

/usr/bin/python3 - "$MESSAGES" data/crumb/test.jsonl "$OUT/inbox.mbox" <<'PY'
import html, json, quopri, sys
n, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
texts = [json.loads(l)["text"] for l in open(src, encoding="utf-8") if l.strip()]
with open(dst, "w", encoding="utf-8", newline="\n") as out:
    for i in range(n):
        t = texts[i % len(texts)]
        qp = quopri.encodestring(t.encode("utf-8")).decode("ascii")
        out.write(f"From customer{i}@example.in Tue Nov 11 09:00:00 2026\n"
                  f"From: Customer {i} <customer{i}@example.in>\nTo: support@crumb.in\n"
                  f"Subject: Message {i}\nDate: Tue, 11 Nov 2026 09:00:00 +0530\n"
                  f"Message-ID: <{i}@example.in>\nMIME-Version: 1.0\n")
        plain = ("Content-Type: text/plain; charset=utf-8\n"
                 f"Content-Transfer-Encoding: quoted-printable\n\n{qp}\n")
        if i % 3:
            out.write(plain)
        else:
            page = "<html><body>" + "".join(f"<p>{html.escape(p)}</p>" for p in t.split("\n")) + "</body></html>"
            out.write(f'Content-Type: multipart/alternative; boundary="b{i}"\n\n--b{i}\n{plain}--b{i}\n'
                      f"Content-Type: text/html; charset=utf-8\n\n{page}\n--b{i}--\n")
        out.write("\n")
PY
echo "mbox: $MESSAGES messages, $(du -h "$OUT/inbox.mbox" | cut -f1)" >&2

start=$(date +%s.%N)
"$ROUTER" batch --format mbox "$OUT/inbox.mbox" --threads "$THREADS" -v \
  > "$OUT/labels.jsonl" 2> "$OUT/stderr.txt"
end=$(date +%s.%N)
grep -E "records in" "$OUT/stderr.txt" >&2 || true
records=$(wc -l < "$OUT/labels.jsonl")
awk -v n="$records" -v s="$start" -v e="$end" \
  'BEGIN { printf "mbox_speed: %d messages in %.2f s wall: %.0f messages/s\n", n, e - s, n / (e - s) }'
