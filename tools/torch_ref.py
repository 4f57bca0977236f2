#!/usr/bin/python3
"""Independent PyTorch reference of router's encoder (docs/architecture.md), plus model-file I/O.

RouterRef's state_dict() keys are exactly the tensor names of docs/architecture.md; attention is
written out by hand (no nn.MultiheadAttention). load_router_json / save_router_json follow
docs/model-format.md. `--check` runs the sanity checks listed in main() and exits non-zero on any
failure. Never needed by the build or CI: it produces the committed fixtures (make_fixtures.py).

Shape legend: B batch, T tokens, D d_model, H heads, Dh = D/H, F d_ff, K labels, V vocab.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

PAD_ID = 0
LN_EPS = 1e-5
CLIP_EPS = 1e-6  # clip_grad_norm_: g *= c / (n + 1e-6)
FORMAT_NAME = "router-model"
FORMAT_VERSION = 1
CONFIG_KEYS = ("d_model", "n_heads", "n_layers", "d_ff", "max_len", "positional", "pooling", "norm")


# ---------------------------------------------------------------------------------------------
# Model


def sinusoid_table(n_positions, d_model):
    """(n_positions, D) float64: P[pos, 2i] = sin(pos / 10000^(2i/D)), P[pos, 2i+1] = cos(...)."""
    table = np.zeros((n_positions, d_model), dtype=np.float64)
    for pos in range(n_positions):
        for j in range(d_model):
            i = j // 2
            angle = pos / math.pow(10000.0, (2 * i) / d_model)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


def key_padding_mask(lengths, T):
    """lengths: (B) -> (B, T) bool, True where the token is padding (t >= len)."""
    return torch.arange(T, device=lengths.device)[None, :] >= lengths[:, None]


class Attention(nn.Module):
    """Multi-head self-attention, no biases. u: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model, n_heads, dropout=0.0):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"n_heads {n_heads} does not divide d_model {d_model}")
        self.n_heads = n_heads
        self.dropout = dropout
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)  # W_qkv: (3D, D)
        self.out = nn.Linear(d_model, d_model, bias=False)  # W_o: (D, D)

    def forward(self, u, lengths, rec=None, prefix=""):
        B, T, D = u.shape
        H = self.n_heads
        Dh = D // H
        qkv = self.qkv(u)  # (B, T, 3D)
        q, k, v = qkv.split(D, dim=-1)  # each (B, T, D); head h = columns h*Dh .. h*Dh+Dh-1
        q = q.reshape(B, T, H, Dh).transpose(1, 2)  # (B, H, T, Dh)
        k = k.reshape(B, T, H, Dh).transpose(1, 2)
        v = v.reshape(B, T, H, Dh).transpose(1, 2)
        s = (q @ k.transpose(-2, -1)) / math.sqrt(Dh)  # (B, H, T, T)
        pad = key_padding_mask(lengths, T)  # (B, T) over keys
        s = s.masked_fill(pad[:, None, None, :], float("-inf"))
        a = torch.softmax(s, dim=-1)  # max-subtracted; masked keys get exactly 0
        a_drop = F.dropout(a, self.dropout, self.training)
        o = a_drop @ v  # (B, H, T, Dh)
        concat = o.transpose(1, 2).reshape(B, T, D)  # head h fills columns h*Dh ..
        out = self.out(concat)  # (B, T, D)
        if rec is not None:
            rec[prefix + "qkv"] = qkv
            rec[prefix + "attn.probs"] = a
            rec[prefix + "attn.concat"] = concat
            rec[prefix + "attn.out"] = out
        return out


