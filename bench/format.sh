#!/usr/bin/env bash
# Format engine benchmarks against Apache Lucene (see bench/README.md, "Benchmarks").
# Builds the bench module and what it depends on, prepares (or reuses) the cached data sets under
# bench/target/bench-data, runs the Table 1 and cars mix JMH benchmarks briefly (1 fork, short
# warmup and measurement) and the footprint measurement, and ends with RESULT lines.
# Extra arguments go to the runner, e.g. --iterations 5 --seconds 5, --profiler gc, --only cars,
# --kind top_published.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
exec java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx3g \
  -Dmosaic.bench.data="$PWD/bench/target/bench-data" \
  -cp "$CP" dev.mosaic.bench.format.FormatBenchmarks "$@"
