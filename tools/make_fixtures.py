#!/usr/bin/python3
"""Writes the golden parity fixtures under tests/fixtures/parity/ from tools/torch_ref.py.

Everything is float64; every input (parameters, layer inputs, upstream gradients) is rounded to a
float32-representable value first, so float and double C++ engines start from identical numbers.
Seeds are fixed and the JSON is written with sorted keys and repr floats: rerunning this script
rewrites the files byte for byte. The layout is described in tests/fixtures/parity/README.md.
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_ref as ref  # noqa: E402

DT = torch.float64
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SMALL_CONFIG = {"d_model": 8, "n_heads": 2, "n_layers": 2, "d_ff": 16, "max_len": 16,
                "positional": "sinusoidal", "pooling": "mean", "norm": "pre"}
SMALL_V, SMALL_K = 23, 3
# Real ids are 1..22 (1 = [UNK]); id 17 repeats inside sequence 0, ids 5 and 9 recur across
# sequences, so embedding gradients must accumulate. Padding is id 0.
SMALL_IDS = [[5, 17, 1, 9, 17, 0, 0],
             [22, 3, 9, 14, 2, 8, 11],
             [6, 5, 20, 0, 0, 0, 0]]
SMALL_LENGTHS = [5, 7, 3]
SMALL_TARGETS = [2, 0, 1]
LABEL_SMOOTHING = 0.1
ADAMW = {"lr": 0.01, "weight_decay": 0.1, "betas": [0.9, 0.999], "eps": 1e-8, "clip": 1.0,
         "steps": 5}


def f32(t):
    """Rounds to the nearest float32 and back: a float64 tensor every engine can hold exactly."""
    return t.float().double()


def randn(gen, *shape, mean=0.0, std=1.0):
    return f32(mean + std * torch.randn(*shape, generator=gen, dtype=DT))


def T(t):
    return ref.tensor_json(t)


def random_params(model, gen):
    """N(0, 0.3) matrices (embedding too), N(1, 0.1) layer-norm weights, N(0, 0.1) biases."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.copy_(randn(gen, *p.shape, std=0.1))
            elif ref.is_layer_norm_param(name):
                p.copy_(randn(gen, *p.shape, mean=1.0, std=0.1))
            else:
                p.copy_(randn(gen, *p.shape, std=0.3))


def batch():
    return (torch.tensor(SMALL_IDS, dtype=torch.int64), torch.tensor(SMALL_LENGTHS),
            torch.tensor(SMALL_TARGETS))


def small_model(positional, seed, pooling="mean"):
    cfg = dict(SMALL_CONFIG, positional=positional, pooling=pooling)
    model = ref.RouterRef(SMALL_V, SMALL_K, **cfg).to(DT).eval()  # eval: dropout off
    random_params(model, torch.Generator().manual_seed(seed))
    return model, cfg


def model_header(model, cfg):
    ids, lengths, targets = batch()
    return {"config": cfg, "vocab_size": SMALL_V, "num_labels": SMALL_K, "ids": T(ids),
            "lengths": lengths.tolist(), "targets": targets.tolist(),
            "label_smoothing": LABEL_SMOOTHING,
            "params": {n: T(p) for n, p in model.state_dict().items()}}


def loss_and_grads(model):
    ids, lengths, targets = batch()
    model.zero_grad(set_to_none=True)
    logits, rec = model(ids, lengths, return_intermediates=True)
    loss = F.cross_entropy(logits, targets, label_smoothing=LABEL_SMOOTHING)
    loss.backward()
    grads = {n: T(p.grad) for n, p in model.named_parameters()}
    return rec, float(loss), grads


def model_small():
    model, cfg = small_model("sinusoidal", seed=20240601)
    doc = model_header(model, cfg)
    rec, loss, grads = loss_and_grads(model)
    names = ["x0"]
    for l in range(cfg["n_layers"]):
        names += [f"layers.{l}.{s}" for s in ("ln1", "qkv", "attn.probs", "attn.concat",
                                              "attn.out", "resid1", "ln2", "ff.pre", "ff.act",
                                              "ff.out", "resid2")]
    names += ["norm", "pooled", "logits", "probs"]
    doc["forward"] = {n: T(rec[n]) for n in names}
    doc["loss"] = loss
    doc["grads"] = grads

    # AdamW: constant lr, decay on embed + Linear weights, global-norm clip each step.
    ids, lengths, targets = batch()
    a = ADAMW
    opt = ref.make_adamw(model, a["lr"], a["weight_decay"], tuple(a["betas"]), a["eps"])
    params = list(model.parameters())
    losses, norms = [], []
    for _ in range(a["steps"]):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(ids, lengths), targets, label_smoothing=LABEL_SMOOTHING)
        loss.backward()
        norms.append(ref.clip_grad_norm(params, a["clip"]))
        opt.step()
        losses.append(float(loss))
    with torch.no_grad():
        losses.append(float(F.cross_entropy(model(ids, lengths), targets,
                                            label_smoothing=LABEL_SMOOTHING)))
    clipped = [n > a["clip"] for n in norms]
    if not any(clipped) or all(clipped):
        raise SystemExit(f"clip {a['clip']} should trigger on some steps only; norms {norms}")
    doc["adamw"] = dict(a, losses=losses, grad_norms=norms, clipped=clipped,
                        decayed=ref.decayed_param_names(model),
                        params_after={n: T(p) for n, p in model.state_dict().items()})
    return doc


