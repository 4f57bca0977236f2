#!/usr/bin/env python3
"""Splits the hand-written Crumb corpus (data/crumb/hand/w*.jsonl) into training and validation
files: a pair (or an unpaired email) goes to validation when the first byte of the SHA-256 of
its pair id (or email id) is below 32, about one in eight, so both emails of a pair stay on one
side and the split does not move when emails are added. Records keep their keys.
Usage: tools/crumb_hand_split.py OUT_TRAIN OUT_VALID [WRITER_FILE ...]
(default writer files: data/crumb/hand/w*.jsonl in writer order, w1, w2, ..., w10, ...)
"""
import glob
import hashlib
import json
import os
import re
import sys


def to_valid(record):
    key = record["pair"] or record["id"]
    return hashlib.sha256(key.encode()).digest()[0] < 32


def writer_number(path):
    """w12.jsonl -> 12; other names after every numbered writer, by name."""
    m = re.search(r"w(\d+)\.jsonl$", path)
    return (int(m.group(1)), path) if m else (float("inf"), path)


def main(out_train, out_valid, paths):
    paths = paths or sorted(glob.glob("data/crumb/hand/w*.jsonl"), key=writer_number)
    # Written beside the outputs and renamed at the end, so a bad record leaves no half file.
    parts = {out: out + ".tmp" for out in (out_train, out_valid)}
    try:
        with open(parts[out_train], "w", encoding="utf-8") as t, \
                open(parts[out_valid], "w", encoding="utf-8") as v:
            for path in paths:
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        if not line.strip():
                            continue
                        try:
                            r = json.loads(line)
                            side = v if to_valid(r) else t
                        except (ValueError, KeyError, TypeError, AttributeError) as e:
                            sys.exit(f"{path}:{n}: not a corpus record ({e})")
                        side.write(json.dumps(r, ensure_ascii=False) + "\n")
        for out, part in parts.items():
            os.replace(part, out)
    finally:
        for part in parts.values():
            if os.path.exists(part):
                os.remove(part)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
