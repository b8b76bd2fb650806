#!/usr/bin/env bash
# Freshness at scale: the whole pipeline of the local cluster in one JVM (embedded ZooKeeper and
# KRaft Kafka, the feed loader, 2 indexers, 2 datacenters x 2 searchers), by default 500,000 offers
# of the simulated partners in 1024 partitions. Once every searcher serves every partition, each of
# 2 warm-up cycles (not counted: the JIT still compiles the cycle's code paths) and 10 measured
# cycles changes 1% of the offers (drawn over all partners) and hands the changed partners'
# snapshots to the feed loader; the cycle's time runs until every searcher answers every changed
# offer with its new content over HTTP; the transport's counters give the bytes that crossed
# datacenters and the full partition files shipped. Ends with
#   RESULT freshness offers=<> partitions=<> cycles=<> p50_ms=<> p99_ms=<> wire_bytes_per_changed_byte=<> full_copies=<>
# and exits non-zero when a cycle is not searchable everywhere within --cycle-timeout (600 s).
# Arguments go to the tool, e.g. --offers 20000 --partitions 64 --cycles 3 --warmup-cycles 0,
# --change-fraction 0.05, --set mosaic.indexer.debounce=300ms. Environment: HEAP (default 6g), JAVA_OPTS (extra JVM options,
# e.g. -XX:StartFlightRecording=filename=bench/target/freshness.jfr,settings=profile).
# Logs go to bench/target/freshness.log. The output is kept in bench/target/results/freshness.txt
# and drawn into bench/results/freshness.png.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
mkdir -p bench/target/results
set +e # keep the tool's exit status, draw the chart either way
# -Dzookeeper.forceSync=no: as deploy/local-cluster.sh (a throwaway ZooKeeper; see there why).
# -XX:+AlwaysPreTouch: the heap is touched once at start-up (about 2.5 s of system time for 6 GiB),
# before anything is timed. This VM hands memory the guest frees back to its host (free page
# reporting), and the next first touch of a page costs the toucher system time (one process touching
# 21 GiB took 25 to 52 s of it here, 2026-11-29): without it, the indexer bench's full-build passes
# that first touched a part of the heap took 2 to 3 times the CPU time of the others, nearly all of
# the difference in system time.
java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Xms"${HEAP:-6g}" -Xmx"${HEAP:-6g}" -XX:+AlwaysPreTouch -XX:+UseG1GC -Dzookeeper.forceSync=no \
  -Dlogback.configurationFile=deploy/src/main/resources/logback.xml \
  -Dmosaic.log.file=bench/target/freshness.log ${JAVA_OPTS:-} \
  -cp "$CP" dev.mosaic.bench.freshness.FreshnessBenchmark "$@" | tee bench/target/results/freshness.txt
status=${PIPESTATUS[0]}
set -e
if [ "$status" -eq 0 ]; then
  NO_BUILD=1 bash bench/charts.sh --measured bench/target/results/freshness.txt \
    || echo "WARNING: the chart of bench/target/results/freshness.txt was not drawn (reason above)" >&2
fi
exit "$status"
