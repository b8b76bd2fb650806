package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScaleOptionsTest {

  private static MosaicConfig applied(Integer offers, Integer partitions, String... sets) {
    ConfigOptions options = new ConfigOptions();
    for (int i = 0; i < sets.length; i += 2) {
      options.overrides.put(sets[i], sets[i + 1]);
    }
    new ScaleOptions(offers, partitions).applyTo(options);
    return options.load();
  }

  @Test
  void optionsSetTheOffersAndPartitionsOverTheConfiguration() {
    MosaicConfig c = applied(500_000, 1024, "mosaic.partitions", "16");
    assertThat(c.feed.offers).isEqualTo(500_000);
    assertThat(c.partitions).isEqualTo(1024);
    assertThat(c.topicPartitions).as("configured, fits under P").isEqualTo(8);
  }

  @Test
  void fewerPartitionsThanTheTopicHasLowerTheTopicPartitionsToP() {
    MosaicConfig c = applied(null, 4);
    assertThat(c.partitions).isEqualTo(4);
    assertThat(c.topicPartitions).isEqualTo(4);
  }

  @Test
  void leftOutOptionsKeepTheConfiguredValues() {
    MosaicConfig c = applied(null, null);
    assertThat(c.feed.offers).isEqualTo(6000);
    assertThat(c.partitions).isEqualTo(64);
  }
}
