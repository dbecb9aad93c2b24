#!/usr/bin/env bash
# A throw-away S3-compatible server on loopback for the tests (issue 29): s3s-fs, from
# crates.io, installed if missing.
#
#   eval "$(scripts/s3.sh start)"   # prints S3_URL=s3://bucket/prefix, AWS_* settings, S3_DIR, S3_PID
#   …                               # scorebench serve --files "$S3_URL" …
#   scripts/s3.sh stop "$S3_DIR"    # stops it and removes the directory
#
# Why s3s-fs: a real S3 server (the s3s crate's protocol layer, with SigV4 authentication of
# every request) over a folder, built from crates.io like everything else here: the tests talk
# HTTP with signed requests to it as they would to Amazon S3 or MinIO, and nothing mocks the
# client. (MinIO is not in this machine's registries; PyPI's moto is a mock that checks no
# signature by default.) 0.14.1 is the last release this toolchain (rustc 1.95) builds.
set -euo pipefail
cd "$(dirname "$0")/.."

S3S_VERSION=0.14.1
S3S_ROOT=${S3S_ROOT:-$HOME/.cache/scorebench/s3s-fs-$S3S_VERSION}

start() {
  local bin=$S3S_ROOT/bin/s3s-fs
  if [ ! -x "$bin" ]; then
    echo "s3.sh: installing s3s-fs $S3S_VERSION from crates.io (~2 minutes on 2 cores)" >&2
    cargo install s3s-fs --version "$S3S_VERSION" --features binary --locked \
      --root "$S3S_ROOT" -q >&2
  fi
  local dir port key secret
  dir=$(mktemp -d /tmp/scorebench-s3.XXXXXX)
  mkdir -p "$dir/root/scorebench"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  key=test-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
  secret=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
  "$bin" --host 127.0.0.1 --port "$port" --access-key "$key" --secret-key "$secret" \
    "$dir/root" >"$dir/server.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  if ! kill -0 "$pid" 2>/dev/null; then cat "$dir/server.log" >&2; exit 1; fi
  echo "S3_URL=s3://scorebench/files"
  echo "S3_DIR=$dir"
  echo "S3_PID=$pid"
  echo "AWS_ENDPOINT_URL=http://127.0.0.1:$port"
  echo "AWS_ACCESS_KEY_ID=$key"
  echo "AWS_SECRET_ACCESS_KEY=$secret"
  echo "AWS_REGION=us-east-1"
  echo "export S3_URL S3_DIR S3_PID AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION"
}

stop() {
  local dir=${1:?usage: s3.sh stop S3_DIR} pid=${2:-}
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  case "$dir" in /tmp/scorebench-s3.*) rm -rf "$dir" ;; esac
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" "${3:-}" ;;
  *) echo "usage: scripts/s3.sh start | stop S3_DIR [S3_PID]" >&2; exit 2 ;;
esac
