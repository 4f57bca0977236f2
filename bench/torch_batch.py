#!/usr/bin/python3
"""The PyTorch side of bench/batch_speed.sh: batch inference with tools/torch_ref.py's RouterRef.

Loads a router model file with torch_ref.load_router_json (the same weights as router), reads
token ids written by `router tokenize` (one {"ids": [...]} per line: exactly the ids router's
encoder sees), and labels every email. Two modes:

  --search B1,B2,...   model work only: for each batch size, with and without length-sorted
                       batching, times the forward passes (padded tensors built beforehand,
                       torch.inference_mode) over all emails; prints one JSON line per setting
                       and a final {"best": ...} line. --sample N times the first N emails only.
                       Batch sizes are tried in increasing order; a mode stops at the first size
                       that is under half as fast as its best (larger ones are only slower).
  --batch-size B       the whole job as a user runs it: read ids, pad, forward, argmax, write
                       one label per line to --labels (time this process from outside).

Threads: torch.set_num_threads(--threads). Labels are the argmax of the logits (temperature
scaling does not change it).
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import torch_ref  # noqa: E402


def read_ids(path, limit=0):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line)["ids"])
                if limit and len(out) == limit:
                    break
    return out


def batches(seqs, batch_size, sort):
    """-> [(indices, ids (B, T) int64, lengths (B))], padded to each batch's longest email."""
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i])) if sort else range(len(seqs))
    order = list(order)
    out = []
    for lo in range(0, len(order), batch_size):
        idx = order[lo:lo + batch_size]
        ids, lengths = torch_ref.pad_batch([seqs[i] for i in idx], 1 << 30)
        out.append((idx, ids, lengths))
    return out


def run_model(model, prepared, n):
    labels = [0] * n
    with torch.inference_mode():
        for idx, ids, lengths in prepared:
            best = model(ids, lengths).argmax(dim=-1).tolist()
            for i, label in zip(idx, best):
                labels[i] = label
    return labels


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="router model file (JSON)")
    ap.add_argument("--ids", required=True, help="output of `router tokenize`")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--search", help="comma-separated batch sizes to time (model work only)")
    ap.add_argument("--sample", type=int, default=0, help="--search: first N emails only")
    ap.add_argument("--modes", choices=["both", "sorted", "unsorted"], default="both",
                    help="--search: length-sorted batching, input order, or both")
    ap.add_argument("--batch-size", type=int, help="run the whole job with this batch size")
    ap.add_argument("--sort", action="store_true", help="length-sorted batching (--batch-size)")
    ap.add_argument("--labels", help="where to write one label per line (--batch-size)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model, label_names, _, _ = torch_ref.load_router_json(a.model)
    model.eval()

    if a.search:
        seqs = read_ids(a.ids, a.sample)
        best = None
        for sort in {"sorted": (True,), "unsorted": (False,), "both": (True, False)}[a.modes]:
            best_here = 0.0
            for b in sorted(int(x) for x in a.search.split(",")):
                prepared = batches(seqs, b, sort)
                run_model(model, prepared[:2], len(seqs))  # warm-up
                start = time.perf_counter()
                run_model(model, prepared, len(seqs))
                seconds = time.perf_counter() - start
                row = {"batch_size": b, "sorted": sort, "emails": len(seqs), "seconds": seconds,
                       "emails_per_s": len(seqs) / seconds}
                print(json.dumps(row), flush=True)
                if best is None or row["emails_per_s"] > best["emails_per_s"]:
                    best = row
                best_here = max(best_here, row["emails_per_s"])
                if row["emails_per_s"] < 0.5 * best_here:
                    break  # larger batches only get slower from here (more padding, more memory)
        print(json.dumps({"best": best}))
        return 0

    if not a.batch_size or not a.labels:
        ap.error("give --search, or --batch-size and --labels")
    start = time.perf_counter()
    seqs = read_ids(a.ids)
    prepared = batches(seqs, a.batch_size, a.sort)
    t_model = time.perf_counter()
    labels = run_model(model, prepared, len(seqs))
    t_done = time.perf_counter()
    with open(a.labels, "w", encoding="utf-8") as f:
        f.writelines(label_names[i] + "\n" for i in labels)
    end = time.perf_counter()
    print(json.dumps({"emails": len(seqs), "batch_size": a.batch_size, "sorted": a.sort,
                      "read_and_pad_s": t_model - start, "model_s": t_done - t_model,
                      "write_s": end - t_done}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
