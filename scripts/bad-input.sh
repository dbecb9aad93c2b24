#!/usr/bin/env bash
# Throw broken files at the CLI for every benchmark and file argument (scripts/bad_input.py
# says which) and print tries / clean `file:line` errors / accepted / panics / timeouts.
# Exits 1 on any panic, timeout or unclear error.   usage: scripts/bad-input.sh [--verbose]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked -q -p server
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/bad_input.py target/debug/scorebench tests/golden "$work/run" "$@"
