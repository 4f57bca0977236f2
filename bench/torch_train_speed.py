#!/usr/bin/python3
"""The PyTorch side of bench/train_speed.sh: seconds per training epoch of tools/torch_ref.py.

Trains RouterRef (the independent PyTorch implementation of docs/architecture.md) on token ids
that router's own tokenizer produced (files written by train_speed.sh: one example per line,
"LABEL_INDEX<TAB>id id id ..."), with router's training rules: AdamW (decay on embeddings and
Linear weights), warm-up + cosine learning rate, global-norm clipping, label smoothing, dropout.
Batches are formed as router forms them (shuffle, sort windows of 16 batches by length, shuffle
the batches), so both sides see the same amount of padding. Tokenisation is not timed.

An epoch's time covers the training steps and one forward pass over the validation ids, as
router's per-epoch figure does. --variant reference runs torch_ref.train_epoch unchanged;
--variant tuned uses torch's foreach AdamW and clip_grad_norm_ instead of the reference's
explicit loops (same maths), to show how much of the gap is Python overhead.
Prints one line per epoch and a final JSON line on stdout.
"""
import argparse
import json
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import torch_ref  # noqa: E402


def read_ids(path):
    """-> [(ids list, label int)]"""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, ids = line.rstrip("\n").split("\t")
            out.append(([int(t) for t in ids.split()], int(label)))
    return out


def router_batches(examples, batch_size, rng):
    """Router's epoch_batches(): shuffle, stable-sort windows of 16 batches by length, cut into
    batches, shuffle the batches. -> list of batches (lists of examples)."""
    order = list(range(len(examples)))
    rng.shuffle(order)
    window = batch_size * 16
    for lo in range(0, len(order), window):
        order[lo:lo + window] = sorted(order[lo:lo + window], key=lambda i: len(examples[i][0]))
    batches = [order[lo:lo + batch_size] for lo in range(0, len(order), batch_size)]
    rng.shuffle(batches)
    return [[examples[i] for i in b] for b in batches]


def padded_slots(batches, group):
    """Token slots computed when every `group` consecutive examples are padded together."""
    total = 0
    for b in batches:
        for lo in range(0, len(b), group):
            part = b[lo:lo + group]
            total += len(part) * max(len(e[0]) for e in part)
    return total


def tuned_epoch(model, optimizer, examples, batch_size, label_smoothing, clip, lr_at, first_step):
    """train_epoch with torch's own clip_grad_norm_ (no float64 copies, no per-tensor sync)."""
    model.train()
    params = list(model.parameters())
    start = time.perf_counter()
    step = first_step
    for i in range(0, len(examples), batch_size):
        batch = examples[i:i + batch_size]
        ids, lengths = torch_ref.pad_batch([e[0] for e in batch], model.max_len)
        targets = torch.tensor([e[1] for e in batch], dtype=torch.int64)
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step)
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(ids, lengths), targets, label_smoothing=label_smoothing)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, clip)
        optimizer.step()
        step += 1
    return {"seconds": time.perf_counter() - start}


def loaded_blas():
    """The BLAS library this process really loaded (Debian's torch calls libblas.so.3, which is
    whatever the alternatives system or LD_LIBRARY_PATH points at)."""
    with open("/proc/self/maps", encoding="utf-8") as f:
        paths = {line.split()[-1] for line in f if "blas" in line.split()[-1]}
    return sorted(os.path.realpath(p) for p in paths)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train-ids", required=True)
    ap.add_argument("--valid-ids", required=True)
    ap.add_argument("--meta", required=True, help="JSON with vocab_size and num_labels")
    ap.add_argument("--variant", choices=("reference", "tuned"), default="reference")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--d-ff", type=int, default=256)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--max-steps", type=int, default=0,
                    help="time only the first N (random) batches of each epoch and scale the "
                         "time to the whole epoch (for slow configurations); 0 = all")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    meta = json.load(open(args.meta, encoding="utf-8"))
    train = read_ids(args.train_ids)
    valid = read_ids(args.valid_ids)
    model = torch_ref.RouterRef(meta["vocab_size"], meta["num_labels"], args.d_model, args.heads,
                                args.layers, args.d_ff, args.max_len, dropout=args.dropout)
    model.reset_parameters_spec(torch.Generator().manual_seed(args.seed))
    if args.variant == "reference":
        optimizer = torch_ref.make_adamw(model, args.lr, args.weight_decay)
    else:
        decayed = set(torch_ref.decayed_param_names(model))
        named = list(model.named_parameters())
        optimizer = torch.optim.AdamW(
            [{"params": [p for n, p in named if n in decayed], "weight_decay": args.weight_decay},
             {"params": [p for n, p in named if n not in decayed], "weight_decay": 0.0}],
            lr=args.lr, foreach=True)
    steps_per_epoch = (len(train) + args.batch_size - 1) // args.batch_size
    lr_at = torch_ref.warmup_cosine(steps_per_epoch * args.epochs, args.warmup, args.lr)
    valid_ids, valid_len = torch_ref.pad_batch([e[0] for e in valid], args.max_len)

    rng = random.Random(args.seed)
    step = 0
    epochs = []
    for epoch in range(1, args.epochs + 1):
        batches = router_batches(train, args.batch_size, rng)
        if args.max_steps:
            batches = batches[:args.max_steps]
        ordered = [e for b in batches for e in b]  # consecutive runs of batch_size = the batches
        if args.variant == "reference":
            r = torch_ref.train_epoch(model, optimizer, ordered, batch_size=args.batch_size,
                                      label_smoothing=args.label_smoothing, clip=args.clip,
                                      lr_at=lr_at, first_step=step, num_threads=args.threads,
                                      shuffle_seed=None)
        else:
            r = tuned_epoch(model, optimizer, ordered, args.batch_size, args.label_smoothing,
                            args.clip, lr_at, step)
        step += steps_per_epoch
        r["seconds"] *= steps_per_epoch / len(batches)  # 1 unless --max-steps
        t0 = time.perf_counter()
        model.eval()
        with torch.no_grad():
            acc = float((model(valid_ids, valid_len).argmax(-1) ==
                         torch.tensor([e[1] for e in valid])).double().mean())
        seconds = r["seconds"] + time.perf_counter() - t0
        epochs.append(seconds)
        tokens = sum(len(e[0]) for b in batches for e in b)
        print(f"torch {args.variant} epoch {epoch}: {seconds:.2f} s ({len(train) / seconds:.0f} "
              f"ex/s; {len(batches)} of {steps_per_epoch} steps timed), valid acc {acc:.4f}, "
              f"padded slots per real token: batches of {args.batch_size} "
              f"{padded_slots(batches, args.batch_size) / tokens:.3f}, shards of 16 (router) "
              f"{padded_slots(batches, 16) / tokens:.3f}", file=sys.stderr)
    print(json.dumps({"variant": args.variant, "threads": torch.get_num_threads(),
                      "torch": torch.__version__, "blas": loaded_blas(),
                      "epoch_seconds": epochs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
