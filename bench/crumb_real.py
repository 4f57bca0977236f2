#!/usr/bin/python3
"""The built-in models on hand-written mail, side by side with fastText trained on the same data.

Scores every model on data/crumb/real-test.jsonl (hand-written by writers who wrote no training
mail), data/crumb/long-test.jsonl (long emails whose request comes last), data/crumb/judge.jsonl
and judge2.jsonl (writers of their own again, the mail that decides data rounds) and the
synthetic test split:
accuracy, macro-F1, swap-pair accuracy (both emails of a pair right), expected calibration error
(15 equal-width bins of the top probability), recall of `other`, and the share of business mail
sent to `other`. fastText gets the training set scripts/train-crumb.sh builds (synthetic and
hand-written mail) and its own best settings: autotune for --autotune seconds against the same
hand-written validation mail router calibrates on. With --cross-writer, also trains the built-in
recipe once per hand-written training writer without that writer's mail and scores it on that
writer's mail (--writers to hold out only some, e.g. w25,w26). With --writer-groups K, the
writers are held out K groups at a time (writer i of the sorted list in group i mod K), so that
every writer gets a row from K trainings; each model has seen fewer writers than one trained
without a single writer, so the rows are a little harsher. With --average, the --models are
scored as one: the mean of their probabilities, as an ensemble of them would give. With --mail,
each model is also scored on the sets read as mail: every email becomes a message in a Maildir
(its Subject header from a leading "Subject:" line), so that router cuts quoted replies and the
signature as it does for real mail. Usage (from the project root, after scripts/build.sh):

    bench/crumb_real.py [--router build/apps/router] [--models a.json,b.json [--average]]
                        [--autotune 300] [--mail]
                        [--cross-writer] [--writers w25,w26 | --writer-groups 8]
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

import fasttext_cli
from jsonl import load, one_line, save

BUSINESS = ["refund_item", "refund_delivery_fee", "replace_item", "cancel_order", "change_order",
            "order_status", "feedback", "general_inquiry"]


def scores(records, predicted, confidence):
    """A dict of the measures above; `predicted` and `confidence` follow `records`."""
    n = len(records)
    right = [p == r["label"] for p, r in zip(predicted, records)]
    labels = sorted({r["label"] for r in records} | set(predicted))
    f1s = []
    for label in sorted({r["label"] for r in records}):
        tp = sum(p == label and r["label"] == label for p, r in zip(predicted, records))
        fp = sum(p == label and r["label"] != label for p, r in zip(predicted, records))
        fn = sum(p != label and r["label"] == label for p, r in zip(predicted, records))
        f1s.append(2 * tp / max(1, 2 * tp + fp + fn))
    pairs = collections.defaultdict(list)
    for ok, r in zip(right, records):
        if r.get("pair"):
            pairs[r["pair"]].append(ok)
    bins = [[0, 0.0, 0] for _ in range(15)]  # count, confidence sum, right
    for ok, c in zip(right, confidence):
        b = bins[min(14, int(c * 15))]
        b[0] += 1
        b[1] += c
        b[2] += ok
    ece = sum(abs(b[1] - b[2]) for b in bins) / n
    other = [p for p, r in zip(predicted, records) if r["label"] == "other"]
    business = [p for p, r in zip(predicted, records) if r["label"] in BUSINESS]
    return {
        "n": n,
        "accuracy": sum(right) / n,
        "macro_f1": sum(f1s) / len(f1s),
        "pairs": (sum(all(g) for g in pairs.values()), len(pairs)),
        "ece": ece,
        "other_recall": sum(p == "other" for p in other) / len(other) if other else None,
        "business_to_other": sum(p == "other" for p in business) / len(business) if business else None,
        "labels": labels,
    }


def router_predict(router, model, path, workdir):
    out = os.path.join(workdir, "labelled.jsonl")
    subprocess.run([router, "-q", "batch", path, "-m", model, "-o", out], check=True)
    preds = [r["prediction"] for r in load(out)]
    return [p["label"] for p in preds], [p["confidence"] for p in preds]


def mail_predict(router, model, records, workdir):
    """router_predict on the records as messages of a Maildir, read by router's mail path."""
    maildir = os.path.join(workdir, "Maildir")
    shutil.rmtree(maildir, ignore_errors=True)
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(maildir, sub))
    for i, r in enumerate(records):
        text = r["text"]
        headers = ["From: customer@example.com", "To: support@crumb.in", f"Message-ID: <{i}@crumb>",
                   "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
                   "Content-Transfer-Encoding: 8bit"]
        if text.startswith("Subject:"):
            subject, _, text = text.partition("\n")
            headers.append(one_line(subject))
            text = text.lstrip("\n")
        with open(os.path.join(maildir, "cur", f"{i:06d}:2,"), "w", encoding="utf-8") as f:
            f.write("\n".join(headers) + "\n\n" + text + "\n")
    out = os.path.join(workdir, "labelled.jsonl")
    subprocess.run([router, "-q", "batch", maildir, "-m", model, "-o", out,
                    "--no-header-rules"], check=True)
    by_index = {int(r["message_id"].strip("<>").split("@")[0]): r["prediction"]
                for r in load(out)}
    preds = [by_index[i] for i in range(len(records))]
    return [p["label"] for p in preds], [p["confidence"] for p in preds]


