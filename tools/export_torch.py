#!/usr/bin/python3
"""Exports a RouterRef state_dict (tools/torch_ref.py, torch.save) to a router model JSON file.

The weights come from the .pt file; the labels and the whole "tokenizer" section are copied from
an existing router model file (--tokenizer-from), so the exported model tokenizes exactly like it.
The .pt file holds either a bare state_dict, or a dict {"state_dict": ..., "config": {...},
"temperature": t, "metadata": {...}} (every key but "state_dict" optional).

The config is, key by key, the first of: a command-line option, the .pt file's "config", the
--tokenizer-from model's config. d_model, n_layers and d_ff must agree with the tensor shapes;
embed.weight must have one row per vocabulary piece and classifier.weight one row per label.
The calibration temperature is --temperature, else the .pt file's, else omitted (1). Never
copied from --tokenizer-from, whose temperature belongs to other weights.

Output floats are the shortest decimals that read back to the same float32; the file is written
to a temporary name and renamed into place. `--selftest` exports a tiny random model, reloads it
with load_router_json and checks that everything round-trips bit for bit.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_ref as ref  # noqa: E402


class ExportError(Exception):
    pass


def read_checkpoint(path):
    """-> (state_dict of tensors, config or {}, temperature or None, metadata or None)."""
    obj = torch.load(path, map_location="cpu")
    if isinstance(obj, dict) and "state_dict" in obj:
        state = obj["state_dict"]
        config, temperature, metadata = (obj.get("config") or {}, obj.get("temperature"),
                                         obj.get("metadata"))
    else:
        state, config, temperature, metadata = obj, {}, None, None
    if not isinstance(state, dict) or not all(torch.is_tensor(t) for t in state.values()):
        raise ExportError(f"{path}: not a state_dict (a dict of tensors)")
    return dict(state), dict(config), temperature, metadata


def export(pt_path, tokenizer_from, out_path, overrides, temperature=None, metadata=None):
    if os.path.abspath(out_path) in (os.path.abspath(pt_path), os.path.abspath(tokenizer_from)):
        raise ExportError(f"{out_path}: refusing to overwrite an input")
    state, pt_config, pt_temperature, pt_metadata = read_checkpoint(pt_path)
    with open(tokenizer_from, "r", encoding="utf-8") as f:
        donor = json.load(f)
    for key in ("labels", "tokenizer", "config"):
        if key not in donor:
            raise ExportError(f"{tokenizer_from}: /{key}: missing")
    labels, tokenizer = donor["labels"], donor["tokenizer"]

    config = {}
    sources = (("the command line", overrides), (pt_path, pt_config),
               (tokenizer_from, donor["config"]))
    for key in ref.CONFIG_KEYS:
        for where, source in sources:
            if source.get(key) is not None:
                config[key] = source[key]
                # n_heads and max_len cannot be checked against the tensors: say whence.
                print(f"config.{key} = {config[key]} (from {where})", file=sys.stderr)
                break
        else:
            raise ExportError(f"config.{key}: not given and not found in any input")
    if "embed.weight" not in state or "norm.weight" not in state:
        raise ExportError(f"{pt_path}: embed.weight or norm.weight missing")
    n_layers = len({k.split(".")[1] for k in state if k.startswith("layers.")})
    inferred = {"d_model": state["embed.weight"].shape[1], "n_layers": n_layers}
    if n_layers:
        inferred["d_ff"] = state["layers.0.ff.fc1.weight"].shape[0]
    for key, value in inferred.items():
        if config[key] != value:
            raise ExportError(f"config.{key} is {config[key]} but the tensors say {value}")
    vocab = tokenizer.get("vocab", [])
    if state["embed.weight"].shape[0] != len(vocab):
        raise ExportError(f"embed.weight has {state['embed.weight'].shape[0]} rows but "
                          f"{tokenizer_from} has {len(vocab)} pieces")

    model = ref.RouterRef(len(vocab), len(labels), **config)
    try:
        model.load_state_dict({k: v.float() for k, v in state.items()}, strict=True)
    except RuntimeError as e:
        raise ExportError(f"{pt_path}: {e}") from None
    if temperature is None:
        temperature = pt_temperature
    meta = {"exported_by": "tools/export_torch.py", "source": os.path.basename(pt_path),
            "tokenizer_from": os.path.basename(tokenizer_from)}
    if pt_metadata:
        meta["checkpoint"] = pt_metadata
    if metadata:
        meta.update(metadata)
    ref.save_router_json(model, out_path, labels, tokenizer, config, temperature, meta)
    return model


def selftest():
    """Tiny random model -> .pt -> export -> load_router_json: every value must round-trip."""
    torch.manual_seed(1)
    V, labels = 11, ["billing", "refund_item", "other"]
    config = {"d_model": 8, "n_heads": 2, "n_layers": 2, "d_ff": 12, "max_len": 10,
              "positional": "sinusoidal", "pooling": "mean", "norm": "pre"}
    model = ref.RouterRef(V, len(labels), **config)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 1.0)
        model.embed.weight[6, 0] = 1e-30  # extremes of the float32 range still round-trip
        model.embed.weight[6, 1] = -3.0e38  # (row 6 is not used by the logits check below)
        model.embed.weight[6, 2] = 1.0 / 3.0
    tokenizer = {"type": "sentencepiece-bpe",
                 "normalization": {"lowercase": True, "collapse_whitespace": True,
                                   "pretokenizer": "router-v1"},
                 "vocab": ["[PAD]", "[UNK]"] + [f"\u2581p{i}" for i in range(V - 2)],
                 "model": "c2VsZnRlc3Q="}
    donor = {"format": "router-model", "version": 1, "config": dict(config, n_heads=4),
             "labels": labels, "tokenizer": tokenizer, "calibration": {"temperature": 9.0},
             "tensors": {}}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        donor_path, pt_path = os.path.join(tmp, "donor.json"), os.path.join(tmp, "w.pt")
        with open(donor_path, "w", encoding="utf-8") as f:
            json.dump(donor, f)
        torch.save({"state_dict": model.state_dict(), "config": config}, pt_path)
        outs = [os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")]
        for out in outs:
            main([pt_path, "--tokenizer-from", donor_path, "-o", out, "--temperature", "1.37"])
        loaded, got_labels, got_config, got_t = ref.load_router_json(outs[0])
        with open(outs[0], "rb") as f, open(outs[1], "rb") as g:
            text = f.read()
            same_bytes = text == g.read()
        doc = json.loads(text)

        def check(name, ok):
            print(f"{'ok  ' if ok else 'FAIL'} {name}")
            if not ok:
                failures.append(name)

        check("config from the .pt wins over --tokenizer-from", got_config == config)
        check("labels copied", got_labels == labels)
        check("tokenizer section copied", doc["tokenizer"] == tokenizer)
        check("temperature", got_t == 1.37)
        check("state_dict keys and order", list(loaded.state_dict()) == list(model.state_dict()))
        check("every tensor round-trips bit for bit", all(
            torch.equal(a, b) for a, b in zip(loaded.state_dict().values(),
                                              model.state_dict().values())))
        data = np.asarray(doc["tensors"]["embed.weight"]["data"][6 * 8:6 * 8 + 3])
        check("shortest float32 form is used", text.count(b"0.33333334,") == 1
              and data.astype(np.float32)[1] == np.float32(-3.0e38))
        ids, lengths = torch.tensor([[3, 4, 5, 0], [7, 8, 9, 10]]), torch.tensor([3, 4])
        check("same logits", torch.equal(model.eval()(ids, lengths), loaded(ids, lengths)))
        check("two exports are byte-identical", same_bytes)
        try:
            main([pt_path, "--tokenizer-from", donor_path, "-o", os.path.join(tmp, "c.json"),
                  "--d-ff", "16"])
            check("a config that contradicts the tensors is refused", False)
        except ExportError:
            check("a config that contradicts the tensors is refused", True)
    print(f"{len(failures)} failed" if failures else "selftest passed")
    return 1 if failures else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("state_dict", nargs="?", help="the .pt file written by torch.save")
    ap.add_argument("--tokenizer-from", metavar="MODEL.json",
                    help="router model file whose labels and tokenizer section are copied")
    ap.add_argument("-o", "--output", metavar="OUT.json", help="model file to write")
    ap.add_argument("--n-heads", type=int)
    ap.add_argument("--max-len", type=int)
    ap.add_argument("--d-model", type=int)
    ap.add_argument("--n-layers", type=int)
    ap.add_argument("--d-ff", type=int)
    ap.add_argument("--positional", choices=["sinusoidal", "none"])
    ap.add_argument("--temperature", type=float, help="calibration temperature to store")
    ap.add_argument("--metadata", metavar="JSON", help="object merged into the file's metadata")
    ap.add_argument("--selftest", action="store_true",
                    help="export a tiny random model, reload it, check it; exit 1 on failure")
    args = ap.parse_args(argv)
    if args.selftest:
        return selftest()
    if not (args.state_dict and args.tokenizer_from and args.output):
        ap.error("state_dict, --tokenizer-from and --output are required")
    overrides = {"n_heads": args.n_heads, "max_len": args.max_len, "d_model": args.d_model,
                 "n_layers": args.n_layers, "d_ff": args.d_ff, "positional": args.positional}
    metadata = json.loads(args.metadata) if args.metadata else None
    if metadata is not None and not isinstance(metadata, dict):
        ap.error("--metadata must be a JSON object")
    if args.temperature is not None and not args.temperature > 0:
        ap.error("--temperature must be > 0")
    export(args.state_dict, args.tokenizer_from, args.output, overrides, args.temperature,
           metadata)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ExportError, ref.ModelFileError, OSError, ValueError) as e:
        print(f"export_torch: {e}", file=sys.stderr)
        sys.exit(1)
