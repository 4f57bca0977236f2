#!/usr/bin/python3
"""Swap pairs that name two orders, against all the others, for the Crumb models.

A pair "names two orders" when its text holds two or more different order numbers written
CR-48213, CR48213, CR 48213 or #48213 (four to six digits; "order no 48213" and lower-case "cr"
are not counted): one order delivered and one to come, say, and the request picks one, so
the label turns on which order is meant (cancel or refund, change or replace). For each model,
prints the pairs it gets right (both emails) on each file, two-order pairs and the rest apart.
The default files are both judges and the hand-written training mail: on the training mail the
numbers say how much of such pairs a model fits, not how it generalises. Usage (from the
project root, after scripts/build.sh):

    bench/crumb_two_order.py [--router build/apps/router] [--files a.jsonl,b.jsonl] MODEL...
"""
import argparse
import collections
import re
import subprocess
import sys
import tempfile

from crumb_real import router_predict
from jsonl import load

ORDER_NUMBER = re.compile(r"(?:CR-?|#)\s?(\d{4,6})")
FILES = ["data/crumb/judge.jsonl", "data/crumb/judge2.jsonl", "data/crumb/hand/train.jsonl"]


def names_two_orders(text):
    return len(set(ORDER_NUMBER.findall(text))) >= 2


def pair_counts(records, predicted):
    """{"two": [right, total], "rest": [right, total]} over the pair groups of the records."""
    right, texts = collections.defaultdict(list), {}
    for r, p in zip(records, predicted):
        if r.get("pair"):
            right[r["pair"]].append(p == r["label"])
            texts[r["pair"]] = r["text"]  # both sides have the same words
    counts = {"two": [0, 0], "rest": [0, 0]}
    for pair, sides in right.items():
        c = counts["two" if names_two_orders(texts[pair]) else "rest"]
        c[0] += all(sides)
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
    records = {}  # each file read and checked once, before any model runs
    for path in args.files.split(","):
        try:
            records[path] = load(path)
        except (OSError, ValueError) as e:
            sys.exit(f"crumb_two_order: {path}: cannot read it as JSON Lines ({e})")
        unlabelled = next((i for i, r in enumerate(records[path], 1) if "label" not in r), None)
        if unlabelled:
            sys.exit(f"crumb_two_order: {path}: record {unlabelled} has no label")
    with tempfile.TemporaryDirectory() as tmp:
        print("model\tfile\ttwo-order pairs\tother pairs")
        for model in args.models:
            for path in records:
                try:
                    predicted, _ = router_predict(args.router, model, path, tmp)
                except subprocess.CalledProcessError:
                    sys.exit(f"crumb_two_order: router batch failed on {path} with {model}")
                c = pair_counts(records[path], predicted)
                print(f"{model}\t{path}\t{share(*c['two'])}\t{share(*c['rest'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
