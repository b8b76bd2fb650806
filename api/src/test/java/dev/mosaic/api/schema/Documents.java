package dev.mosaic.api.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import java.util.HexFormat;
import java.util.List;

/** Asserts two documents hold the same values and payload (documents have no equals). */
final class Documents {
  private Documents() {}

  static void assertSame(Document actual, Document expected, String what) {
    assertThat(actual.schema()).as(what + " schema").isEqualTo(expected.schema());
    for (Field f : expected.schema().fields()) {
      assertThat(hex(actual.values(f.name())))
          .as(what + " field " + f.name())
          .isEqualTo(hex(expected.values(f.name())));
    }
    assertThat(actual.payload()).as(what + " payload").isEqualTo(expected.payload());
  }

  private static List<String> hex(List<byte[]> values) {
    return values.stream().map(HexFormat.of()::formatHex).toList();
  }
}
