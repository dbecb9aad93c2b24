#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests (Debian's postgresql, installed if missing).
#
#   eval "$(scripts/pg.sh start)"     # prints PG_URL=postgres://… and PG_DIR=…
#   …                                 # PG_URL=$PG_URL cargo test -p server --test all leaderboard
#   scripts/pg.sh stop "$PG_DIR"      # stops it and removes the directory
#
# The cluster runs as user postgres in a temporary directory, listens on 127.0.0.1 only (a free
# port) and on a socket in that directory, trusts local connections and has fsync on (the
# kill -9 tests rely on it).
set -euo pipefail

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  return 1
}

start() {
  local bin
  if ! bin=$(find_bin); then
    echo "pg.sh: installing Debian's postgresql" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2; }
    bin=$(find_bin)
  fi
  local dir port
  dir=$(mktemp -d /tmp/scorebench-pg.XXXXXX)
  chown postgres:postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  as_pg() { if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi; }
  as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200" \
    start >&2 || { cat "$dir/server.log" >&2; exit 1; }
  as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres scorebench
  echo "PG_URL=postgres://postgres@127.0.0.1:$port/scorebench"
  echo "PG_DIR=$dir"
}

stop() {
  local dir=${1:?usage: pg.sh stop PG_DIR} bin
  bin=$(find_bin)
  if [ -d "$dir/data" ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
  fi
  case "$dir" in /tmp/scorebench-pg.*) rm -rf "$dir" ;; esac
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: scripts/pg.sh start | stop PG_DIR" >&2; exit 2 ;;
esac