class FeedForward(nn.Module):
    """GELU(u W1^T + b1) W2^T + b2, exact (erf) GELU. u: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)  # W1: (F, D), b1: (F)
        self.fc2 = nn.Linear(d_ff, d_model)  # W2: (D, F), b2: (D)

    def forward(self, u, rec=None, prefix=""):
        pre = self.fc1(u)  # (B, T, F)
        act = F.gelu(pre)  # approximate='none': 0.5 x (1 + erf(x / sqrt 2))
        out = self.fc2(act)  # (B, T, D)
        if rec is not None:
            rec[prefix + "ff.pre"] = pre
            rec[prefix + "ff.act"] = act
            rec[prefix + "ff.out"] = out
        return out


class Block(nn.Module):
    """Pre-norm encoder block. x: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model, n_heads, d_ff, dropout=0.0):
        super().__init__()
        self.dropout = dropout
        self.ln1 = nn.LayerNorm(d_model, eps=LN_EPS)
        self.attn = Attention(d_model, n_heads, dropout)
        self.ln2 = nn.LayerNorm(d_model, eps=LN_EPS)
        self.ff = FeedForward(d_model, d_ff)

    def forward(self, x, lengths, rec=None, prefix=""):
        u = self.ln1(x)
        x = x + F.dropout(self.attn(u, lengths, rec, prefix), self.dropout, self.training)
        if rec is not None:
            rec[prefix + "ln1"] = u
            rec[prefix + "resid1"] = x
        u = self.ln2(x)
        x = x + F.dropout(self.ff(u, rec, prefix), self.dropout, self.training)
        if rec is not None:
            rec[prefix + "ln2"] = u
            rec[prefix + "resid2"] = x
        return x


class AttentionPool(nn.Module):
    """pooled_b = sum_{t < len} a_t z_t, a = softmax over the real tokens of z_t . q / sqrt(D).

    q starts at 0, where every token weighs the same: mean pooling."""

    def __init__(self, d_model):
        super().__init__()
        self.query = nn.Parameter(torch.zeros(d_model))

    def forward(self, z, lengths):
        scores = (z @ self.query) / math.sqrt(z.shape[-1])  # (B, T)
        scores = scores.masked_fill(key_padding_mask(lengths, z.shape[1]), float("-inf"))
        return (torch.softmax(scores, dim=1)[:, :, None] * z).sum(dim=1)


