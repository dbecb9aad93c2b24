#!/usr/bin/env bash
# Build the browser app into dist/ (release, offline: trunk never downloads a tool).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/setup.sh
cargo fetch --locked >/dev/null
trunk build --release --offline "$@"
