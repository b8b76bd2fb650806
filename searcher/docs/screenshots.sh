#!/usr/bin/env bash
# Takes searcher/docs/status.png and searcher/docs/cluster.png from a real run (four searchers in
# two datacenters in one JVM, versions published every second, queries running) in headless
# Chromium. Needs Debian's chromium and chromium-driver. SECONDS_TO_RUN sets the run's length.
set -euo pipefail
cd "$(dirname "$0")/../.."
source ./scripts/select-jdk.sh
./mvnw -B -ntp -q -pl searcher -am verify -Dspotless.check.skip=true \
  -Dtest=StatusPagesScreenshots -Dsurefire.failIfNoSpecifiedTests=false \
  -Dmosaic.screenshots="$PWD/searcher/docs" -Dmosaic.screenshots.seconds="${SECONDS_TO_RUN:-200}"
ls -l searcher/docs/*.png
