#!/usr/bin/env bash
# Browser workbench benchmark: a 100,000-record (~100 MB) file dropped → table and charts on
# screen, in headless Chromium against the real server (release builds). Prints the figures.
#   RECORDS=100000 RUNS=3 scripts/bench-workbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/build-app.sh
cargo build --release --locked -q -p server
echo "load: $(uptime)"
SCOREBENCH_BIN=target/release/scorebench node scripts/bench-workbench.mjs
