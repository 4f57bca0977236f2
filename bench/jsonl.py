"""JSON Lines in and out, and one-line text, for the benchmark scripts beside this file."""
import json
import os
import shutil


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def save(path, records):
    """Writes the records whole or not at all: into a file beside `path`, renamed over it at the
    end, with the mode of the file it replaces. Anything at `path` but a regular file is refused."""
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
        raise SystemExit(f"{path}: not a regular file; not overwritten")
    part = f"{path}.{os.getpid()}.part"
    try:
        f = open(part, "x", encoding="utf-8")  # a file or link already there is not ours to touch
    except FileExistsError:
        raise SystemExit(f"{part}: already there; {path} not written") from None
    except OSError as e:
        raise SystemExit(f"{path}: cannot write ({e.strerror})") from None
    try:
        with f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        if os.path.exists(path):
            shutil.copymode(path, part)
        os.replace(part, path)
    except BaseException as e:
        if os.path.exists(part):
            os.remove(part)
        if isinstance(e, OSError):  # a full disk, say: one line, like the errors above
            raise SystemExit(f"{path}: cannot write ({e.strerror}); not written") from None
        raise


def one_line(text):
    """The text on one line, runs of white space made one space (fastText reads lines)."""
    return " ".join(text.split())
