#!/bin/sh
# A private PostgreSQL server for benchmarks, from the installed binaries, with stock settings
# (durable; only what is given after the port changes): the machine's shared server is never touched.
#   bench/private-postgres.sh start DIR PORT [postgres -c options...]   e.g. -c autovacuum=off
#   bench/private-postgres.sh stop DIR                                   stops it (pg_ctl, its own pid) and deletes DIR
# Run as root: initdb and postgres run as the postgres user through setpriv (PostgreSQL refuses root).
set -eu
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
AS_PG=""
[ "$(id -u)" = 0 ] && AS_PG="setpriv --reuid=postgres --regid=postgres --init-groups --"
cmd=$1; dir=$2; shift 2
case "$cmd" in
start)
  port=$1; shift
  if [ -e "$dir" ]; then echo "$dir exists" >&2; exit 1; fi
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  $AS_PG "$BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log"
  opts="-p $port -k $dir -c listen_addresses=127.0.0.1"
  for o in "$@"; do opts="$opts $o"; done
  $AS_PG "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$opts" start
  echo "jdbc:postgresql://127.0.0.1:$port/postgres"
  ;;
stop)
  $AS_PG "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop || true
  rm -rf "$dir"
  ;;
*) echo "usage: $0 start DIR PORT [-c name=value ...] | stop DIR" >&2; exit 2 ;;
esac
