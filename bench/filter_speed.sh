#!/usr/bin/env bash
# Filter mode in a procmail pipeline, router against `bogofilter -p` with a trained wordlist:
# messages per second over one mbox, one procmail process per message as an MTA would run it.
#
#   bench/filter_speed.sh      # prints two tables: through procmail, and the filter alone
#
# 1. The mbox: MESSAGES messages (10,000) made from the project's hand-written customer mail
#    (data/crumb/real-test.jsonl, then data/crumb/hand/valid.jsonl, cycled), each wrapped as an
#    RFC 5322 message (From, To, Subject, Date, Message-ID, MIME headers; the text's own
#    "Subject:" line becomes the header; UTF-8 bodies quoted-printable, ASCII ones 7bit).
# 2. The wordlist: bogofilter trained (-d DIR, -M -s / -M -n) on the mail router's built-in
#    model learned from, wrapped the same way: data/crumb/train.jsonl and
#    data/crumb/hand/train.jsonl, `other` as spam and every other label as ham.
# 3. Through procmail: `formail -s procmail -m RCFILE < mbox`, RCFILE a `:0fw` recipe piping the
#    message through the filter, then delivery into a fresh Maildir. The two rcfiles differ only
#    in the filter line: `router filter -m MODEL`, `routerc --port PORT` (the client of a
#    `router serve -m MODEL` that the script starts first, on 127.0.0.1) or `bogofilter -e -p -d
#    DIR` (-e: exit 0 for ham too, or procmail's `w` flag would throw bogofilter's output away).
#    With BASELINE=1 a fourth rcfile filters through `cat`: the pipeline's own cost.
# 4. The filter alone: `formail -s FILTER < mbox > out`, no procmail.
# Rounds alternate (router, bogofilter[, cat], router, ...), ROUNDS of each, after one untimed
# warm-up of each on 200 messages. Each round is timed by the wall clock (messages/s) and in CPU
# time (user + system of formail and all under it: less moved by other work on a shared host;
# for routerc, the service's CPU time during the round is added), with the load average at its
# end. Each round checks that all MESSAGES were delivered (files in
# new/, or the stamped headers in the output) and that router's carry X-Router-Label.
#
# 5. One message, one process (hyperfine, ONE_RUNS runs): router filter, routerc and
#    bogofilter -p, and what part of router's time is start-up, mail parsing and the model.
#
# Environment: ROUTER (build/apps/router; routerc beside it), MODEL (crumb), BOGOFILTER
# (bogofilter), MESSAGES (10000), ROUNDS (3), BASELINE (1), ONE_RUNS (200). Temporary files live
# in a mktemp -d folder, removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUTER=$(realpath "${ROUTER:-build/apps/router}")
ROUTERC=$(dirname "$ROUTER")/routerc
MODEL=${MODEL:-crumb}
BOGOFILTER=$(command -v "${BOGOFILTER:-bogofilter}")
MESSAGES=${MESSAGES:-10000}
ROUNDS=${ROUNDS:-3}
BASELINE=${BASELINE:-1}
ONE_RUNS=${ONE_RUNS:-200}
PY=/usr/bin/python3
for tool in procmail formail "$ROUTER" "$ROUTERC" "$BOGOFILTER"; do
  command -v "$tool" > /dev/null || { echo "filter_speed: $tool not found" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/filter-speed.XXXXXX")
serve_pid=
trap '[[ -n $serve_pid ]] && kill "$serve_pid" 2> /dev/null; rm -rf "$work"' EXIT

# --- the mailboxes ------------------------------------------------------------------------------
"$PY" - "$MESSAGES" "$work" data/crumb <<'PY'
import json, quopri, sys
from email.header import Header
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

n, work, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
load = lambda name: [json.loads(l) for l in open(f"{src}/{name}", encoding="utf-8") if l.strip()]
ist = timezone(timedelta(hours=5, minutes=30))
start = datetime(2026, 11, 11, 9, 0, tzinfo=ist)

def split_subject(text):
    # The text's own first line "Subject: ..." is the Subject header; otherwise it is empty.
    if not text.startswith("Subject:"):
        return "", text
    first, _, body = text.partition("\n")
    return first[len("Subject:"):].strip(), body.lstrip("\n")

def message(i, text, domain):
    subject, body = split_subject(text)
    if not subject.isascii():
        subject = Header(subject, "utf-8").encode()
    if body.isascii():
        cte = "7bit"
    else:
        cte = "quoted-printable"
        body = quopri.encodestring(body.encode("utf-8")).decode("ascii")
    body = "\n".join(">" + l if l.startswith("From ") else l for l in body.split("\n"))
    when = start + timedelta(minutes=7 * i)
    envelope = when.astimezone(timezone.utc).strftime("%a %b %d %H:%M:%S %Y")
    return (f"From customer{i}@{domain} {envelope}\n"
            f"From: Customer {i} <customer{i}@{domain}>\nTo: support@crumb.in\n"
            f"Subject: {subject}\nDate: {format_datetime(when)}\n"
            f"Message-ID: <{i}.{when.strftime('%Y%m%d%H%M')}@{domain}>\nMIME-Version: 1.0\n"
            f"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: {cte}\n\n"
            f"{body}\n\n")

mail = load("real-test.jsonl") + load("hand/valid.jsonl")
# One message alone for the per-process breakdown, and its body as plain text (no header block).
one = message(0, mail[0]["text"], "example.in")
open(f"{work}/one.eml", "w", encoding="utf-8").write(one.split("\n", 1)[1])  # no "From " line
open(f"{work}/one.txt", "w", encoding="utf-8").write(split_subject(mail[0]["text"])[1] + "\n")
with open(f"{work}/inbox.mbox", "w", encoding="utf-8", newline="\n") as out:
    for i in range(n):
        out.write(message(i, mail[i % len(mail)]["text"], "example.in"))
with open(f"{work}/warmup.mbox", "w", encoding="utf-8", newline="\n") as out:
    for i in range(200):
        out.write(message(i, mail[-1 - i]["text"], "example.in"))
train = load("train.jsonl") + load("hand/train.jsonl")
with open(f"{work}/spam.mbox", "w", encoding="utf-8", newline="\n") as spam, \
        open(f"{work}/ham.mbox", "w", encoding="utf-8", newline="\n") as ham:
    for i, r in enumerate(train):
        (spam if r["label"] == "other" else ham).write(message(i, r["text"], "example.org"))
PY
echo "mbox: $MESSAGES messages, $(du -h "$work/inbox.mbox" | cut -f1)" >&2

# --- bogofilter's wordlist ----------------------------------------------------------------------
mkdir "$work/wordlist"
"$BOGOFILTER" -d "$work/wordlist" -M -s < "$work/spam.mbox"
"$BOGOFILTER" -d "$work/wordlist" -M -n < "$work/ham.mbox"
spam_n=$(grep -c '^From customer' "$work/spam.mbox")
ham_n=$(grep -c '^From customer' "$work/ham.mbox")
tokens=$(bogoutil -d "$work/wordlist/wordlist.db" | grep -vc '^\.MSG_COUNT')
wordlist="$spam_n spam and $ham_n ham messages, $tokens tokens, $(du -h "$work/wordlist/wordlist.db" | cut -f1)"
echo "bogofilter wordlist: $wordlist" >&2

# --- routerc's service -------------------------------------------------------------------------
"$ROUTER" serve -m "$MODEL" --port 0 2> "$work/serve.log" &
serve_pid=$!
for _ in $(seq 100); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/serve.log")
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "filter_speed: router serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
# The service's CPU time so far, in clock ticks (utime + stime of /proc/PID/stat).
serve_ticks() { awk '{ print $14 + $15 }' "/proc/$serve_pid/stat"; }
ticks_per_s=$(getconf CLK_TCK)

# --- the recipes: one template, only the filter line differs -----------------------------------
declare -A FILTER=(
  [router]="$ROUTER filter -m $MODEL"
  [routerc]="$ROUTERC --port $port"
  [bogofilter]="$BOGOFILTER -e -p -d $work/wordlist"
  [cat]="cat"
)
declare -A STAMP=([router]='^X-Router-Label: ' [routerc]='^X-Router-Label: ' [bogofilter]='^X-Bogosity: ' [cat]='^Message-ID: ')
tools=(router routerc bogofilter)
((BASELINE)) && tools+=(cat)
for t in "${tools[@]}"; do
  cat > "$work/$t.rc" <<EOF
SHELL=/bin/sh
MAILDIR=$work/mail-$t
LOGFILE=$work/$t.log
LOGABSTRACT=no
:0fw
| ${FILTER[$t]}
:0
inbox/
EOF
done

# Runs one round; prints its wall-clock and CPU seconds (user + system of formail and of every
# process under it). $1 = procmail | alone, $2 = the tool, $3 = the mbox.
round() {
  local mode=$1 t=$2 mbox=$3 before
  before=$(serve_ticks)
  rm -rf "$work/mail-$t" "$work/$t.out"
  [[ $mode == procmail ]] && mkdir "$work/mail-$t"
  if [[ $mode == procmail ]]; then
    /usr/bin/time -f '%e %U %S' -o "$work/time.txt" \
      formail -s procmail -m "$work/$t.rc" < "$mbox"
  else
    # Word splitting of the filter line is meant: it is a command and its arguments.
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %U %S' -o "$work/time.txt" \
      formail -s ${FILTER[$t]} < "$mbox" > "$work/$t.out"
  fi
  local served=0
  [[ $t == routerc ]] && served=$(( $(serve_ticks) - before ))
  awk -v s="$served" -v hz="$ticks_per_s" '{ print $1, $2 + $3 + s / hz }' "$work/time.txt"
}

# Every message delivered, each carrying the tool's header; errors in procmail's log stop the run.
check() {
  local mode=$1 t=$2 want=$3 got stamped
  if [[ $mode == procmail ]]; then
    got=$(find "$work/mail-$t/inbox/new" -type f | wc -l)
    stamped=$({ grep -l -r -E "${STAMP[$t]}" "$work/mail-$t/inbox/new" || true; } | wc -l)
    if [[ -s "$work/$t.log" ]]; then
      echo "filter_speed: procmail logged for $t:" >&2; head "$work/$t.log" >&2; exit 1
    fi
  else
    got=$(grep -c '^From customer' "$work/$t.out" || true)
    stamped=$(grep -c -E "${STAMP[$t]}" "$work/$t.out" || true)
  fi
  if ((got != want || stamped != want)); then
    echo "filter_speed: $t ($mode): $got messages out, $stamped with ${STAMP[$t]}, want $want" >&2
    exit 1
  fi
  if [[ $t == router* && $mode == procmail ]] &&
      grep -q -r '^X-Router-Error:' "$work/mail-$t/inbox/new"; then
    echo "filter_speed: router added X-Router-Error:" >&2
    grep -h -r '^X-Router-Error:' "$work/mail-$t/inbox/new" | sort | uniq -c | head >&2
    exit 1
  fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $load_before" >&2
: > "$work/times.tsv"
for mode in procmail alone; do
  if [[ $mode == alone ]]; then  # what router chose, from the last round through procmail
    labels=$(grep -h -r '^X-Router-Label:' "$work/mail-router/inbox/new" | sort | uniq -c |
      sort -rn | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $3, $1}')
  fi
  for t in "${tools[@]}"; do
    round "$mode" "$t" "$work/warmup.mbox" > /dev/null
    check "$mode" "$t" 200
  done
  for ((r = 1; r <= ROUNDS; r++)); do
    for t in "${tools[@]}"; do
      read -r wall cpu < <(round "$mode" "$t" "$work/inbox.mbox")
      check "$mode" "$t" "$MESSAGES"
      load=$(cut -d' ' -f1 /proc/loadavg)
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "$r" "$wall" "$cpu" "$load" >> "$work/times.tsv"
      printf '%s %s round %d: %.1f s, %.0f messages/s, %.1f CPU s (load %s)\n' "$mode" "$t" "$r" \
        "$wall" "$(echo "$MESSAGES / $wall" | bc -l)" "$cpu" "$load" >&2
    done
  done
done
# --- one message, one process: where each filter's time goes ----------------------------------
# Through a shell for the redirection; hyperfine subtracts the shell's own start.
hyperfine --style none --warmup 20 --runs "$ONE_RUNS" --export-json "$work/one.json" \
  -n "router filter -m $MODEL < one.eml" "$ROUTER filter -m $MODEL < $work/one.eml" \
  -n "routerc --port PORT < one.eml (router serve answers)" "$ROUTERC --port $port < $work/one.eml" \
  -n "bogofilter -e -p -d WORDLIST < one.eml" \
  "$BOGOFILTER -e -p -d $work/wordlist < $work/one.eml" \
  -n "router classify < one.txt (its body: no mail parsing)" "$ROUTER classify < $work/one.txt" \
  -n "router --version (start, parse options, exit)" "$ROUTER --version" \
  -n "bogofilter -V (start, exit)" "$BOGOFILTER -V" \
  -n "cat < one.eml" "cat < $work/one.eml" > /dev/null
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average after: $load_after" >&2
bogosity=$(grep -h '^X-Bogosity:' "$work/bogofilter.out" | cut -d, -f1 | sort | uniq -c |
  awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $3, $1}')

# --- the tables --------------------------------------------------------------------------------
"$PY" - "$work/times.tsv" "$MESSAGES" "$work/one.json" "$ONE_RUNS" <<'PY'
import json, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
n = int(sys.argv[2])
title = {"procmail": "through procmail (formail -s procmail -m RCFILE, :0fw filter, Maildir)",
         "alone": "the filter alone (formail -s FILTER > file)"}
for mode in ("procmail", "alone"):
    rate, cpu, load = {}, {}, []
    for m, t, r, wall, c, l in rows:
        if m == mode:
            rate.setdefault(t, []).append(n / float(wall))
            cpu.setdefault(t, []).append(1000 * float(c) / n)
            load.append(l)
    print(f"\n{title[mode]}, {n} messages, messages/s (load average at the end of each round: "
          f"{min(load)}-{max(load)}):")
    rounds = max(len(v) for v in rate.values())
    print("| filter | " + " | ".join(f"round {i + 1}" for i in range(rounds)) +
          " | median | ms a message | over `cat` | CPU ms a message |")
    print("| --- |" + " ---: |" * (rounds + 4))
    ms = {t: 1000 / statistics.median(v) for t, v in rate.items()}
    for t, v in rate.items():
        over = f"{ms[t] - ms['cat']:.2f}" if "cat" in ms else "-"
        print(f"| {t} | " + " | ".join(f"{x:.0f}" for x in v) +
              f" | **{statistics.median(v):.0f}** | {ms[t]:.2f} | {over} | "
              f"{statistics.median(cpu[t]):.2f} |")
    for t in ("router", "routerc"):
        ratio = statistics.median(rate[t]) / statistics.median(rate["bogofilter"])
        cpu_ratio = statistics.median(cpu["bogofilter"]) / statistics.median(cpu[t])
        print(f"{t} / bogofilter: {ratio:.2f} in messages/s (median rates), "
              f"{cpu_ratio:.2f} in messages per CPU second (median CPU times)")

print(f"\none message, one process (the mbox's first; hyperfine, {sys.argv[4]} runs each):")
print("| command | median ms | user ms | system ms |")
print("| --- | ---: | ---: | ---: |")
for r in json.load(open(sys.argv[3]))["results"]:
    print(f"| `{r['command']}` | {r['median'] * 1e3:.2f} | {r['user'] * 1e3:.2f} | "
          f"{r['system'] * 1e3:.2f} |")
PY
echo
echo "router's labels (last procmail round): $labels"
echo "bogofilter's verdicts (last alone round): $bogosity"
echo "bogofilter wordlist: $wordlist"
echo "load average before: $load_before; after: $load_after"
