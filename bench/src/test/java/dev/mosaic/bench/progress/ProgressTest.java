package dev.mosaic.bench.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {
  @Test
  void printsAPlainLineAtStartEveryTenthAndTheEnd() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Progress p = Progress.start("cars offers", 1000, "offers", out);
    for (int i = 0; i < 1000; i++) {
      p.advance();
    }
    p.note("merging");
    p.done();

    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).first().isEqualTo("cars offers: 1000 offers");
    assertThat(lines)
        .filteredOn(l -> l.matches("cars offers: \\d+% \\(\\d+/1000\\) \\d+\\.\\d s"))
        .hasSize(9);
    assertThat(lines.get(1)).startsWith("cars offers: 10% (100/1000) ");
    assertThat(lines).anyMatch(l -> l.matches("cars offers: merging \\d+\\.\\d s"));
    assertThat(lines).last().asString().matches("cars offers: done, 1000 offers in \\d+\\.\\d s");
    assertThat(bytes.toString(StandardCharsets.UTF_8)).doesNotContain("\u001b", "\r");
  }
}
