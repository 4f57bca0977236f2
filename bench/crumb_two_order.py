#!/usr/bin/python3
"""Swap pairs that name two orders, against all the others, for the Crumb models.

A pair "names two orders" when its text holds two or more different order numbers (CR-48213,
CR48213, #48213, ...): one order delivered and one to come, say, and the request picks one, so
the label turns on which order is meant (cancel or refund, change or replace). For each model,
prints the pairs it gets right (both emails) on each file, two-order pairs and the rest apart.
The default files are both judges and the hand-written training mail: on the training mail the
numbers say how much of such pairs a model fits, not how it generalises. Usage (from the
project root, after scripts/build.sh):

    bench/crumb_two_order.py [--router build/apps/router] [--files a.jsonl,b.jsonl] MODEL...
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

from jsonl import load

ORDER_NUMBER = re.compile(r"(?:CR-?|#)\s?(\d{4,6})")
FILES = ["data/crumb/judge.jsonl", "data/crumb/judge2.jsonl", "data/crumb/hand/train.jsonl"]


def names_two_orders(text):
    return len(set(ORDER_NUMBER.findall(text))) >= 2


def pair_counts(records):
    """{"two": [right, total], "rest": [right, total]} over the pair groups of labelled records."""
    groups = collections.defaultdict(list)
    for r in records:
        if r.get("pair"):
            groups[r["pair"]].append(r)
    counts = {"two": [0, 0], "rest": [0, 0]}
    for group in groups.values():
        c = counts["two" if names_two_orders(group[0]["text"]) else "rest"]
        c[0] += all(r["prediction"]["label"] == r["label"] for r in group)
        c[1] += 1
    return counts


def share(right, total):
    return f"{right}/{total} ({100 * right / total:.1f}%)" if total else "0/0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", metavar="MODEL")
    ap.add_argument("--router", default="build/apps/router")
    ap.add_argument("--files", default=",".join(FILES))
    args = ap.parse_args()
    files = args.files.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.jsonl")
        print("model\tfile\ttwo-order pairs\tother pairs")
        for model in args.models:
            for path in files:
                subprocess.run([args.router, "-q", "batch", path, "-m", model, "-o", out],
                               check=True)
                c = pair_counts(load(out))
                print(f"{model}\t{path}\t{share(*c['two'])}\t{share(*c['rest'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
