#!/usr/bin/env bash
# Format engine benchmarks against Apache Lucene (see bench/README.md, "Benchmarks").
# Builds the bench module and what it depends on, prepares (or reuses) the cached data sets under
# bench/target/bench-data, runs the Table 1 and cars mix JMH benchmarks briefly (1 fork, short
# warmup and measurement) and the footprint measurement, and ends with RESULT lines.
# Extra arguments go to the runner, e.g. --iterations 5 --seconds 5, --profiler gc, --only cars,
# --kind top_published.
# The output is kept in bench/target/results/format.txt and drawn into bench/results/format.png
# (bench/charts.sh redraws it later without rerunning).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
mkdir -p bench/target/results
java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx3g \
  -Dmosaic.bench.data="$PWD/bench/target/bench-data" \
  -cp "$CP" dev.mosaic.bench.format.FormatBenchmarks "$@" | tee bench/target/results/format.txt
NO_BUILD=1 bash bench/charts.sh --measured bench/target/results/format.txt \
  || echo "WARNING: the chart of bench/target/results/format.txt was not drawn (reason above)" >&2
