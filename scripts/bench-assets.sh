#!/usr/bin/env bash
# What each page downloads (gzip sizes of the app's assets, counted from the network), step by
# step: first paint, a file dragged in (the worker), scored. Release builds.
#   scripts/bench-assets.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/build-app.sh >/dev/null
cargo build --release --locked -q -p server
SCOREBENCH_BIN="$PWD/target/release/scorebench" node scripts/bench-assets.mjs
