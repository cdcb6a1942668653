#!/usr/bin/env bash
# A throwaway PostgreSQL server for punto's tests, on loopback only.
#
#   export PUNTO_TEST_POSTGRES="$(bash scripts/postgres.sh)"   # start (or find running), print the URL
#   bash scripts/postgres.sh stop                              # stop it
#   bash scripts/postgres.sh status
#
# Installs Debian's postgresql if no server binaries are found, creates a
# cluster in $PUNTO_PG_DATA (default /tmp/punto-pgdata) listening on
# 127.0.0.1:$PUNTO_PG_PORT (default 54329) with trust authentication, a login
# role `punto` and a database `punto_test` owned by it.  Safe to run again: a
# running server is left alone.  Only the URL goes to standard output;
# everything else goes to standard error.
#
# This cluster is for tests only: it trusts every local connection and runs with
# fsync off (fast, not crash-safe).  Never point it at data you want to keep.
# PUNTO_PG_DURABLE=1 keeps PostgreSQL's own crash-safe settings instead (fsync,
# synchronous commit, full page writes), for benchmarks that must count the cost
# of durability; use it with its own PUNTO_PG_DATA and PUNTO_PG_PORT.
set -euo pipefail

port="${PUNTO_PG_PORT:-54329}"
data="${PUNTO_PG_DATA:-/tmp/punto-pgdata}"
case "$data" in /*) ;; *) data="$(pwd)/$data" ;; esac
user="punto"
database="punto_test"
url="postgresql+psycopg://${user}@127.0.0.1:${port}/${database}"
action="${1:-start}"

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then
    echo "$dir"
  elif command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
  fi
}

bindir="$(find_bindir)"
if [ -z "$bindir" ]; then
  if [ "$action" != "start" ]; then
    log "PostgreSQL is not installed"
    exit 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "PostgreSQL is not installed and installing it needs root: apt-get install postgresql"
    exit 1
  fi
  log "installing Debian's postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  bindir="$(find_bindir)"
  if [ -z "$bindir" ]; then
    log "postgresql was installed but pg_ctl was not found"
    exit 1
  fi
fi

# PostgreSQL refuses to run as root: run its programs as the postgres user.
if [ "$(id -u)" -eq 0 ]; then
  owner="postgres"
  if ! id "$owner" >/dev/null 2>&1; then
    log "there is no postgres user to run the server as"
    exit 1
  fi
  as_owner() { runuser -u "$owner" -- "$@"; }
else
  owner="$(id -un)"
  as_owner() { "$@"; }
fi

# The postgres user may not be allowed into the caller's directory (a clone under /root, say).
cd /

pg_ctl() { as_owner "$bindir/pg_ctl" -D "$data" "$@"; }
running() { pg_ctl status >/dev/null 2>&1; }
ready() { as_owner "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres -U postgres; }
sql() { as_owner "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres -tA "$@"; }

case "$action" in
  start) ;;
  stop)
    if [ -f "$data/PG_VERSION" ] && running; then
      pg_ctl -m fast -w stop >&2
    else
      log "not running"
    fi
    exit 0
    ;;
  status)
    if [ -f "$data/PG_VERSION" ] && running; then
      log "running on 127.0.0.1:$port, data in $data"
      echo "$url"
      exit 0
    fi
    log "not running"
    exit 3
    ;;
  *)
    log "unknown action '$action' (use start, stop or status)"
    exit 2
    ;;
esac

marker="$data/punto-test-cluster"

create_cluster() {
  log "creating a cluster in $data"
  mkdir -p "$data"
  chown "$owner" "$data"
  chmod 700 "$data"
  as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale >&2
  cat >>"$data/postgresql.conf" <<EOF

# punto test cluster (scripts/postgres.sh): loopback only
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$data'
max_connections = 200
EOF
  if [ "${PUNTO_PG_DURABLE:-0}" != 1 ]; then
    cat >>"$data/postgresql.conf" <<EOF
# fast, not crash-safe
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  fi
  cat >"$data/pg_hba.conf" <<EOF
# punto test cluster: trust on loopback only
local all all trust
host all all 127.0.0.1/32 trust
EOF
  touch "$marker"
}

start_server() { pg_ctl -l "$data/server.log" -w -t 60 start >&2; }

if [ ! -f "$data/PG_VERSION" ]; then
  if [ -n "$(ls -A "$data" 2>/dev/null)" ]; then
    log "$data is not empty and holds no cluster; set PUNTO_PG_DATA to another directory"
    exit 1
  fi
  create_cluster
fi

if running && ! ready; then
  # Starting up, recovering, or a stale pid file: give it a moment.
  for _ in $(seq 1 20); do
    ready && break
    sleep 0.5
  done
fi

if running && ready; then
  log "already running on 127.0.0.1:$port"
else
  if ! running && ready; then
    log "127.0.0.1:$port is taken by another server; set PUNTO_PG_PORT to a free port"
    exit 1
  fi
  log "starting on 127.0.0.1:$port"
  if ! start_server; then
    log "the server did not start; its log:"
    tail -n 30 "$data/server.log" >&2 || true
    if [ ! -f "$marker" ]; then
      exit 1
    fi
    # Our own throwaway cluster, left broken (by a killed session, say): start afresh.
    log "recreating the test cluster in $data"
    rm -rf "$data"
    create_cluster
    start_server || {
      tail -n 30 "$data/server.log" >&2 || true
      exit 1
    }
  fi
fi

serving="$(sql -c "SHOW data_directory")"
if [ "$serving" != "$data" ]; then
  log "the server on 127.0.0.1:$port serves $serving, not $data; set PUNTO_PG_PORT to a free port"
  exit 1
fi

if [ "$(sql -c "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != "1" ]; then
  sql -c "CREATE ROLE $user LOGIN CREATEDB" >&2
fi
if [ "$(sql -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != "1" ]; then
  sql -c "CREATE DATABASE $database OWNER $user" >&2
fi

echo "$url"
