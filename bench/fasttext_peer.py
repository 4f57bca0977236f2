#!/usr/bin/python3
"""Side by side on the Crumb test split: Debian's fastText (word n-grams 1 and 2) against router.

Trains fastText on data/crumb/train.jsonl, predicts data/crumb/test.jsonl, and compares accuracy
and swap-pair accuracy (both emails of a pair right) with `router eval --json` of the given
models. Usage (from the project root, after scripts/build.sh):

    bench/fasttext_peer.py [--router build/apps/router] [--models models/crumb.json,models/crumb-nopos.json]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def one_line(text):
    return " ".join(text.split())


def scores(records, predicted):
    right = [p == r["label"] for p, r in zip(predicted, records)]
    pairs = collections.defaultdict(list)
    for ok, r in zip(right, records):
        if r.get("pair"):
            pairs[r["pair"]].append(ok)
    return sum(right) / len(right), sum(all(v) for v in pairs.values()) / max(1, len(pairs))


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--router", default="build/apps/router")
    ap.add_argument("--models", default="models/crumb.json,models/crumb-nopos.json")
    ap.add_argument("--data", default="data/crumb")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--lr", type=float, default=0.5)
    a = ap.parse_args()
    train = load(os.path.join(a.data, "train.jsonl"))
    test_path = os.path.join(a.data, "test.jsonl")
    test = load(test_path)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        acc, pair = scores(test, fasttext(train, test, tmp, a.epochs, a.lr))
        rows.append((f"fastText (wordNgrams 2, {a.epochs} epochs)", acc, pair))
    for model in a.models.split(","):
        out = subprocess.run([a.router, "eval", test_path, "-m", model, "--json"], check=True,
                             capture_output=True, text=True).stdout
        e = json.loads(out)
        rows.append((f"router {model}", e["accuracy"], e["pair_accuracy"]))
    print(f"Crumb test split: {len(test)} emails\n")
    print(f"| {'model':<45} | accuracy | pair accuracy |")
    print(f"| {'-' * 45} | -------- | ------------- |")
    for name, acc, pair in rows:
        print(f"| {name:<45} | {100 * acc:7.2f}% | {100 * pair:12.2f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
