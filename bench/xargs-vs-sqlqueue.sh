#!/usr/bin/env bash
# The command's main job against the tools a shell user compares it with: the same N small tasks
# (sha256sum of one small file each) through
#   xargs -P 8, GNU parallel -j 8 --joblog, and sqlqueue enqueue + work --workers 8 --drain
# on the default H2 database and on PostgreSQL (and MariaDB with --mariadb), in one sitting.
# Prints each wall time and its ratio to xargs's, plus sqlqueue's time per task beyond its fixed cost:
# (T(N tasks) - T(1 task)) / (N - 1) against xargs's T / N, where T(1 task) is the same enqueue + work
# of a one-line file on the same database (two JVM start-ups, opening the database, the schema check).
#
#   bench/xargs-vs-sqlqueue.sh [--tasks N] [--workers P] [--reps R] [--mariadb] [--no-postgresql]
#
# Needs GNU parallel (Debian package `parallel`; installed with apt-get when missing and run as root),
# setsid, sha256sum, and for PostgreSQL a server at $BENCH_PG_URL (default
# jdbc:postgresql://127.0.0.1:5432/test?user=postgres). Builds the command with ./sqlqueue (mvn package,
# never install). Each rep uses a fresh directory, a fresh H2 database and a fresh queue name.
set -euo pipefail

tasks=2000 workers=8 reps=1 mariadb=0 postgresql=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tasks) tasks="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --mariadb) mariadb=1; shift ;;
    --no-postgresql) postgresql=0; shift ;;
    *) echo "usage: $0 [--tasks N] [--workers P] [--reps R] [--mariadb] [--no-postgresql]" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
sq="$root/sqlqueue"
pg_url="${BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
maria_url="${BENCH_MARIADB_URL:-jdbc:mariadb://127.0.0.1:3306/test?user=root}"

if ! command -v parallel >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "GNU parallel missing: apt-get install -y parallel" >&2
    apt-get update -qq && apt-get install -y -qq parallel >/dev/null
  else
    echo "GNU parallel is not installed: sudo apt-get install parallel (Debian package 'parallel')" >&2
    exit 1
  fi
fi

"$sq" --version >/dev/null   # builds the jar if needed, outside the timings

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files"
for ((i = 0; i < tasks; i++)); do printf 'file %d\n' "$i" > "$work/files/f$i"; done
find "$work/files" -type f | sort > "$work/list.txt"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

declare -A total
run() { # name, then the command; appends the wall time to total[name]
  local name="$1"; shift
  local t0 t1
  t0=$(now)
  "$@"
  t1=$(now)
  total[$name]="${total[$name]:-} $(elapsed "$t0" "$t1")"
}

x_xargs() { xargs -d '\n' -P "$workers" -n 1 sha256sum < "$work/list.txt" > "$work/out-xargs"; }
x_parallel() {
  rm -f "$work/joblog"
  parallel -j "$workers" --joblog "$work/joblog" sha256sum < "$work/list.txt" > "$work/out-parallel"
}
x_sqlqueue() { # url (empty: default H2 in a fresh directory), list file
  local url="$1" list="${2:-$work/list.txt}" q="bench$RANDOM$RANDOM" d
  d="$(mktemp -d -p "$work")"
  (
    cd "$d"
    [[ -n "$url" ]] && export SQLQUEUE_URL="$url"
    "$sq" enqueue --queue "$q" "$list" >/dev/null
    "$sq" work --queue "$q" --workers "$workers" --drain --exec "sha256sum {}" >/dev/null
    [[ -n "$url" ]] && "$sq" drop --queue "$q" >/dev/null
    true
  )
  rm -rf "$d"
}
head -n 1 "$work/list.txt" > "$work/one.txt"

for ((r = 1; r <= reps; r++)); do
  run xargs x_xargs
  run parallel x_parallel
  run "sqlqueue-h2" x_sqlqueue ""
  run "sqlqueue-h2-1task" x_sqlqueue "" "$work/one.txt"
  if [[ $postgresql == 1 ]]; then
    run "sqlqueue-postgresql" x_sqlqueue "$pg_url"
    run "sqlqueue-postgresql-1task" x_sqlqueue "$pg_url" "$work/one.txt"
  fi
  if [[ $mariadb == 1 ]]; then
    run "sqlqueue-mariadb" x_sqlqueue "$maria_url"
    run "sqlqueue-mariadb-1task" x_sqlqueue "$maria_url" "$work/one.txt"
  fi
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(echo "${total[xargs]}" | median)
echo "tasks=$tasks workers=$workers reps=$reps  load average: $(cut -d' ' -f1-3 /proc/loadavg)  nproc: $(nproc)"
printf '%-26s %7s %7s  %-36s %s\n' tool "wall s" "/xargs" "per task beyond the 1-task run" runs
for name in xargs parallel sqlqueue-h2 sqlqueue-h2-1task sqlqueue-postgresql sqlqueue-postgresql-1task \
            sqlqueue-mariadb sqlqueue-mariadb-1task; do
  [[ -z "${total[$name]:-}" ]] && continue
  m=$(echo "${total[$name]}" | median)
  per=""
  if [[ $name == sqlqueue-* && $name != *-1task ]]; then
    one=$(echo "${total[$name-1task]}" | median)
    per=$(awk -v m="$m" -v s="$one" -v b="$base" -v n="$tasks" \
      'BEGIN { printf "%.3f ms = %.2f x xargs %.3f ms", (m - s) * 1000 / (n - 1), ((m - s) / (n - 1)) / (b / n), b * 1000 / n }')
  fi
  printf '%-26s %7s %7s  %-36s %s\n' "$name" "$m" "$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.2f", m / b }')" "$per" "${total[$name]}"
done
