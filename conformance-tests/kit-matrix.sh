#!/bin/sh
# Regenerates the H2 / PostgreSQL / MariaDB matrix of docs/conformance.md with the conformance kit:
# builds the modules (no install), takes the CLI's runtime class path from Maven, and runs
# dev.sqlqueue.conformance.kit.KitMain once per backend. Reports go to target/kit-matrix/<backend>/.
# Usage (from the repository root): conformance-tests/kit-matrix.sh [extra kit options, e.g. --cases C01,C10]
set -e
cd "$(dirname "$0")/.."
out=target/kit-matrix
mkdir -p "$out"
# each module of the reactor writes the file (an absolute path, so the same one); cli comes last
mvn -B -q -pl cli -am compile dependency:build-classpath -Dmdep.outputFile="$PWD/$out/cp.txt" -Dmdep.includeScope=runtime
cp="$(cat "$out/cp.txt")"
rm -rf "$out/h2" "$out/h2db"* "$out/postgresql" "$out/mariadb"
rc=0
java -cp "$cp" dev.sqlqueue.conformance.kit.KitMain --url "jdbc:h2:file:$PWD/$out/h2db" --user sa --password '' \
    --report "$out/h2" "$@" || rc=1
java -cp "$cp" dev.sqlqueue.conformance.kit.KitMain --url jdbc:postgresql://127.0.0.1:5432/test --user postgres \
    --password '' --report "$out/postgresql" "$@" || rc=1
java -cp "$cp" dev.sqlqueue.conformance.kit.KitMain --url jdbc:mariadb://127.0.0.1:3306/test --user root \
    --password '' --report "$out/mariadb" "$@" || rc=1
echo "reports: $out/h2/conformance.md $out/postgresql/conformance.md $out/mariadb/conformance.md"
exit $rc
