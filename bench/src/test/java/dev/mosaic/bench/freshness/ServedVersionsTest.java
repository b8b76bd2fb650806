package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServedVersionsTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readsTheGenerationAndEveryPartitionsVersionWhateverTheFieldOrder() throws IOException {
    ServedVersions v =
        ServedVersions.parse(
            "s",
            utf8("{\"served\":{\"0\":17,\"1023\":1790000000123},\"other\":[1],\"generation\":42}"));
    assertThat(v.generation()).isEqualTo(42);
    assertThat(v.versions()).isEqualTo(Map.of(0, 17L, 1023, 1790000000123L));
  }

  @Test
  void anAnswerBeforeTheFirstGenerationIsAnErrorNamingTheSearcher() {
    assertThatThrownBy(
            () -> ServedVersions.parse("dc-a-1", utf8("{\"generation\":null,\"served\":{}}")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("dc-a-1 serves no generation yet");
    assertThatThrownBy(() -> ServedVersions.parse("dc-a-1", utf8("[1,2]")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not a JSON object");
  }
}
