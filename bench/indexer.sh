#!/usr/bin/env bash
# Indexer benchmark: a real KRaft Kafka broker in-process, the feed loader and one indexer node on
# the cars generator's offers (500k offers, 1024 index partitions, 32 Kafka partitions, 1% changed).
# Measures full-build and merge rates on one core (DatabaseUpdate), the node's heap bytes of state
# per offer against the raw serialized offer bytes, the loader's diff (changed snapshots arriving to
# the last change published), the time to the last changed partition file written (the snapshots
# are one batch: rebuilt on its end markers, 1 s debounce as the fallback; all cores) and the node's
# rebuilds per changed partition. Ends with
#   RESULT indexer docs_per_s=<> merge_docs_per_s=<> state_bytes_per_offer=<> raw_bytes_per_offer=<>
#     diff_ms=<> snapshot_to_files_ms=<> rebuilds_per_changed_partition=<>
# and exits non-zero when not every changed partition was rebuilt.
# Extra arguments go to the tool, e.g. --offers 2000000, or --offers 100000 --changed 0.05, or
# --rates-only (the one-core build and merge rates alone, for profiling them; no RESULT line).
# Environment: HEAP (default 6g), JAVA_OPTS (extra JVM options, e.g.
# -XX:StartFlightRecording=filename=bench/target/indexer.jfr,settings=profile).
# The output is kept in bench/target/results/indexer.txt and drawn into bench/results/indexer.png.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

# Kafka and ZooKeeper log at INFO by default; keep the tool's own lines readable.
LOGBACK=bench/target/indexer-bench-logback.xml
cat > "$LOGBACK" <<'XML'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n</pattern></encoder>
  </appender>
  <logger name="dev.mosaic" level="WARN"/>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
XML

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
mkdir -p bench/target/results
set +e # keep the tool's exit status, draw the chart either way
# -XX:+AlwaysPreTouch: the heap is touched once at start-up (about 2.5 s of system time for 6 GiB),
# before anything is timed. This VM hands memory the guest frees back to its host (free page
# reporting), and the next first touch of a page costs the toucher system time (one process touching
# 21 GiB took 25 to 52 s of it here, 2026-11-29): without it, the indexer bench's full-build passes
# that first touched a part of the heap took 2 to 3 times the CPU time of the others, nearly all of
# the difference in system time.
java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Xms"${HEAP:-6g}" -Xmx"${HEAP:-6g}" -XX:+AlwaysPreTouch -XX:+UseG1GC -Dlogback.configurationFile="$LOGBACK" ${JAVA_OPTS:-} \
  -cp "$CP" dev.mosaic.bench.indexer.IndexerBenchmark "$@" | tee bench/target/results/indexer.txt
status=${PIPESTATUS[0]}
set -e
if grep -q '^RESULT' bench/target/results/indexer.txt; then # none with --rates-only
  NO_BUILD=1 bash bench/charts.sh --measured bench/target/results/indexer.txt \
    || echo "WARNING: the chart of bench/target/results/indexer.txt was not drawn (reason above)" >&2
fi
exit "$status"
