package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransportSettingsTest {

  @Test
  void referenceConfAndBuilderDefaultsAgree() {
    assertThat(TransportSettings.fromConfig(ConfigFactory.load()))
        .isEqualTo(TransportSettings.defaults());
  }

  @Test
  void configOverridesAreRead() {
    TransportSettings s =
        TransportSettings.fromConfig(
            ConfigFactory.parseString(
                    "mosaic.transport { zk-root = \"/prod\", stale-after = 90s, chunk-size = 1MiB }")
                .withFallback(ConfigFactory.load()));
    assertThat(s.zkRoot()).isEqualTo("/prod");
    assertThat(s.staleAfter()).isEqualTo(Duration.ofSeconds(90));
    assertThat(s.chunkSize()).isEqualTo(1 << 20);
  }

  @Test
  void badValuesAreRejectedByName() {
    assertThatThrownBy(() -> TransportSettings.builder().relayParallelism(0).build())
        .hasMessageContaining("relay-parallelism");
    assertThatThrownBy(() -> TransportSettings.builder().zkRoot("mosaic/").build())
        .hasMessageContaining("zk-root");
    assertThatThrownBy(() -> TransportSettings.builder().staleAfter(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("stale-after");
  }
}