def model_small_nopos():
    model, cfg = small_model("none", seed=20240602)
    doc = model_header(model, cfg)
    rec, loss, grads = loss_and_grads(model)
    doc["forward"] = {n: T(rec[n]) for n in ("logits", "probs")}
    doc["loss"] = loss
    doc["grads"] = grads
    # The real tokens of every sequence permuted: with no positions the logits must not change.
    ids, lengths, _ = batch()
    perm = ids.clone()
    for b, order in enumerate(([4, 2, 0, 3, 1], [6, 5, 4, 3, 2, 1, 0], [1, 2, 0])):
        perm[b, :len(order)] = ids[b, torch.tensor(order)]
    d = float((model(perm, lengths) - rec["logits"]).abs().max())
    if d > 1e-12:
        raise SystemExit(f"positional none is not permutation invariant: {d}")
    doc["ids_permuted"] = T(perm)
    return doc


def model_small_pooled(pooling, seed):
    model, cfg = small_model("sinusoidal", seed=seed, pooling=pooling)
    doc = model_header(model, cfg)
    rec, loss, grads = loss_and_grads(model)
    doc["forward"] = {n: T(rec[n]) for n in ("norm", "pooled", "logits", "probs")}
    doc["loss"] = loss
    doc["grads"] = grads
    return doc


def model_small_maxpool():
    return model_small_pooled("max", seed=20240603)


def model_small_attnpool():
    return model_small_pooled("attention", seed=20240604)


def grads_of(out, dout, inputs):
    return torch.autograd.grad(out, inputs, dout, retain_graph=True)