class RouterRef(nn.Module):
    """The classifier. forward(ids (B, T) int64 padded with 0, lengths (B)) -> logits (B, K)."""

    def __init__(self, vocab_size, num_labels, d_model, n_heads, n_layers, d_ff, max_len,
                 positional="sinusoidal", dropout=0.0, pooling="mean", norm="pre"):
        super().__init__()
        if positional not in ("sinusoidal", "none"):
            raise ValueError(f"positional must be sinusoidal or none, got {positional!r}")
        if pooling not in ("mean", "max", "attention") or norm != "pre":
            raise ValueError("pooling must be mean, max or attention, and norm pre")
        self.vocab_size, self.num_labels = vocab_size, num_labels
        self.d_model, self.n_heads, self.n_layers = d_model, n_heads, n_layers
        self.d_ff, self.max_len, self.positional = d_ff, max_len, positional
        self.dropout, self.pooling = dropout, pooling
        self.embed = nn.Embedding(vocab_size, d_model)  # E: (V, D)
        self.layers = nn.ModuleList(
            [Block(d_model, n_heads, d_ff, dropout) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(d_model, eps=LN_EPS)
        if pooling == "attention":
            self.pool = AttentionPool(d_model)  # registered here: state_dict order = file order
        self.classifier = nn.Linear(d_model, num_labels)  # Wc: (K, D), bc: (K)
        # A plain attribute, not a buffer: stays float64 whatever .to() does, and is not in
        # state_dict. It is rounded to the working type at use.
        self.pos_table = torch.from_numpy(sinusoid_table(max_len, d_model))

    @property
    def config(self):
        return {"d_model": self.d_model, "n_heads": self.n_heads, "n_layers": self.n_layers,
                "d_ff": self.d_ff, "max_len": self.max_len, "positional": self.positional,
                "pooling": self.pooling, "norm": "pre"}

    def reset_parameters_spec(self, generator=None):
        """The init of docs/architecture.md in distribution (torch RNG, not router's splitmix64)."""
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name == "embed.weight":
                    p.normal_(0.0, 1.0, generator=generator)
                elif name.endswith("bias") or name == "pool.query":
                    p.zero_()
                elif is_layer_norm_param(name):
                    p.fill_(1.0)
                else:
                    p.normal_(0.0, 0.02, generator=generator)

    def forward(self, ids, lengths, temperature=1.0, return_intermediates=False):
        """ids: (B, T) int64, lengths: (B) -> logits (B, K) [, dict of every intermediate]."""
        B, T = ids.shape
        lengths = torch.as_tensor(lengths, dtype=torch.int64, device=ids.device)
        if T > self.max_len:
            raise ValueError(f"T = {T} exceeds max_len {self.max_len}")
        if lengths.shape != (B,) or bool((lengths < 1).any()) or bool((lengths > T).any()):
            raise ValueError("every length must be in 1..T")
        rec = {} if return_intermediates else None
        x = self.embed(ids)  # (B, T, D)
        if self.positional == "sinusoidal":
            x = x + self.pos_table[:T].to(dtype=x.dtype, device=x.device)[None]
        if rec is not None:
            rec["x0"] = x
        x = F.dropout(x, self.dropout, self.training)
        for l, layer in enumerate(self.layers):
            x = layer(x, lengths, rec, f"layers.{l}.")
        z = self.norm(x)  # (B, T, D)
        pad = key_padding_mask(lengths, T)[:, :, None]  # (B, T, 1)
        if self.pooling == "max":  # each column's largest value over the real tokens
            pooled = z.masked_fill(pad, float("-inf")).max(dim=1).values  # (B, D)
        elif self.pooling == "attention":
            pooled = self.pool(z, lengths)  # (B, D)
        else:
            pooled = z.masked_fill(pad, 0.0).sum(dim=1) / lengths.to(z.dtype)[:, None]  # (B, D)
        logits = self.classifier(pooled)  # (B, K)
        if rec is None:
            return logits
        rec["norm"] = z
        rec["pooled"] = pooled
        rec["logits"] = logits
        rec["probs"] = torch.softmax(logits / temperature, dim=-1)
        return logits, rec


def is_layer_norm_param(name):
    return ".ln1." in name or ".ln2." in name or name.startswith("norm.")


def decayed_param_names(model):
    """embed.weight and every Linear weight: the parameters AdamW decays."""
    names = []
    for mname, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            names.append(f"{mname}.weight")
    return names


# ---------------------------------------------------------------------------------------------
# Training


def smoothed_cross_entropy(logits, targets, eps):
    """logits: (B, K), targets: (B) -> mean over B of -sum_k q_k log softmax(logits)_k."""
    K = logits.shape[-1]
    q = torch.full_like(logits, eps / K)
    q.scatter_add_(1, targets[:, None], torch.full_like(logits[:, :1], 1.0 - eps))
    return -(q * torch.log_softmax(logits, dim=-1)).sum(dim=-1).mean()


def masked_token_loss(z, embed, rows, targets):
    """Pretraining's loss: the masked rows of z (N, D) predict their tokens through the embedding
    table (V, D) itself, logits z_r E^T / sqrt(D); the mean cross-entropy over those rows."""
    logits = z[rows] @ embed.T / math.sqrt(z.shape[1])
    return F.cross_entropy(logits, targets)


def make_adamw(model, lr, weight_decay, betas=(0.9, 0.999), eps=1e-8):
    """torch.optim.AdamW with two groups: decayed (embed, Linear weights) and not (LN, biases)."""
    decayed = set(decayed_param_names(model))
    groups = [
        {"params": [p for n, p in model.named_parameters() if n in decayed],
         "weight_decay": weight_decay},
        {"params": [p for n, p in model.named_parameters() if n not in decayed],
         "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, betas=betas, eps=eps, foreach=False)


def clip_grad_norm(params, clip):
    """Global-norm clipping as in the spec: if n > clip, g *= clip / (n + 1e-6). Returns n."""
    grads = [p.grad for p in params if p.grad is not None]
    n = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))
    if clip is not None and n > clip:
        scale = clip / (n + CLIP_EPS)
        for g in grads:
            g.mul_(scale)
    return n


def warmup_cosine(total_steps, warmup_share, base_lr):
    """lr for step s = 0..total-1: s/W * base during warm-up (W = int(share * total)), then
    0.5 (1 + cos(pi (s - W) / (total - W))) * base. Hugging Face's cosine-with-warmup."""
    W = int(warmup_share * total_steps)

    def lr_at(s):
        if s < W:
            return base_lr * s / W
        return base_lr * 0.5 * (1.0 + math.cos(math.pi * (s - W) / max(1, total_steps - W)))

    return lr_at


def pad_batch(seqs, max_len):
    """seqs: id lists -> ids (B, T) int64 padded with 0, lengths (B). Truncates to max_len."""
    seqs = [list(s[:max_len]) or [PAD_ID] for s in seqs]  # an empty email keeps one [PAD] token
    T = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), T), dtype=torch.int64)
    for b, s in enumerate(seqs):
        ids[b, :len(s)] = torch.tensor(s, dtype=torch.int64)
    return ids, torch.tensor([len(s) for s in seqs], dtype=torch.int64)


