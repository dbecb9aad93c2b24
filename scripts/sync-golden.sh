#!/usr/bin/env bash
# Re-copy the golden case folders (data files only) from ../shared/golden into tests/golden.
set -euo pipefail
cd "$(dirname "$0")/.."
src=../shared/golden
for bench in "$src"/*/; do
  name=$(basename "$bench")
  rm -rf "tests/golden/$name"
  cp -a "$bench" "tests/golden/$name"
  rm -f "tests/golden/$name/README.md"
done
echo "golden vectors copied from $src"
