#!/usr/bin/env python3
"""Checks hand-written Crumb email files (JSON Lines) against data/crumb/GUIDELINES.md's format.

Each line: {"id": str, "text": str, "label": one of the nine labels, "pair": null or str,
"writer": str}. Ids are unique; a pair id is shared by exactly two emails whose labels differ and
whose tokens (case ignored) are the same multiset. Tokens follow router's pre-tokeniser
(lib/text/pretokenize.h) closely enough for this: a word is a run of letters and marks, with an
apostrophe between two letters inside it ("cake's" is one token, not three), a number is a run
of digits, and any other visible character is a token of its own. No email may hold
an example of GUIDELINES.md of five words or more word for word: the examples are the labels'
definitions, and a test writer reading the same document may write them too. Prints counts per
label and the share of emails in pairs; exits 1 with one line per problem.
Usage: tools/crumb_hand_check.py FILE.jsonl [FILE.jsonl ...]
"""
import collections
import json
import pathlib
import re
import sys
import unicodedata

LABELS = ["refund_item", "refund_delivery_fee", "replace_item", "cancel_order", "change_order",
          "order_status", "feedback", "general_inquiry", "other"]
APOSTROPHES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\uff07": "'"})
GUIDELINES = pathlib.Path(__file__).resolve().parent.parent / "data/crumb/GUIDELINES.md"


def kind(c):
    return unicodedata.category(c)[0] if c else ""


def pretokens(text):
    t = text.lower().translate(APOSTROPHES)
    out, i = [], 0
    while i < len(t):
        c, j = t[i], i + 1
        if c.isspace() or unicodedata.category(c) == "Cf":
            i = j
            continue
        if kind(c) == "L":
            while j < len(t):
                nxt = t[j + 1] if j + 1 < len(t) else ""
                if kind(t[j]) in "LM" or (t[j] in "'\u200c\u200d" and kind(nxt) == "L"):
                    j += 1
                else:
                    break
        elif unicodedata.category(c) == "Nd":
            while j < len(t) and unicodedata.category(t[j]) == "Nd":
                j += 1
        else:
            while j < len(t) and kind(t[j]) == "M":
                j += 1
        out.append(t[i:j])
        i = j
    return out


def tokens(text):
    return collections.Counter(pretokens(text))


def words(text):
    """The words and numbers of text, punctuation dropped, as " w1 w2 ... " for substring search."""
    return " " + " ".join(t for t in pretokens(text) if t[0].isalnum()) + " "


def guideline_examples():
    """The quoted examples of GUIDELINES.md of five words or more, as words()."""
    quoted = re.findall(r'"([^"]+)"', GUIDELINES.read_text(encoding="utf-8"))
    return {words(q): " ".join(q.split()) for q in quoted if len(words(q).split()) >= 5}


def main(paths):
    problems, seen, pairs = [], set(), collections.defaultdict(list)
    per_label, total = collections.Counter(), 0
    examples = guideline_examples()
    for path in paths:
        try:
            f = open(path, encoding="utf-8")
        except OSError as e:
            problems.append(f"{path}: cannot read ({e.strerror})")
            continue
        with f:
            for n, line in enumerate(f, 1):
                where = f"{path}:{n}"
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    problems.append(f"{where}: not JSON ({e})")
                    continue
                if set(r) != {"id", "text", "label", "pair", "writer"}:
                    problems.append(f"{where}: keys must be id, text, label, pair, writer")
                    continue
                if r["id"] in seen:
                    problems.append(f"{where}: id {r['id']} used twice")
                seen.add(r["id"])
                if r["label"] not in LABELS:
                    problems.append(f"{where}: unknown label {r['label']!r}")
                if not isinstance(r["text"], str) or not r["text"].strip():
                    problems.append(f"{where}: empty text")
                else:
                    text = words(r["text"])
                    for key, example in examples.items():
                        if key in text:
                            problems.append(f"{where}: copies the guidelines' example {example!r}; "
                                            "write your own words")
                total += 1
                per_label[r["label"]] += 1
                if r["pair"] is not None:
                    pairs[r["pair"]].append((where, r))
    in_pairs = 0
    for pid, members in pairs.items():
        if len(members) != 2:
            problems.append(f"pair {pid}: {len(members)} emails, not 2 ({members[0][0]})")
            continue
        (wa, a), (wb, b) = members
        in_pairs += 2
        if a["label"] == b["label"]:
            problems.append(f"pair {pid} ({wa}, {wb}): both sides are {a['label']}")
        ta, tb = tokens(a["text"]), tokens(b["text"])
        if ta != tb:
            only_a = sorted((ta - tb).elements())
            only_b = sorted((tb - ta).elements())
            problems.append(f"pair {pid} ({wa}, {wb}): tokens differ: only in first {only_a}, "
                            f"only in second {only_b}")
    for label in LABELS:
        print(f"{label:20} {per_label[label]:5}")
    share = in_pairs / total if total else 0
    print(f"{'total':20} {total:5}   in pairs {in_pairs} ({share:.1%})")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