def train_epoch(model, optimizer, examples, *, batch_size=32, label_smoothing=0.1, clip=1.0,
                lr_at=None, first_step=0, num_threads=1, shuffle_seed=None):
    """One pass over examples [(ids list, label int)]: AdamW steps with clipping and smoothing.

    optimizer: from make_adamw(). lr_at(step) -> lr, or None for the optimizer's own lr.
    Returns {"loss": mean batch loss, "steps", "examples", "seconds", "grad_norms"}.
    """
    torch.set_num_threads(num_threads)
    model.train()
    order = list(range(len(examples)))
    if shuffle_seed is not None:
        g = torch.Generator().manual_seed(shuffle_seed)
        order = torch.randperm(len(examples), generator=g).tolist()
    params = [p for p in model.parameters()]
    losses, norms = [], []
    start = time.perf_counter()
    step = first_step
    for i in range(0, len(order), batch_size):
        batch = [examples[j] for j in order[i:i + batch_size]]
        ids, lengths = pad_batch([e[0] for e in batch], model.max_len)
        targets = torch.tensor([e[1] for e in batch], dtype=torch.int64)
        if lr_at is not None:
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(ids, lengths), targets, label_smoothing=label_smoothing)
        loss.backward()
        norms.append(clip_grad_norm(params, clip))
        optimizer.step()
        losses.append(float(loss))
        step += 1
    return {"loss": sum(losses) / max(1, len(losses)), "steps": len(losses),
            "examples": len(examples), "seconds": time.perf_counter() - start, "grad_norms": norms}


# ---------------------------------------------------------------------------------------------
# Deterministic JSON


def format_float64(x):
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"non-finite number {x}")
    return repr(x)


def format_float32(x):
    """Shortest decimal that reads back to the same 32-bit float (numpy's Dragon4, unique)."""
    f = np.float32(x)
    if not np.isfinite(f):
        raise ValueError(f"non-finite number {x}")
    return str(f)


def json_dumps(obj, float_format=format_float64, sort_keys=True, indent=1):
    """JSON text with objects indented, and each list of scalars on one line."""
    def scalar(v):
        if v is None:
            return "null"
        if isinstance(v, (bool, np.bool_)):
            return "true" if v else "false"
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            return float_format(v)
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        raise TypeError(f"cannot write {type(v).__name__} to JSON")

    def write(v, level):
        pad = " " * (indent * (level + 1))
        if isinstance(v, dict):
            if not v:
                return "{}"
            keys = sorted(v) if sort_keys else list(v)
            items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {write(v[k], level + 1)}"
                     for k in keys]
            return "{\n" + ",\n".join(items) + "\n" + " " * (indent * level) + "}"
        if isinstance(v, (list, tuple)):
            if all(not isinstance(e, (dict, list, tuple)) for e in v):
                return "[" + ", ".join(scalar(e) for e in v) + "]"
            return ("[\n" + ",\n".join(pad + write(e, level + 1) for e in v) + "\n"
                    + " " * (indent * level) + "]")
        return scalar(v)

    return write(obj, 0) + "\n"


def tensor_json(t):
    """Tensor -> {"shape": [...], "data": [row-major flattened]}."""
    t = t.detach().cpu()
    data = t.flatten().tolist()
    return {"shape": list(t.shape), "data": data}


