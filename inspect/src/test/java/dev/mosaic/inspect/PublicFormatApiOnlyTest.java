package dev.mosaic.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The inspector is a user of the format's public API: none of its sources names {@code impl}. */
class PublicFormatApiOnlyTest {
  @Test
  void noSourceOfTheInspectorReachesIntoTheFormatsImplementation() throws Exception {
    Path sources = Path.of("src/main/java");
    assertThat(sources).isDirectory();
    List<Path> offenders;
    try (Stream<Path> files = Files.walk(sources)) {
      offenders =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> read(f).contains("dev.mosaic.format.impl"))
              .toList();
    }
    assertThat(offenders).isEmpty();
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