def averaged_predict(router, models, path, workdir):
    """The label of highest mean probability over `models`, and that mean: what an ensemble
    of them, or the teachers of router train --teacher, would say."""
    out = os.path.join(workdir, "labelled.jsonl")
    sums = None
    for model in models:
        subprocess.run([router, "-q", "batch", path, "-m", model, "-o", out, "--top-k", "10000"],
                       check=True)
        probs = [{t["label"]: t["score"] for t in r["prediction"]["top_k"]} for r in load(out)]
        if sums is not None and set(sums[0]) != set(probs[0]):
            sys.exit(f"--average: {model} has other labels than {models[0]}")
        sums = probs if sums is None else [
            {k: v + p[k] for k, v in s.items()} for s, p in zip(sums, probs)]
    best = [max(s, key=s.get) for s in sums]
    return best, [s[b] / len(models) for s, b in zip(sums, best)]


def fasttext_train(train, valid, workdir, seconds):
    def write(path, records):
        with open(path, "w", encoding="utf-8") as f:
            for r in records:
                f.write(f"__label__{r['label']} {one_line(r['text'])}\n")
    train_txt, valid_txt = os.path.join(workdir, "ft_train.txt"), os.path.join(workdir, "ft_valid.txt")
    write(train_txt, train)
    write(valid_txt, valid)
    model = os.path.join(workdir, "ft")
    # Autotune prints its progress on stderr whatever -verbose says: shown only if it fails.
    run = subprocess.run(["fasttext", "supervised", "-input", train_txt, "-output", model,
                          "-autotune-validation", valid_txt, "-autotune-duration", str(seconds),
                          "-thread", "2", "-verbose", "0"], stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"fasttext supervised failed ({run.returncode}):\n{run.stderr}")
    return model + ".bin"


def fasttext_predict(model, records, workdir):
    test_txt = os.path.join(workdir, "ft_test.txt")
    with open(test_txt, "w", encoding="utf-8") as f:
        for r in records:
            f.write(one_line(r["text"]) + "\n")
    out = subprocess.run(["fasttext", "predict-prob", model, test_txt], check=True,
                         capture_output=True, text=True).stdout.split("\n")
    labels, conf = [], []
    for line in out:
        if line:
            label, prob = line.split(" ")[:2]
            labels.append(label.replace("__label__", ""))
            conf.append(min(1.0, float(prob)))
    return labels, conf


def row(name, s):
    right, groups = s["pairs"]
    pairs = f"{100 * right / groups:.1f}% ({right}/{groups})" if groups else "-"
    other = "-" if s["other_recall"] is None else f"{100 * s['other_recall']:.1f}%"
    to_other = "-" if s["business_to_other"] is None else f"{100 * s['business_to_other']:.1f}%"
    return (f"| {name} | {s['n']} | {100 * s['accuracy']:.1f}% | {s['macro_f1']:.3f} | {pairs} | "
            f"{s['ece']:.3f} | {other} | {to_other} |")