def write_atomic(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file ordinary permissions
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------------------------
# Model file (docs/model-format.md)


class ModelFileError(ValueError):
    pass


def expected_shapes(vocab_size, num_labels, config):
    D, F_, L = config["d_model"], config["d_ff"], config["n_layers"]
    shapes = {"embed.weight": [vocab_size, D]}
    for l in range(L):
        p = f"layers.{l}."
        shapes.update({p + "ln1.weight": [D], p + "ln1.bias": [D],
                       p + "attn.qkv.weight": [3 * D, D], p + "attn.out.weight": [D, D],
                       p + "ln2.weight": [D], p + "ln2.bias": [D],
                       p + "ff.fc1.weight": [F_, D], p + "ff.fc1.bias": [F_],
                       p + "ff.fc2.weight": [D, F_], p + "ff.fc2.bias": [D]})
    shapes.update({"norm.weight": [D], "norm.bias": [D],
                   "classifier.weight": [num_labels, D], "classifier.bias": [num_labels]})
    return shapes


def load_router_json(path, dtype=torch.float32):
    """Reads a router model file -> (RouterRef in eval mode, labels, config, temperature)."""
    def bad(where, msg):
        raise ModelFileError(f"{path}: {where}: {msg}")

    with open(path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict):
        bad("/", "expected an object")
    known = {"format", "version", "config", "labels", "tokenizer", "calibration", "metadata",
             "tensors"}
    for k in doc:
        if k not in known:
            bad(f"/{k}", "unknown key")
    if doc.get("format") != FORMAT_NAME:
        bad("/format", f"expected {FORMAT_NAME!r}")
    if doc.get("version") != FORMAT_VERSION:
        bad("/version", f"expected {FORMAT_VERSION}")
    config = doc.get("config")
    if not isinstance(config, dict):
        bad("/config", "missing or not an object")
    for k in config:
        if k not in CONFIG_KEYS:
            bad(f"/config/{k}", "unknown key")
    limits = {"d_model": (1, 4096), "n_heads": (1, 256), "n_layers": (0, 64),
              "d_ff": (1, 16384), "max_len": (1, 8192)}
    for k, (lo, hi) in limits.items():
        v = config.get(k)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            bad(f"/config/{k}", f"expected an integer in {lo}..{hi}, got {v!r}")
    if config["d_model"] % config["n_heads"]:
        bad("/config/n_heads", "must divide d_model")
    config = dict(config)
    config.setdefault("pooling", "mean")  # as router: an absent pooling means mean
    for k, allowed in (("positional", ("sinusoidal", "none")), ("pooling", ("mean", "max")),
                       ("norm", ("pre",))):
        if config.get(k) not in allowed:
            bad(f"/config/{k}", f"expected one of {list(allowed)}, got {config.get(k)!r}")
    labels = doc.get("labels")
    if (not isinstance(labels, list) or not 2 <= len(labels) <= 10000
            or not all(isinstance(s, str) and s for s in labels)):
        bad("/labels", "expected 2..10000 non-empty strings")
    if len(set(labels)) != len(labels):
        bad("/labels", "labels are not unique")
    tok = doc.get("tokenizer")
    if not isinstance(tok, dict) or not isinstance(tok.get("vocab"), list):
        bad("/tokenizer/vocab", "missing")
    vocab_size = len(tok["vocab"])
    temperature = 1.0
    if "calibration" in doc:
        t = doc["calibration"].get("temperature") if isinstance(doc["calibration"], dict) else None
        if t is not None:
            if not isinstance(t, (int, float)) or isinstance(t, bool) or not (
                    math.isfinite(t) and t > 0):
                bad("/calibration/temperature", "expected a finite number > 0")
            temperature = float(t)
    tensors = doc.get("tensors")
    if not isinstance(tensors, dict):
        bad("/tensors", "missing or not an object")
    shapes = expected_shapes(vocab_size, len(labels), config)
    for name in tensors:
        if name not in shapes:
            bad(f"/tensors/{name}", "unknown tensor")
    model = RouterRef(vocab_size, len(labels), **config).to(dtype)
    state = {}
    for name, shape in shapes.items():
        where = f"/tensors/{name}"
        if name not in tensors:
            bad(where, "missing")
        entry = tensors[name]
        if entry.get("shape") != shape:
            bad(where + "/shape", f"expected {shape}, got {entry.get('shape')}")
        data = np.asarray(entry.get("data"), dtype=np.float64)
        if data.ndim != 1 or data.size != math.prod(shape):
            bad(where + "/data", f"expected {math.prod(shape)} numbers")
        if not np.isfinite(data).all():
            bad(where + "/data", "non-finite number")
        state[name] = torch.from_numpy(data.reshape(shape)).to(dtype)
    model.load_state_dict(state, strict=True)
    model.eval()
    return model, list(labels), dict(config), temperature


def save_router_json(model, path, labels, tokenizer_section, config=None, temperature=None,
                     metadata=None):
    """Writes a router model file (atomically). Floats are the shortest float32 round-trip form."""
    config = dict(config if config is not None else model.config)
    if config != model.config:
        raise ValueError(f"config {config} does not match the model {model.config}")
    if len(labels) != model.num_labels:
        raise ValueError(f"{len(labels)} labels for a model with {model.num_labels} outputs")
    if len(tokenizer_section.get("vocab", [])) != model.vocab_size:
        raise ValueError("tokenizer vocabulary size does not match embed.weight")
    doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION,
           "config": {k: config[k] for k in CONFIG_KEYS},
           "labels": list(labels), "tokenizer": tokenizer_section}
    if temperature is not None:
        doc["calibration"] = {"temperature": float(temperature)}
    if metadata is not None:
        doc["metadata"] = metadata
    doc["tensors"] = {name: tensor_json(t.float()) for name, t in model.state_dict().items()}
    write_atomic(path, json_dumps(doc, float_format=format_float32, sort_keys=False))


