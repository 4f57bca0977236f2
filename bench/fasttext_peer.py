#!/usr/bin/python3
"""Side by side on the Crumb test split: Debian's fastText (word n-grams 1 and 2) against router.

Trains fastText on data/crumb/train.jsonl, predicts data/crumb/test.jsonl, and compares accuracy
and swap-pair accuracy (both emails of a pair right) with the labels `router batch` gives with
the given models. Pair accuracy is also split into balanced pairs (both sides hold the same word
bigrams, so a model of words and bigrams cannot tell them apart) and the other pairs. Usage (from
the project root, after scripts/build.sh):

    bench/fasttext_peer.py [--router build/apps/router] [--models models/crumb.json,models/crumb-nopos.json]
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

import fasttext_cli
from jsonl import load, one_line


def bigrams(text):
    words = text.split()
    return sorted(zip(words, words[1:]))


def scores(records, predicted):
    """Accuracy, then pair accuracy over all, balanced and other pairs, each as (right, total)."""
    right = [p == r["label"] for p, r in zip(predicted, records)]
    pairs = collections.defaultdict(list)
    for ok, r in zip(right, records):
        if r.get("pair"):
            pairs[r["pair"]].append((ok, r["text"]))
    counts = {"all": [0, 0], "balanced": [0, 0], "other": [0, 0]}
    for (ok_a, text_a), (ok_b, text_b) in pairs.values():
        kind = "balanced" if bigrams(text_a) == bigrams(text_b) else "other"
        for k in ("all", kind):
            counts[k][0] += ok_a and ok_b
            counts[k][1] += 1
    return sum(right) / len(right), counts


def fasttext(train, test, workdir, epochs, lr):
    train_txt = os.path.join(workdir, "train.txt")
    test_txt = os.path.join(workdir, "test.txt")
    with open(train_txt, "w", encoding="utf-8") as f:
        for r in train:
            f.write(f"__label__{r['label']} {one_line(r['text'])}\n")
    with open(test_txt, "w", encoding="utf-8") as f:
        for r in test:
            f.write(one_line(r["text"]) + "\n")
    model = os.path.join(workdir, "ft")
    subprocess.run(["fasttext", "supervised", "-input", train_txt, "-output", model,
                    "-wordNgrams", "2", "-epoch", str(epochs), "-lr", str(lr), "-thread", "2",
                    "-seed", "1", "-verbose", "0"], check=True)
    out = subprocess.run(["fasttext", "predict", model + ".bin", test_txt], check=True,
                         capture_output=True, text=True).stdout.split("\n")
    return [line.replace("__label__", "") for line in out if line]


def pct(c):
    return f"{100 * c[0] / max(1, c[1]):6.2f}% ({c[0]}/{c[1]})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--router", default="build/apps/router")
    ap.add_argument("--models", default="models/crumb.json,models/crumb-nopos.json")
    ap.add_argument("--data", default="data/crumb")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--lr", type=float, default=0.5)
    a = ap.parse_args()
    fasttext_cli.require()
    train = load(os.path.join(a.data, "train.jsonl"))
    test_path = os.path.join(a.data, "test.jsonl")
    test = load(test_path)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append((f"fastText (wordNgrams 2, {a.epochs} epochs)",
                     *scores(test, fasttext(train, test, tmp, a.epochs, a.lr))))
        for model in a.models.split(","):
            out = os.path.join(tmp, "labelled.jsonl")
            subprocess.run([a.router, "-q", "batch", test_path, "-m", model, "-o", out],
                           check=True)
            predicted = [r["prediction"]["label"] for r in load(out)]
            rows.append((f"router {model}", *scores(test, predicted)))
    print(f"Crumb test split: {len(test)} emails\n")
    print(f"| {'model':<40} | accuracy | {'pairs':<17} | {'balanced pairs':<17} | {'other pairs':<17} |")
    print(f"| {'-' * 40} | -------- | {'-' * 17} | {'-' * 17} | {'-' * 17} |")
    for name, acc, c in rows:
        print(f"| {name:<40} | {100 * acc:7.2f}% | {pct(c['all']):<17} | "
              f"{pct(c['balanced']):<17} | {pct(c['other']):<17} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