def layers():
    gen = torch.Generator().manual_seed(777)
    doc = {}

    # Layer norm over the last axis, eps 1e-5, biased variance.
    x = f32(randn(gen, 4, 6, std=2.0) + randn(gen, 4, 1)).requires_grad_(True)  # rows off-centre
    w = randn(gen, 6, mean=1.0, std=0.1).requires_grad_(True)
    b = randn(gen, 6, std=0.1).requires_grad_(True)
    dy = randn(gen, 4, 6)
    y = F.layer_norm(x, (6,), w, b, ref.LN_EPS)
    dx, dw, db = grads_of(y, dy, (x, w, b))
    doc["layernorm"] = {"eps": ref.LN_EPS, "x": T(x), "weight": T(w), "bias": T(b), "y": T(y),
                        "dy": T(dy), "dx": T(dx), "dweight": T(dw), "dbias": T(db)}

    # Exact GELU on a fixed sweep plus random values.
    sweep = torch.tensor([-6.0, -4.0, -2.5, -1.0, -0.5, -0.1, 0.0, 0.1, 0.5, 1.0, 2.5, 4.0, 6.0],
                         dtype=DT)
    x = torch.cat([sweep, randn(gen, 11, std=2.0)]).requires_grad_(True)
    dy = randn(gen, x.shape[0])
    y = F.gelu(x)
    (dx,) = grads_of(y, dy, (x,))
    doc["gelu"] = {"x": T(x), "y": T(y), "dy": T(dy), "dx": T(dx)}

    # Attention on one sequence of T = 5 slots of which the first 3 are real, H = 2.
    Tn, D, H, n = 5, 8, 2, 3
    att = ref.Attention(D, H).to(DT)
    u = randn(gen, 1, Tn, D).requires_grad_(True)
    with torch.no_grad():
        att.qkv.weight.copy_(randn(gen, 3 * D, D, std=0.3))
        att.out.weight.copy_(randn(gen, D, D, std=0.3))
    rec = {}
    out = att(u, torch.tensor([n]), rec)
    dout = randn(gen, 1, Tn, D)
    dout_real = dout.clone()
    dout_real[:, n:] = 0.0
    wq, wo = att.qkv.weight, att.out.weight
    du, dwq, dwo = grads_of(out, dout, (u, wq, wo))
    du_r, dwq_r, dwo_r = grads_of(out, dout_real, (u, wq, wo))
    doc["attention"] = {
        "n_heads": H, "length": n, "u": T(u[0]), "w_qkv": T(wq), "w_o": T(wo),
        "qkv": T(rec["qkv"][0]), "probs": T(rec["attn.probs"][0]),
        "concat": T(rec["attn.concat"][0]), "out": T(out[0]),
        "dout": T(dout[0]), "du": T(du[0]), "dw_qkv": T(dwq), "dw_o": T(dwo),
        "dout_real": T(dout_real[0]), "du_real": T(du_r[0]), "dw_qkv_real": T(dwq_r),
        "dw_o_real": T(dwo_r)}

    # Softmax cross-entropy with label smoothing, mean over the batch.
    logits = randn(gen, 3, 4, std=2.0).requires_grad_(True)
    targets = torch.tensor([0, 3, 1])
    loss = F.cross_entropy(logits, targets, label_smoothing=0.1)
    (dlogits,) = torch.autograd.grad(loss, logits)
    doc["cross_entropy"] = {"logits": T(logits), "targets": targets.tolist(),
                            "label_smoothing": 0.1, "loss": float(loss), "dlogits": T(dlogits)}

    # Mean pooling over the real tokens.
    z = randn(gen, 2, 5, 3).requires_grad_(True)
    lengths = torch.tensor([3, 5])
    real = (~ref.key_padding_mask(lengths, 5)).to(DT)[:, :, None]
    pooled = (z * real).sum(1) / lengths.to(DT)[:, None]
    dpooled = randn(gen, 2, 3)
    (dz,) = grads_of(pooled, dpooled, (z,))
    doc["mean_pool"] = {"z": T(z), "lengths": lengths.tolist(), "pooled": T(pooled),
                        "dpooled": T(dpooled), "dz": T(dz)}

    # Max pooling over the real tokens: the padding slots hold the largest values, so a pooling
    # that read them would be caught.
    z = randn(gen, 2, 5, 3)
    z[0, 3:] = 10.0
    z.requires_grad_(True)
    pooled = z.masked_fill(ref.key_padding_mask(lengths, 5)[:, :, None], float("-inf")).max(1).values
    dpooled = randn(gen, 2, 3)
    (dz,) = grads_of(pooled, dpooled, (z,))
    doc["max_pool"] = {"z": T(z), "lengths": lengths.tolist(), "pooled": T(pooled),
                       "dpooled": T(dpooled), "dz": T(dz)}

    # Cross-entropy against target distributions (a teacher's probabilities mixed in).
    logits = randn(gen, 3, 4, std=2.0).requires_grad_(True)
    # Sixteenths: rows that sum to exactly 1, as the C++ gradient p - q assumes.
    q = torch.tensor([[8, 4, 2, 2], [1, 1, 6, 8], [4, 4, 4, 4]], dtype=DT) / 16
    loss = F.cross_entropy(logits, q)
    (dlogits,) = torch.autograd.grad(loss, logits)
    doc["soft_cross_entropy"] = {"logits": T(logits), "q": T(q), "loss": float(loss),
                                 "dlogits": T(dlogits)}

    # Attention pooling over the real tokens: the padding slots hold the largest values and
    # would take most of the weight if they were scored.
    pool = ref.AttentionPool(3).to(DT)
    with torch.no_grad():
        pool.query.copy_(randn(gen, 3, std=2.0))
    z = randn(gen, 2, 5, 3)
    z[0, 3:] = 10.0
    z.requires_grad_(True)
    pooled = pool(z, lengths)
    dpooled = randn(gen, 2, 3)
    dz, dq = grads_of(pooled, dpooled, (z, pool.query))
    doc["attention_pool"] = {"z": T(z), "query": T(pool.query), "lengths": lengths.tolist(),
                             "pooled": T(pooled), "dpooled": T(dpooled), "dz": T(dz),
                             "dquery": T(dq)}

    # Masked-token pretraining: four masked rows of seven, one target twice, through a table of
    # nine tokens.
    z = randn(gen, 7, 4).requires_grad_(True)
    embed = randn(gen, 9, 4).requires_grad_(True)
    rows, targets = [0, 3, 5, 6], [2, 8, 0, 2]
    loss = ref.masked_token_loss(z, embed, torch.tensor(rows), torch.tensor(targets))
    dz, dembed = grads_of(loss, torch.tensor(1.0, dtype=DT), (z, embed))
    doc["masked_token"] = {"z": T(z), "embed": T(embed), "rows": rows, "targets": targets,
                           "loss": loss.item(), "dz": T(dz), "dembed": T(dembed)}
    return doc


def sinusoid():
    tables = []
    for d_model, n_positions in ((4, 51), (16, 4)):
        t = torch.from_numpy(ref.sinusoid_table(n_positions, d_model))
        tables.append({"d_model": d_model, "n_positions": n_positions, "table": T(t)})
    return {"tables": tables}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "parity"),
                    help="output directory (default: %(default)s)")
    args = ap.parse_args()
    torch.set_num_threads(1)  # one reduction order, one set of bytes
    torch.manual_seed(0)
    os.makedirs(args.out, exist_ok=True)
    for name, make in (("model_small.json", model_small),
                       ("model_small_nopos.json", model_small_nopos),
                       ("model_small_maxpool.json", model_small_maxpool),
                       ("model_small_attnpool.json", model_small_attnpool),
                       ("layers.json", layers), ("sinusoid.json", sinusoid)):
        path = os.path.join(args.out, name)
        ref.write_atomic(path, ref.json_dumps(make()))
        print(f"{path}: {os.path.getsize(path)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
