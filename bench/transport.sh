#!/usr/bin/env bash
# Transport benchmark (all in one JVM, real ZooKeeper, real loopback sockets):
#  1. one SIZE_MB file delivered to the entry searcher of a datacenter, which relays it to PEERS
#     peers (fsync + verification on every node), against an honest baseline doing the same work
#     with blocking JDK sockets in the same run: TLS 1.3 with mutual authentication (the same
#     certificates), CRC32C computed while streaming, staged into the same store, fsync, verifying
#     re-read, atomic rename; for one hop and for entry + store-and-forward relay to the peers;
#  2. PARTITIONS files of FILE_MB delivered to DCS datacenters x PER_DC searchers: seconds until
#     every searcher holds every file, and the inter-DC copies per version from the byte counters
#     (the sender sits in its own datacenter, so the ideal is one copy per datacenter = DCS).
#     Bytes of refused pushes are counted and printed.
# Ends with
#   RESULT transport ours_mbps=<one hop> baseline_mbps=<same work, one hop> relay_mbps=<entry + peers>
#     relay_baseline_mbps=<same work> fanout_s=<> partitions=<> inter_dc_copies_per_version=<> dcs=<> tls=<on|off>
# Needs about SIZE_MB*6 + PARTITIONS*FILE_MB*(DCS*PER_DC+1) MB of free disk under WORK (27 GB by default).
#
# The single-file figures are medians of ROUNDS rounds, each running the baseline then ours, so that
# load from elsewhere on the machine hits both alike.
# Environment knobs: SIZE_MB (1024), ROUNDS (3), PEERS (3), PARTITIONS (1024), FILE_MB (2), DCS (3), PER_DC (3),
# TLS (on: mutual TLS with a throwaway cluster CA, as in production; off: plaintext), WORK (bench/target/transport),
# BENCH_OPTS (extra JVM flags).
# The output is kept in bench/target/results/transport.txt and drawn into bench/results/transport.png
# (bench/charts.sh redraws it later without rerunning).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

SIZE_MB=${SIZE_MB:-1024}
PEERS=${PEERS:-3}
PARTITIONS=${PARTITIONS:-1024}
FILE_MB=${FILE_MB:-2}
DCS=${DCS:-3}
PER_DC=${PER_DC:-3}
TLS=${TLS:-on}
ROUNDS=${ROUNDS:-3}
WORK=${WORK:-bench/target/transport}
FLAGS="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"

echo "== building (bench and the modules it needs)"
./mvnw -B -q -pl bench -am -DskipTests -Dspotless.check.skip=true package \
  dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
CP="bench/target/classes:$(cat bench/target/classpath.txt)"

mkdir -p bench/target
LOGBACK=bench/target/transport-logback.xml
cat > "$LOGBACK" <<'XML'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>
  </appender>
  <logger name="dev.mosaic" level="WARN"/>
  <root level="ERROR"><appender-ref ref="OUT"/></root>
</configuration>
XML

echo "== running"
# shellcheck disable=SC2086
java $FLAGS -Xmx2g -Dlogback.configurationFile="$LOGBACK" ${BENCH_OPTS:-} -cp "$CP" dev.mosaic.bench.transport.TransportBench \
  --work "$WORK" --size-mb "$SIZE_MB" --peers "$PEERS" --partitions "$PARTITIONS" \
  --file-mb "$FILE_MB" --dcs "$DCS" --per-dc "$PER_DC" --tls "$TLS" --rounds "$ROUNDS" | tee "${WORK%/}.log" | grep -v '^RESULT' || true
grep '^RESULT' "${WORK%/}.log"
mkdir -p bench/target/results
cp "${WORK%/}.log" bench/target/results/transport.txt
NO_BUILD=1 bash bench/charts.sh --measured bench/target/results/transport.txt \
  || echo "WARNING: the chart of bench/target/results/transport.txt was not drawn (reason above)" >&2
