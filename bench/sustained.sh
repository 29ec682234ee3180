#!/bin/sh
# Issue 16 point 4: one sustained-load run (dev.sqlqueue.bench.Sustained) against a private PostgreSQL
# started for it from the installed binaries with stock settings plus the given -c options, stopped and
# deleted afterwards. Build first (docs/benchmarks.md), run from the repository root:
#   bench/sustained.sh PORT LABEL "POSTGRES -c OPTIONS" [Sustained options...]
#   bench/sustained.sh 55433 autovacuum-on ""
#   bench/sustained.sh 55434 autovacuum-off "-c autovacuum=off"
set -eu
port=$1; label=$2; pgopts=$3; shift 3
dir=/tmp/sqlqueue-sustained-pg-$port
trap 'bench/private-postgres.sh stop "$dir"' EXIT
# shellcheck disable=SC2086
url=$(bench/private-postgres.sh start "$dir" "$port" $pgopts | tail -n 1)
java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.sqlqueue.bench.Sustained \
  --url="$url" --label="$label" --out="bench/results/sustained-$label.csv" "$@"
