#!/usr/bin/env bash
# Runs the whole Mosaic pipeline locally in one JVM: embedded ZooKeeper and Kafka (KRaft), a feed
# simulator, two indexers and two datacenters of two searchers each. Ctrl-C stops everything.
#
#   bash deploy/local-cluster.sh                      # run until Ctrl-C, printing a status line
#   bash deploy/local-cluster.sh --duration 60        # run 60 s under query load, print RESULT, exit
#   bash deploy/local-cluster.sh --offers 20000 --partitions 256   # another scale (default 6000 offers, 64)
#   bash deploy/local-cluster.sh --config my.conf --set mosaic.partitions=128
#
# Builds deploy/target/mosaic.jar first when it is missing or older than any source.
# Logs go to deploy/target/local-cluster.log (override with MOSAIC_LOG_FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
source ./scripts/select-jdk.sh

jar=deploy/target/mosaic.jar
stale=""
if [ ! -f "$jar" ]; then
  stale="missing"
elif [ -n "$(find . -path ./.git -prune -o -path '*/target' -prune -o \
    \( -name '*.java' -o -name 'pom.xml' -o -name '*.conf' -o -name '*.proto' -o -name 'logback.xml' \) \
    -newer "$jar" -print -quit)" ]; then
  stale="older than the sources"
fi
if [ -n "$stale" ]; then
  echo "Building $jar ($stale)..." >&2
  if ! build_log=$(./mvnw -B -q -ntp -DskipTests -Dspotless.check.skip=true -pl deploy -am package 2>&1); then
    echo "$build_log" >&2
    echo "ERROR: building $jar failed (output above)." >&2
    exit 1
  fi
fi

log_file="${MOSAIC_LOG_FILE:-deploy/target/local-cluster.log}"
echo "Logs: $log_file" >&2
# The embedded ZooKeeper of this throwaway cluster does not fsync its transaction log: on a busy
# disk every fsync took 90-450 ms, and each partition rebuild records its version in ZooKeeper, so
# the indexers' rebuild queue (and the feed-to-searchable time) waited on the disk. A process crash
# loses nothing (the log is in the page cache); an OS crash may lose the last writes of a demo.
# MOSAIC_JAVA_OPTS=-Dzookeeper.forceSync=yes restores it. No effect on an external ZooKeeper.
exec "$JAVA_HOME/bin/java" \
  --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Dzookeeper.forceSync=no \
  ${MOSAIC_JAVA_OPTS:-} \
  -Dmosaic.log.file="$log_file" \
  -jar "$jar" local-cluster "$@"
