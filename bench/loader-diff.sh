#!/usr/bin/env bash
# The feed loader's diff alone, repeated (LoaderDiffRounds): a real KRaft Kafka broker in-process and
# the feed loader with a state directory, no indexer node. The cars generator's offers (500k) are
# published once; then every round publishes the other of the two snapshot sets (1% of the offers
# changed between them) as one batch, 4 partners at a time. Prints per round
#   ROUND <n> diff_ms=<> returned_ms=<> cpu_ms=<> upserts=<> summed_diff_ms=<> summed_ack_ms=<> load=<>
# (diff_ms as in bench/indexer.sh; cpu_ms is the whole process's CPU time during the round, less
# sensitive than wall time to other work on the machine).
# Extra arguments go to the tool, e.g. --rounds 20 --publish-threads 2.
# Environment: HEAP (default 6g), JAVA_OPTS (extra JVM options).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true

LOGBACK=bench/target/loader-diff-logback.xml
cat > "$LOGBACK" <<'XML'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n</pattern></encoder>
  </appender>
  <root level="ERROR"><appender-ref ref="STDERR"/></root>
</configuration>
XML

CP="bench/target/classes:$(cat bench/target/classpath.txt)"
# -XX:+AlwaysPreTouch: the heap is touched once at start-up (about 2.5 s of system time for 6 GiB),
# before anything is timed. This VM hands memory the guest frees back to its host (free page
# reporting), and the next first touch of a page costs the toucher system time (one process touching
# 21 GiB took 25 to 52 s of it here, 2026-11-29): without it, the indexer bench's full-build passes
# that first touched a part of the heap took 2 to 3 times the CPU time of the others, nearly all of
# the difference in system time.
exec java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Xms"${HEAP:-6g}" -Xmx"${HEAP:-6g}" -XX:+AlwaysPreTouch -XX:+UseG1GC -Dlogback.configurationFile="$LOGBACK" ${JAVA_OPTS:-} \
  -cp "$CP" dev.mosaic.bench.indexer.LoaderDiffRounds "$@"
