#!/usr/bin/env bash
# Browser workbench benchmark: a generated gold/pred file (RECORDS, default 100,000 ≈ 97 MB)
# dropped → first number and charts on screen in headless Chromium against the real server, and
# the native CLI on the same file in the same run (release builds). Prints the figures, the
# page/CLI ratio, where the page's time goes, peak memory and the assets' gzip sizes.
#   RECORDS=100000 RUNS=3 [CHARTS=0] scripts/bench-workbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/build-app.sh
cargo build --release --locked -q -p server
SCOREBENCH_BIN=target/release/scorebench node scripts/bench-workbench.mjs
