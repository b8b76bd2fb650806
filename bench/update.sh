#!/usr/bin/env bash
# Partition rebuild by merge against a full build, one thread (see bench/README.md, "Partition
# update"): car offer files of 500 documents (one partition of a 1024-partition index), built with
# DatabaseUpdate.fresh, then updated with 1% of the documents changed (DatabaseUpdate.on). Ends with
#   RESULT format_update merge_docs_per_s=<kept documents per s> build_docs_per_s=<documents per s> ...
# Extra arguments go to the tool, e.g. --files 400 --docs-per-file 2000 --changed 0.05.
# Environment: HEAP (default 2g).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
mkdir -p bench/target/results
java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Xmx"${HEAP:-2g}" -XX:+UseG1GC -XX:ActiveProcessorCount=1 \
  -cp "$CP" dev.mosaic.bench.merge.UpdateBenchmark "$@" | tee bench/target/results/update.txt
