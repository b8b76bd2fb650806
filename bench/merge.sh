#!/usr/bin/env bash
# Partition merge benchmark (see bench/README.md, "Partition merge"): builds 16 cars partition
# files (200k offers from the cars generator, routed by dedup key), then measures merging them with
# DatabaseMerger against rebuilding the same documents with DatabaseBuilder from the serialized
# offers: median wall time and bytes allocated on the calling thread, and the largest heap in use
# after a GC. Ends with
#   RESULT format_merge merge_ms=<> rebuild_ms=<> merge_alloc_mb=<> rebuild_alloc_mb=<> ratio_alloc=<rebuild/merge>
# Extra arguments go to the tool, e.g. --partitions 32 --offers 200000 --iterations 7.
# Environment: HEAP (default 6g).
# The output is kept in bench/target/results/merge.txt and drawn into bench/results/merge.png.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
mkdir -p bench/target/results
java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Xmx"${HEAP:-6g}" -XX:+UseG1GC \
  -cp "$CP" dev.mosaic.bench.merge.MergeBenchmark "$@" | tee bench/target/results/merge.txt
NO_BUILD=1 bash bench/charts.sh --measured bench/target/results/merge.txt \
  || echo "WARNING: the chart of bench/target/results/merge.txt was not drawn (reason above)" >&2
