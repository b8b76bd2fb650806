package dev.mosaic.deploy;

import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The local cluster's scale from {@code --offers N --partitions P}: validated, then written into
 * the configuration overrides ({@code mosaic.feed.offers}, {@code mosaic.partitions}, and {@code
 * mosaic.kafka.topic-partitions} lowered to P when P is smaller than it). An option left out keeps
 * the configured value.
 *
 * <p>Immutable; thread safe.
 *
 * @param offers offers of the simulated partners at start, or null to keep the configuration's
 * @param partitions index partitions, or null to keep the configuration's
 */
record ScaleOptions(Integer offers, Integer partitions) {
  /** Largest P: the feed loader's per-offer state keeps the index partition in 15 bits. */
  static final int MAX_PARTITIONS = 1 << 15;

  /**
   * Validates the options.
   *
   * @throws CommandLine.ParameterException naming the option and the value when one is out of range
   */
  static ScaleOptions of(Integer offers, Integer partitions, CommandSpec spec) {
    if (offers != null && offers < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--offers must be at least 1, got " + offers);
    }
    if (partitions != null && (partitions < 1 || partitions > MAX_PARTITIONS)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--partitions must be between 1 and " + MAX_PARTITIONS + ", got " + partitions);
    }
    return new ScaleOptions(offers, partitions);
  }

  /** Adds the overrides to the command's configuration options (after its {@code --set}s). */
  void applyTo(ConfigOptions options) {
    Map<String, String> overrides = options.overrides;
    if (offers != null) {
      overrides.put("mosaic.feed.offers", Integer.toString(offers));
    }
    if (partitions != null) {
      int topicPartitions = options.load().topicPartitions;
      overrides.put("mosaic.partitions", Integer.toString(partitions));
      if (topicPartitions > partitions) {
        overrides.put("mosaic.kafka.topic-partitions", Integer.toString(partitions));
      }
    }
  }
}
