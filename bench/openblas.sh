# Sourced by the PyTorch comparisons: sets OPENBLAS_DIR to a directory with OpenBLAS's
# libblas.so.3 for the torch runs (LD_LIBRARY_PATH). Uses $OPENBLAS_DIR if set, else Debian's
# libopenblas0-pthread if installed, else unpacks that package into $OUT/openblas (apt-get
# download; nothing is installed or switched system-wide). Needs $OUT.
if [[ -z "${OPENBLAS_DIR:-}" ]]; then
  OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
  if [[ ! -e "$OPENBLAS_DIR/libblas.so.3" ]]; then
    OPENBLAS_DIR="$OUT/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread"
    if [[ ! -e "$OPENBLAS_DIR/libblas.so.3" ]]; then
      echo "unpacking Debian's libopenblas0-pthread into $OUT/openblas (not installed)" >&2
      (cd "$OUT" && apt-get download libopenblas0-pthread > /dev/null 2>&1)
      dpkg-deb -x "$OUT"/libopenblas0-pthread_*.deb "$OUT/openblas"
    fi
  fi
fi
