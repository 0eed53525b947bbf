#!/usr/bin/env bash
# bash bench/ferretdb-postgres.sh start|stop — FerretDB (the project's build) on PostgreSQL, its
# main backend, for the load bench's database-bound parts. FerretDB on SQLite, the local run's
# backend, answers only `{_id}` filters from an index and reads the whole collection for any other;
# on PostgreSQL, equality filters run in PostgreSQL. `start` begins from an empty database every
# time, installs postgresql from Debian when it is missing (as root), and prints the connection
# string for the bench:
#
#   MONGODB_URI=$(bash bench/ferretdb-postgres.sh start) bash bench/load.sh --skip ...
#   bash bench/ferretdb-postgres.sh stop
#
# PG_PORT (55432) and FERRETDB_PORT (27999) choose the ports; both listen on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$PWD/bench/out/ferretdb-pg"
pg_port="${PG_PORT:-55432}"
ferret_port="${FERRETDB_PORT:-27999}"
ferretdb="$HOME/.cache/coffer/bin/ferretdb"

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
# PostgreSQL refuses to run as root: its commands run as the `postgres` user Debian creates.
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }

stop() {
  if [ -f "$dir/ferretdb.pid" ]; then kill "$(cat "$dir/ferretdb.pid")" 2>/dev/null || true; rm -f "$dir/ferretdb.pid"; fi
  local bin
  bin=$(pg_bin)
  if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then as_pg "$bin/pg_ctl -D '$dir/data' -m fast stop" >&2 || true; fi
}

start() {
  [ -x "$ferretdb" ] || { echo "FerretDB is not built: run bash deploy/local/bootstrap.sh first" >&2; exit 1; }
  if [ -z "$(pg_bin)" ]; then
    [ "$(id -u)" = 0 ] || { echo "postgresql is not installed (apt-get install postgresql)" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
  fi
  local bin
  bin=$(pg_bin)
  stop
  rm -rf "$dir"
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_pg "$bin/initdb -D '$dir/data' -A trust -U postgres" > "$dir/initdb.log"
  as_pg "$bin/pg_ctl -D '$dir/data' -l '$dir/postgres.log' -w -o \"-p $pg_port -k '$dir' -c listen_addresses=127.0.0.1\" start" >&2
  as_pg "$bin/createdb -h 127.0.0.1 -p $pg_port -U postgres ferretdb"
  nohup "$ferretdb" --handler=postgresql --postgresql-url="postgres://postgres@127.0.0.1:$pg_port/ferretdb" \
    --listen-addr="127.0.0.1:$ferret_port" --telemetry=disable --log-level=warn \
    --state-dir="$dir" > "$dir/ferretdb.log" 2>&1 &
  echo $! > "$dir/ferretdb.pid"
  for _ in $(seq 1 50); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$ferret_port") 2>/dev/null; then
      echo "mongodb://127.0.0.1:$ferret_port/"
      return
    fi
    sleep 0.2
  done
  echo "FerretDB did not start; see $dir/ferretdb.log" >&2
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: bash bench/ferretdb-postgres.sh start|stop" >&2; exit 2 ;;
esac