# ---------------------------------------------------------------------------------------------
# --check


def sdpa(q, k, v, mask=None):
    """torch's fused attention (public from 2.0, private _scaled_dot_product_attention in 1.13)."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F._scaled_dot_product_attention(q, k, v, attn_mask=mask)[0]


def run_checks():
    torch.set_num_threads(1)
    dt = torch.float64
    failures = []

    def check(name, ok, detail=""):
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
        if not ok:
            failures.append(name)

    def maxdiff(a, b):
        return float((a - b).abs().max())

    g = torch.Generator().manual_seed(7)

    # 1. Hand attention == torch's scaled_dot_product_attention (unpadded), and ==
    #    nn.MultiheadAttention with a key padding mask (padded).
    B, T, D, H = 2, 6, 8, 2
    att = Attention(D, H).to(dt)
    with torch.no_grad():
        for p in att.parameters():
            p.normal_(0, 0.5, generator=g)
    u = torch.randn(B, T, D, generator=g, dtype=dt)
    full = torch.full((B,), T, dtype=torch.int64)
    ours = att(u, full)
    qkv = u @ att.qkv.weight.T
    q, k, v = (x.reshape(B, T, H, D // H).transpose(1, 2) for x in qkv.split(D, -1))
    ref = (sdpa(q, k, v).transpose(1, 2).reshape(B, T, D)) @ att.out.weight.T
    d = maxdiff(ours, ref)
    check("attention == scaled_dot_product_attention (unpadded)", d < 1e-12, f"max diff {d:.3g}")
    mha = nn.MultiheadAttention(D, H, bias=False, batch_first=True).to(dt)
    with torch.no_grad():
        mha.in_proj_weight.copy_(att.qkv.weight)
        mha.out_proj.weight.copy_(att.out.weight)
    lengths = torch.tensor([4, 6])
    ref, _ = mha(u, u, u, key_padding_mask=key_padding_mask(lengths, T), need_weights=False)
    d = maxdiff(att(u, lengths), ref)
    check("attention == nn.MultiheadAttention with key padding mask", d < 1e-12,
          f"max diff {d:.3g}")

    # 2. positional none: permuting the real tokens of a sequence leaves the logits unchanged;
    #    sinusoidal: it does change them. Padding content never matters.
    def tiny(positional):
        torch.manual_seed(3)
        m = RouterRef(30, 4, 8, 2, 2, 16, 16, positional=positional).to(dt).eval()
        with torch.no_grad():
            for p in m.parameters():
                p.add_(0.3 * torch.randn(p.shape, generator=g, dtype=dt))
        return m

    ids = torch.tensor([[5, 9, 2, 17, 11, 3, 0, 0], [8, 8, 21, 4, 29, 13, 6, 1]])
    lengths = torch.tensor([6, 8])
    perm = ids.clone()
    perm[0, :6] = ids[0, torch.tensor([3, 0, 5, 1, 4, 2])]
    perm[1, :8] = ids[1, torch.tensor([7, 6, 5, 4, 3, 2, 1, 0])]
    m = tiny("none")
    d = maxdiff(m(ids, lengths), m(perm, lengths))
    check("positional none: permuted tokens give the same logits", d < 1e-12, f"max diff {d:.3g}")
    m = tiny("sinusoidal")
    d = maxdiff(m(ids, lengths), m(perm, lengths))
    check("positional sinusoidal: permuted tokens change the logits", d > 1e-6, f"max diff {d:.3g}")
    other_pad = ids.clone()
    other_pad[0, 6:] = torch.tensor([27, 12])
    d = maxdiff(m(ids, lengths), m(other_pad, lengths))
    check("padding ids do not influence the logits", d == 0.0, f"max diff {d:.3g}")
    m.zero_grad()
    F.cross_entropy(m(ids, lengths), torch.tensor([1, 3]), label_smoothing=0.1).backward()
    d = float(m.embed.weight.grad[0].abs().max())
    check("[PAD] embedding row gets zero gradient", d == 0.0, f"max |grad| {d:.3g}")

    # 3. Autograd gradients == finite differences (gradcheck), whole tiny model and single layers.
    m = RouterRef(11, 3, 4, 2, 1, 6, 8).to(dt)
    with torch.no_grad():
        for p in m.parameters():
            p.normal_(0, 0.5, generator=g)
    names = [n for n, _ in m.named_parameters()]
    ids = torch.tensor([[3, 7, 1, 0], [2, 10, 5, 9]])
    lengths = torch.tensor([3, 4])
    targets = torch.tensor([2, 0])

    def model_loss(*params):
        logits = torch.nn.utils.stateless.functional_call(
            m, dict(zip(names, params)), (ids, lengths))
        return F.cross_entropy(logits, targets, label_smoothing=0.1)

    params = tuple(p.detach().clone().requires_grad_(True) for p in m.parameters())
    check("gradcheck: whole model, every parameter", torch.autograd.gradcheck(
        model_loss, params, eps=1e-6, atol=1e-7, rtol=1e-5))
    att = Attention(4, 2).to(dt)
    u = torch.randn(1, 5, 4, generator=g, dtype=dt, requires_grad=True)
    wq = torch.randn(12, 4, generator=g, dtype=dt, requires_grad=True)
    wo = torch.randn(4, 4, generator=g, dtype=dt, requires_grad=True)
    check("gradcheck: masked attention (len 3 of 5)", torch.autograd.gradcheck(
        lambda u, a, b: torch.nn.utils.stateless.functional_call(
            att, {"qkv.weight": a, "out.weight": b}, (u, torch.tensor([3]))),
        (u, wq, wo), eps=1e-6, atol=1e-7))
    x = torch.randn(3, 5, generator=g, dtype=dt, requires_grad=True)
    w = torch.randn(5, generator=g, dtype=dt, requires_grad=True)
    b = torch.randn(5, generator=g, dtype=dt, requires_grad=True)
    check("gradcheck: layer norm", torch.autograd.gradcheck(
        lambda x, w, b: F.layer_norm(x, (5,), w, b, LN_EPS), (x, w, b), eps=1e-6, atol=1e-7))
    check("gradcheck: gelu", torch.autograd.gradcheck(F.gelu, (x,), eps=1e-6, atol=1e-7))
    lg = torch.randn(3, 4, generator=g, dtype=dt, requires_grad=True)
    tg = torch.tensor([0, 3, 1])
    check("gradcheck: smoothed cross-entropy", torch.autograd.gradcheck(
        lambda z: smoothed_cross_entropy(z, tg, 0.1), (lg,), eps=1e-6, atol=1e-7))
    d = abs(float(smoothed_cross_entropy(lg, tg, 0.1)
                  - F.cross_entropy(lg, tg, label_smoothing=0.1)))
    check("smoothed cross-entropy == F.cross_entropy(label_smoothing)", d < 1e-14, f"diff {d:.3g}")

    # 4. Parameter counts of one attention block: 4 D^2.
    for D_, want in ((64, 16384), (512, 1048576)):
        n = sum(p.numel() for p in Attention(D_, 8).parameters())
        check(f"attention parameters at D={D_}, H=8 == {want}", n == want, str(n))
    m = RouterRef(23, 3, 8, 2, 2, 16, 16)
    check("state_dict keys == docs/architecture.md",
          list(m.state_dict()) == list(expected_shapes(23, 3, m.config)),
          ", ".join(m.state_dict()))
    check("state_dict shapes == docs/architecture.md",
          all(list(t.shape) == s for t, s in zip(m.state_dict().values(),
                                                  expected_shapes(23, 3, m.config).values())))

    # 5. Sinusoid values.
    row = sinusoid_table(51, 4)[44]
    check("sinusoid d_model 4 position 44 = 0.018 1.000 0.426 0.905",
          [f"{x:.3f}" for x in row] == ["0.018", "1.000", "0.426", "0.905"],
          " ".join(f"{x:.6f}" for x in row))
    row = sinusoid_table(4, 16)[1]
    check("sinusoid d_model 16 position 1 starts 0.8415 0.5403 0.3110 0.9504",
          [f"{x:.4f}" for x in row[:4]] == ["0.8415", "0.5403", "0.3110", "0.9504"],
          " ".join(f"{x:.6f}" for x in row[:4]))

    # 6. The spec's clipping and AdamW formulas == clip_grad_norm_ and torch.optim.AdamW.
    def fresh():
        torch.manual_seed(5)
        mm = RouterRef(30, 4, 8, 2, 1, 16, 16).to(dt)
        with torch.no_grad():
            for p in mm.parameters():
                p.add_(0.3 * torch.randn(p.shape, generator=torch.Generator().manual_seed(1),
                                         dtype=dt))
        return mm

    ids = torch.tensor([[5, 9, 2, 17, 11, 3, 0, 0], [8, 8, 21, 4, 29, 13, 6, 1]])
    lengths = torch.tensor([6, 8])
    targets = torch.tensor([1, 3])
    lr, wd, clip = 0.01, 0.1, 0.5
    a, b = fresh(), fresh()
    opt = make_adamw(a, lr, wd)
    decayed = set(decayed_param_names(b))
    state = {n: (torch.zeros_like(p), torch.zeros_like(p)) for n, p in b.named_parameters()}
    clipped = 0
    for t in range(1, 6):
        for mm in (a, b):
            mm.zero_grad()
            F.cross_entropy(mm(ids, lengths), targets, label_smoothing=0.1).backward()
        n_torch = float(torch.nn.utils.clip_grad_norm_(a.parameters(), clip))
        n_ours = clip_grad_norm(list(b.parameters()), clip)
        clipped += n_ours > clip
        opt.step()
        with torch.no_grad():
            for n, p in b.named_parameters():
                m1, v1 = state[n]
                if n in decayed:
                    p.mul_(1 - lr * wd)
                m1.mul_(0.9).add_(0.1 * p.grad)
                v1.mul_(0.999).add_(0.001 * p.grad ** 2)
                p.sub_(lr * (m1 / (1 - 0.9 ** t)) / ((v1 / (1 - 0.999 ** t)).sqrt() + 1e-8))
        if abs(n_torch - n_ours) > 1e-12 * n_ours:
            check("clip norm == clip_grad_norm_", False, f"{n_torch} vs {n_ours}")
    d = max(maxdiff(p, q) for p, q in zip(a.parameters(), b.parameters()))
    check(f"5 AdamW steps: spec formulas == torch.optim.AdamW ({clipped} clipped)", d < 1e-12,
          f"max diff {d:.3g}")

    print(f"{len(failures)} failed" if failures else "all checks passed")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="run the sanity checks; exit 1 on failure")
    args = ap.parse_args()
    if args.check:
        return run_checks()
    ap.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
