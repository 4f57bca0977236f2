"""Debian's fastText command, which the benchmark scripts beside this file compare router with."""
import os
import shutil
import sys


def require(hint=""):
    """Stops the calling script at once, before any slow work, when fasttext is not on PATH."""
    if shutil.which("fasttext") is None:
        name = os.path.basename(sys.argv[0])
        sys.exit(f"{name}: no fasttext on PATH (Debian's package fasttext){hint}")
