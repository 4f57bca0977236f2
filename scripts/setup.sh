#!/usr/bin/env bash
# Installs the Debian packages router needs to build and test, only if any is missing.
# Idempotent and quick when everything is there. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libcli11-dev nlohmann-json3-dev libeigen3-dev libspdlog-dev libsentencepiece-dev
  libgmime-3.0-dev  # real email in: MIME, transfer encodings, charsets
  libgtest-dev libbenchmark-dev
  parallel  # the scale-out test runs router under GNU parallel
  procmail maildrop  # the mail-flow tests deliver through the real programs (docs/mail-flow.md)
  libcpp-httplib-dev  # router serve: the HTTP server (docs/mail-flow.md, "Service")
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
