#!/usr/bin/env bash
# Run the workbench: install what is missing, build the app and the server, serve.
#   scripts/run.sh [--addr 127.0.0.1:8080] [--db data/scorebench.sqlite3]
# The URL is printed when the server is ready; Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/build-app.sh
cargo build --release --locked -p server
exec target/release/scorebench serve --dist dist "$@"
