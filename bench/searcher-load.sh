#!/usr/bin/env bash
# Searcher load benchmark: serves the 500k-document / 1024-partition cars data set from a searcher
# in its own JVM and drives the query mix over HTTP from a second JVM in open loop: requests start
# at a constant offered rate (RATE, default 1000/s) whatever the answers do, so a stall shows as
# latency instead of fewer requests. One partition is republished every second meanwhile. Every
# answer is checked against the reference counts of what was published (totals of the mark, mark and
# body type, and front-page queries; hit counts against total, skip and limit; price order). Failed
# requests count in the latencies and in errors. Ends with
#   RESULT searcher_load offered_rps=<> achieved_rps=<> p50_ms=<> p99_ms=<> p999_ms=<> errors=<> wrong_answers=<> reopens=<>
# (achieved_rps: requests answered right per second; latencies from each request's scheduled start)
# and an INFO line with the CPU time the searcher and the load tool spent per request. Requests go
# over CONNECTIONS persistent connections, encoded before the run; one scheduled while all are busy
# waits for a free one, and that wait counts in its latency.
#
# Environment knobs: DOCS (500000), PARTITIONS (1024), PORT (18080), RATE (1000), DURATION_SECONDS (60),
# WARMUP_SECONDS (15), CONNECTIONS (64), WORK (bench/target/searcher-load), SEARCHER_OPTS, LOAD_OPTS,
# LOAD_CLASSPATH (run a build kept elsewhere instead of building, e.g. to compare two versions).
# The load tool's output is kept in bench/target/results/searcher-load.txt and drawn into
# bench/results/searcher-load.png (bench/charts.sh redraws it later without rerunning).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

DOCS=${DOCS:-500000}
PARTITIONS=${PARTITIONS:-1024}
PORT=${PORT:-18080}
RATE=${RATE:-1000}
DURATION_SECONDS=${DURATION_SECONDS:-60}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
CONNECTIONS=${CONNECTIONS:-64}
WORK=${WORK:-bench/target/searcher-load}
FLAGS="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"

if [ -n "${LOAD_CLASSPATH:-}" ]; then
  echo "== using the given class path (no build)"
  CP="$LOAD_CLASSPATH"
else
  echo "== building (bench and the modules it needs)"
  ./mvnw -B -q -pl bench -am -DskipTests -Dspotless.check.skip=true package \
    dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
  CP="bench/target/classes:$(cat bench/target/classpath.txt)"
fi

PRISTINE="$WORK/pristine-$DOCS-$PARTITIONS"
# regenerate when the file format or the generator changed since the data set was written
if [ -f "$PRISTINE/.complete" ] && [ -n "$(find format/src/main api/src/main -newer "$PRISTINE/.complete" -type f | head -n 1)" ]; then
  echo "== format or generator sources changed since $PRISTINE was written: regenerating"
  rm -f "$PRISTINE/.complete"
fi
if [ ! -f "$PRISTINE/.complete" ]; then
  echo "== generating $DOCS documents in $PARTITIONS partitions into $PRISTINE"
  rm -rf "$PRISTINE"
  java $FLAGS -Xmx4g -cp "$CP" dev.mosaic.bench.load.SearcherLoad generate \
    --store "$PRISTINE" --documents "$DOCS" --partitions "$PARTITIONS"
  touch "$PRISTINE/.complete"
fi
STORE="$WORK/store"
rm -rf "$STORE"
cp -r "$PRISTINE" "$STORE"
rm -f "$STORE/.complete"

echo "== starting the searcher on port $PORT"
# Republishing goes through the admin upload endpoint, which needs the operator token.
MOSAIC_ADMIN_TOKEN="${MOSAIC_ADMIN_TOKEN:-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}"
export MOSAIC_ADMIN_TOKEN
cat > "$WORK/searcher-logback.xml" <<'XML'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{24} - %msg%n</pattern></encoder>
  </appender>
  <logger name="org.apache.pekko" level="WARN"/>
  <root level="INFO"><appender-ref ref="OUT"/></root>
</configuration>
XML
# shellcheck disable=SC2086
java $FLAGS -Xmx1g -Dlogback.configurationFile="$WORK/searcher-logback.xml" ${SEARCHER_OPTS:-} \
  -cp "$CP" dev.mosaic.searcher.SearcherMain serve \
  --store "$STORE" --port "$PORT" --allow-uploads 64 > "$WORK/searcher.log" 2>&1 &
SEARCHER_PID=$!
trap 'kill "$SEARCHER_PID" 2>/dev/null || true; wait "$SEARCHER_PID" 2>/dev/null || true' EXIT

echo "== driving the query mix: open loop at $RATE requests/s for ${DURATION_SECONDS}s after ${WARMUP_SECONDS}s warmup"
# shellcheck disable=SC2086
java $FLAGS -Xmx1g -Dlogback.configurationFile="$WORK/searcher-logback.xml" ${LOAD_OPTS:-} -cp "$CP" dev.mosaic.bench.load.SearcherLoad run \
  --url "http://127.0.0.1:$PORT" --partitions "$PARTITIONS" --documents "$DOCS" \
  --rate "$RATE" --duration-seconds "$DURATION_SECONDS" --warmup-seconds "$WARMUP_SECONDS" \
  --connections "$CONNECTIONS" --searcher-pid "$SEARCHER_PID" \
  | tee "$WORK/load.log"
mkdir -p bench/target/results
cp "$WORK/load.log" bench/target/results/searcher-load.txt
NO_BUILD=1 bash bench/charts.sh --measured bench/target/results/searcher-load.txt \
  || echo "WARNING: the chart of bench/target/results/searcher-load.txt was not drawn (reason above)" >&2
