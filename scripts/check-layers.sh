#!/usr/bin/env bash
# Fails when a file under lib/ includes a header of a higher layer (docs/architecture.md, "Layers").
# Each folder may include its own headers and those of the folders before it in this list.
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(base text input nn model train analysis)
rank() {
  local i
  for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done
  echo -1
}
bad=0
count=0
while IFS= read -r file; do
  count=$((count + 1))
  dir=${file#lib/}
  dir=${dir%%/*}
  own=$(rank "$dir")
  if [ "$own" -lt 0 ]; then
    echo "layers: $file is in no layer (lib/ holds only ${layers[*]})" >&2
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    layer=${inc%%/*}
    their=$(rank "$layer")
    if [ "$inc" = "$layer" ] || [ "$their" -lt 0 ]; then
      echo "layers: $file includes \"$inc\", which names no layer" >&2
      bad=1
    elif [ "$their" -gt "$own" ]; then
      echo "layers: $file ($dir) includes \"$inc\" from the higher layer $layer" >&2
      bad=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find lib -name '*.h' -o -name '*.cc' | grep -v '^lib/CMakeLists' | sort)
[ "$bad" -eq 0 ] || exit 1
echo "layers: $count files under lib/ include only their own layer and those below"
