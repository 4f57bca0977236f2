#!/usr/bin/python3
""""None of these" on CLINC150 (Larson et al., 2019): in-scope accuracy and out-of-scope recall
on test + oos_test, for router and Debian's fastText on the same split, side by side.

Rows (each model trained on train + oos_train, "oos" a label like the others, as the paper's
"oos-train" setting):
  router, no rule       `router train --out-of-scope oos` (what no flags do for a label named
                        oos; with oos in the training data, two members unless `-- --ensemble
                        1`): the label the model puts first (its top_k), without the rule
  router, threshold     the same model's label: with the rejection threshold that router learns
                        on valid + oos_valid (train/calibration.h, choose_rejection)
  fastText, no rule     `fasttext supervised` with word bigrams and subwords; its top label
  fastText, threshold   the same model with a threshold on its top probability chosen by the same
                        rule as router's, on valid + oos_valid

Usage (from the project root, after scripts/build.sh; the data is read where it lies):
    bench/clinc150_oos.py [--router build/apps/router] [--clinc ../shared/datasets/clinc150]
                          [-- extra router train flags]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import fasttext_cli
from jsonl import load, one_line, save


def scores(truth, predicted):
    """In-scope accuracy and oos recall, as the paper defines them."""
    ins = [(t, p) for t, p in zip(truth, predicted) if t != "oos"]
    oos = [p for t, p in zip(truth, predicted) if t == "oos"]
    return (sum(t == p for t, p in ins) / len(ins), sum(p == "oos" for p in oos) / len(oos))


def choose_threshold(truth, best, confidence, cost=0.01):
    """router's rule (choose_rejection): the threshold that catches the most oos queries while
    in-scope accuracy falls by at most `cost`, halfway between two neighbouring confidences, the
    lowest on a tie."""
    n_in = sum(t != "oos" for t in truth)
    points = sorted(zip(confidence, truth, best))
    right = sum(t != "oos" and b == t for t, b in zip(truth, best))
    caught = sum(t == "oos" and b == "oos" for t, b in zip(truth, best))
    floor = right / n_in - cost
    top, threshold = caught, 0.0
    for i, (c, t, b) in enumerate(points):
        if t != "oos":
            right -= b == t
        else:
            caught += b != "oos"
        if i + 1 < len(points) and points[i + 1][0] == c:
            continue
        if right / n_in < floor:
            break
        nxt = points[i + 1][0] if i + 1 < len(points) else 1.0
        if caught > top:
            top, threshold = caught, (c + nxt) / 2
    return threshold


def router_rows(router, work, train, valid, test, extra):
    model = os.path.join(work, "router.json")
    start = time.time()
    subprocess.run([router, "-q", "train", "--train", train, "--valid", valid, "-o", model,
                    "--out-of-scope", "oos", *extra], check=True)
    seconds = time.time() - start
    out = subprocess.run([router, "-q", "batch", "-m", model, "-k", "1", test], check=True,
                         capture_output=True, text=True).stdout
    predictions = [json.loads(line)["prediction"] for line in out.splitlines()]
    with open(model, encoding="utf-8") as f:
        below = json.load(f)["calibration"]["reject_below"]
    flags = " " + " ".join(extra) if extra else ""
    return [("router%s, no rule" % flags, [p["top_k"][0]["label"] for p in predictions], seconds),
            ("router%s, threshold %.4f" % (flags, below), [p["label"] for p in predictions],
             seconds)]


def fasttext_probs(model, records, work):
    path = os.path.join(work, "in.txt")
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(one_line(r["text"]) + "\n")
    out = subprocess.run(["fasttext", "predict-prob", model, path, "1"], check=True,
                         capture_output=True, text=True).stdout
    pairs = [line.split() for line in out.splitlines()]
    return [p[0][len("__label__"):] for p in pairs], [float(p[1]) for p in pairs]


def fasttext_rows(work, train, valid, test):
    path = os.path.join(work, "train.txt")
    with open(path, "w", encoding="utf-8") as f:
        for r in train:
            f.write("__label__" + r["label"] + " " + one_line(r["text"]) + "\n")
    prefix = os.path.join(work, "ft")
    start = time.time()
    subprocess.run(["fasttext", "supervised", "-input", path, "-output", prefix, "-wordNgrams",
                    "2", "-minn", "3", "-maxn", "6", "-epoch", "25", "-lr", "0.5", "-thread",
                    "2", "-verbose", "0"], check=True)
    seconds = time.time() - start
    best, conf = fasttext_probs(prefix + ".bin", test, work)
    vbest, vconf = fasttext_probs(prefix + ".bin", valid, work)
    threshold = choose_threshold([r["label"] for r in valid], vbest, vconf)
    rejected = ["oos" if c < threshold else b for b, c in zip(best, conf)]
    return [("fastText, no rule", best, seconds),
            ("fastText, threshold %.4f" % threshold, rejected, seconds)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--router", default="build/apps/router")
    ap.add_argument("--clinc", default="../shared/datasets/clinc150")
    ap.add_argument("extra", nargs="*", help="more `router train` flags (after --)")
    a = ap.parse_args()
    fasttext_cli.require()  # the router rows take minutes
    c = lambda name: load(os.path.join(a.clinc, name + ".jsonl"))
    train, valid, test = c("train") + c("oos_train"), c("valid") + c("oos_valid"), c("test") + c(
        "oos_test")
    truth = [r["label"] for r in test]
    with tempfile.TemporaryDirectory() as work:
        paths = {}
        for name, records in (("train", train), ("valid", valid), ("test", test)):
            paths[name] = os.path.join(work, name + ".jsonl")
            save(paths[name], records)
        rows = router_rows(a.router, work, paths["train"], paths["valid"], paths["test"], a.extra)
        rows += fasttext_rows(work, train, valid, test)
    print("%-44s %10s %10s %9s" % ("model (trained on train + oos_train)", "in-scope", "oos recall",
                                     "train s"))
    for name, predicted, seconds in rows:
        accuracy, recall = scores(truth, predicted)
        print("%-44s %9.2f%% %9.1f%% %9.1f" % (name, 100 * accuracy, 100 * recall, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
