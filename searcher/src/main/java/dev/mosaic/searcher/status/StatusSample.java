package dev.mosaic.searcher.status;

/**
 * One second (or one sampling interval) of a searcher's index as the status page charts it. Unknown
 * values are {@code NaN}.
 *
 * @param epochMillis when it was taken
 * @param newestFileAgeSeconds time since the newest partition file held arrived
 * @param generationAgeSeconds time since the serving generation opened
 * @param partitionsBehind partitions served at a version older than the newest known (the
 *     manifest's, or the newest held when there is no manifest), or not served
 * @param maxSecondsBehind the longest time a newer version of a partition has existed while this
 *     searcher served an older one
 * @param queriesPerSecond queries answered per second over the interval
 * @param notOkPerSecond of those, the ones not answered {@code ok}
 * @param p50Ms median query latency over the interval
 * @param p99Ms 99th percentile query latency over the interval
 */
public record StatusSample(
    long epochMillis,
    double newestFileAgeSeconds,
    double generationAgeSeconds,
    int partitionsBehind,
    double maxSecondsBehind,
    double queriesPerSecond,
    double notOkPerSecond,
    double p50Ms,
    double p99Ms) {}
