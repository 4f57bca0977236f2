"""JSON Lines in and out, and one-line text, for the benchmark scripts beside this file."""
import json


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def save(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def one_line(text):
    """The text on one line, runs of white space made one space (fastText reads lines)."""
    return " ".join(text.split())
