#!/usr/bin/env bash
# Draws the PNG charts of benchmark results (bench/results/<name>.png) from saved outputs, without
# rerunning anything. Every bench/*.sh script calls this at its end with its own output.
#
#   bash bench/charts.sh                       # redraw every bench/results/*.txt
#   bash bench/charts.sh bench/target/results/format.txt [--caption "2 vCPU, load 1.5"]
#   bash bench/charts.sh --measured bench/target/results/format.txt   # caption: date, cores, JDK, load
#
# An input <name>.txt is any saved output of a script: its RESULT lines (and the searcher load's
# per-concurrency lines, '# ' caption lines) are kept in bench/results/<name>.txt and drawn into
# bench/results/<name>.png. Environment: OUT (bench/results), NO_BUILD=1 to skip the build check.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

OUT=${OUT:-bench/results}
inputs=()
opts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --caption) opts+=(--caption "$2"); shift 2 ;;
    --measured)
      jdk=$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1 | sed -E 's/.*version "([^"]+)".*/\1/')
      opts+=(--caption "measured $(date -u '+%Y-%m-%d %H:%M') UTC on $(nproc) vCPU, JDK $jdk, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end")
      shift ;;
    *) inputs+=("$1"); shift ;;
  esac
done
if [ ${#inputs[@]} -eq 0 ]; then
  shopt -s nullglob
  inputs=("$OUT"/*.txt)
  if [ ${#inputs[@]} -eq 0 ]; then
    echo "no saved outputs in $OUT (run a bench/*.sh script first)" >&2
    exit 1
  fi
fi

if [ "${NO_BUILD:-0}" != 1 ] || [ ! -f bench/target/classpath.txt ] \
    || [ ! -f bench/target/classes/dev/mosaic/bench/chart/ResultCharts.class ]; then
  ./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true
fi
CP="bench/target/classes:$(cat bench/target/classpath.txt)"
# redrawing in place: read every input before the tool rewrites bench/results/<name>.txt
java -Djava.awt.headless=true -cp "$CP" dev.mosaic.bench.chart.ResultCharts \
  --out-dir "$OUT" "${opts[@]}" "${inputs[@]}"