def training_set(root, hand_train):
    """The records scripts/train-crumb.sh trains on, read back from its own file list."""
    out = subprocess.run(["scripts/train-crumb.sh", "--print-training-files"], check=True,
                         capture_output=True, text=True,
                         env={**os.environ, "CRUMB_HAND_TRAIN": hand_train}).stdout.split()
    records = []
    for path in out:
        records += load(path)
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--router", default="build/apps/router")
    ap.add_argument("--models", default="models/crumb.json,models/crumb-nopos.json")
    ap.add_argument("--average", action="store_true",
                    help="score the mean of the --models' probabilities as one model")
    ap.add_argument("--autotune", type=int, default=300, help="fastText autotune seconds")
    ap.add_argument("--mail", action="store_true",
                    help="also score each router model on the sets read as mail (Maildir)")
    ap.add_argument("--cross-writer", action="store_true")
    ap.add_argument("--writers", help="with --cross-writer: the writers to hold out, e.g. w3,w25")
    ap.add_argument("--writer-groups", type=int, default=0,
                    help="with --cross-writer: hold the writers out in this many groups")
    a = ap.parse_args()
    data = "data/crumb"
    sets = [("real-test", f"{data}/real-test.jsonl"), ("long-test", f"{data}/long-test.jsonl"),
            ("judge", f"{data}/judge.jsonl"), ("judge 2", f"{data}/judge2.jsonl"),
            ("synthetic test", f"{data}/test.jsonl")]
    models = a.models.split(",")
    if a.average and len(models) < 2:
        sys.exit("--average needs two or more --models")
    if a.mail and a.average:
        sys.exit("--mail scores each of the --models alone: give it without --average")
    if (a.writers or a.writer_groups) and not a.cross_writer:
        sys.exit("--writers and --writer-groups go with --cross-writer")
    if a.writers and a.writer_groups:
        sys.exit("--writers and --writer-groups: give one")
    if a.autotune > 0:
        fasttext_cli.require(", or --autotune 0 to score router alone")
    writers = []
    if a.cross_writer:  # the writers, checked before anything slow runs
        hand_train = load(f"{data}/hand/train.jsonl")
        hand_valid = load(f"{data}/hand/valid.jsonl")
        hand = hand_train + hand_valid
        writers = sorted({r["writer"] for r in hand}, key=lambda w: (len(w), w))
        if a.writers:
            asked = a.writers.split(",")
            unknown = sorted(set(asked) - set(writers))
            if unknown:
                sys.exit(f"--writers: no hand-written training mail by {', '.join(unknown)}")
            writers = [w for w in writers if w in asked]
        if a.writer_groups and not 2 <= a.writer_groups <= len(writers):
            sys.exit(f"--writer-groups {a.writer_groups}: expected 2 to {len(writers)} groups")
    groups = ([writers[g::a.writer_groups] for g in range(a.writer_groups)] if a.writer_groups
              else [[w] for w in writers])
    print("| model | emails | accuracy | macro-F1 | pairs | ECE | other recall | business to other |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for set_name, path in sets:
            records = load(path)
            if a.average:
                s = scores(records, *averaged_predict(a.router, models, path, tmp))
                print(row(f"{set_name}: router, mean of {len(models)} models", s), flush=True)
                continue
            for model in models:
                s = scores(records, *router_predict(a.router, model, path, tmp))
                print(row(f"{set_name}: router {model}", s), flush=True)
                if a.mail:
                    s = scores(records, *mail_predict(a.router, model, records, tmp))
                    print(row(f"{set_name}: router {model}, read as mail", s), flush=True)
        if a.autotune > 0:
            train = training_set(".", f"{data}/hand/train.jsonl")
            ft = fasttext_train(train, load(f"{data}/hand/valid.jsonl"), tmp, a.autotune)
            for set_name, path in sets:
                records = load(path)
                s = scores(records, *fasttext_predict(ft, records, tmp))
                print(row(f"{set_name}: fastText (autotuned {a.autotune} s)", s), flush=True)
        for group in groups:
            out = set(group)
            paths = {k: os.path.join(tmp, f"{k}.jsonl") for k in ("train", "valid", "held")}
            save(paths["train"], [r for r in hand_train if r["writer"] not in out])
            save(paths["valid"], [r for r in hand_valid if r["writer"] not in out])
            env = {**os.environ, "CRUMB_HAND_TRAIN": paths["train"],
                   "CRUMB_HAND_VALID": paths["valid"], "CRUMB_OUT_DIR": tmp,
                   "CRUMB_ONLY": "crumb", "ROUTER": a.router}
            subprocess.run(["scripts/train-crumb.sh"], check=True, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for writer in group:
                held = [r for r in hand if r["writer"] == writer]
                save(paths["held"], held)
                s = scores(held, *router_predict(a.router, os.path.join(tmp, "crumb.json"),
                                                 paths["held"], tmp))
                print(row(f"cross-writer: {writer} held out", s), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
