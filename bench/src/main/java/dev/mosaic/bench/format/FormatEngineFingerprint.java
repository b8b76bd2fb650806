package dev.mosaic.bench.format;

import dev.mosaic.format.DatabaseBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A short key of the format engine's compiled classes, so cached data sets built by one version of
 * the engine are never read by another. It hashes the content (not the timestamps) of every class
 * of the format module, from its jar or its classes directory.
 */
final class FormatEngineFingerprint {
  private FormatEngineFingerprint() {}

  static String get() {
    try {
      Path location =
          Path.of(
              DatabaseBuilder.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      CRC32C crc = new CRC32C();
      if (Files.isDirectory(location)) {
        List<Path> classes;
        try (Stream<Path> files = Files.walk(location)) {
          classes = files.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : classes) {
          crc.update(
              location.relativize(f).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          crc.update(Files.readAllBytes(f));
        }
      } else {
        try (ZipFile zip = new ZipFile(location.toFile())) {
          List<? extends ZipEntry> entries =
              zip.stream()
                  .filter(e -> !e.isDirectory() && !e.getName().startsWith("META-INF/"))
                  .sorted(java.util.Comparator.comparing(ZipEntry::getName))
                  .toList();
          for (ZipEntry e : entries) {
            crc.update(e.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            try (InputStream in = zip.getInputStream(e)) {
              crc.update(in.readAllBytes());
            }
          }
        }
      }
      return HexFormat.of().toHexDigits((int) crc.getValue());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot fingerprint the format engine", e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the format engine classes", e);
    }
  }
}
