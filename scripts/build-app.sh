#!/usr/bin/env bash
# Build the browser app into dist/ (release, offline: trunk never downloads a tool): the
# workbench (index.html → dist/, with the worker and the XLSX module), then the leaderboard
# pages (boards.html → dist/boards/). The second build must come after the first, which replaces
# all of dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/setup.sh
cargo fetch --locked >/dev/null
trunk build --release --offline "$@"
trunk build boards.html --release --offline --dist dist/boards --public-url /boards/ "$@"
