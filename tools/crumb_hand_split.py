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
import re
import sys


def to_valid(record):
    key = record["pair"] or record["id"]
    return hashlib.sha256(key.encode()).digest()[0] < 32


def main(out_train, out_valid, paths):
    paths = paths or sorted(glob.glob("data/crumb/hand/w*.jsonl"),
                            key=lambda p: int(re.search(r"w(\d+)\.jsonl$", p).group(1)))
    with open(out_train, "w", encoding="utf-8") as t, open(out_valid, "w", encoding="utf-8") as v:
        for path in paths:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        r = json.loads(line)
                        (v if to_valid(r) else t).write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
