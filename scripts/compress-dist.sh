#!/usr/bin/env bash
# Precompress the built app so `scorebench serve` sends .br/.gz by Accept-Encoding (tower-http
# ServeDir::precompressed_br/gzip serves a sibling `F.br` / `F.gz` when it exists):
#   every .wasm .js .css .svg  →  F.br (brotli -q 11) and F.gz (gzip -9), beside F.
# Trunk runs this after every release build (Trunk.toml, post_build hook, on its staging dir), so
# dist/ always has them. By hand: scripts/compress-dist.sh [DIR]   (default dist/)
# Compressing once at build time gives the best ratio (brotli's slowest level) at no cost per
# request. scripts/setup.sh installs Debian's brotli; without it only .gz files are written.
set -euo pipefail
dir="${1:-${TRUNK_STAGING_DIR:-$(dirname "$0")/../dist}}"
if [ -n "${TRUNK_PROFILE:-}" ] && [ "$TRUNK_PROFILE" != release ]; then
  exit 0  # debug builds are for trunk serve: not worth a minute of brotli
fi
[ -d "$dir" ] || { echo "compress-dist: no directory $dir" >&2; exit 1; }
have_brotli=1
if ! command -v brotli >/dev/null; then
  have_brotli=""
  echo "compress-dist: warning: brotli is not installed (scripts/setup.sh installs it): writing .gz only" >&2
fi
count=0
while IFS= read -r -d '' file; do
  if [ -n "$have_brotli" ]; then
    brotli --quality=11 --force --output="$file.br" -- "$file"
  fi
  gzip -9 --no-name --keep --force -- "$file"
  count=$((count + 1))
done < <(find "$dir" -type f \( -name '*.wasm' -o -name '*.js' -o -name '*.css' -o -name '*.svg' \) -print0)
kinds="gz"
[ -n "$have_brotli" ] && kinds="br, gz"
echo "compress-dist: $count file(s) in $dir precompressed ($kinds)" >&2
