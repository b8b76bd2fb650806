package dev.mosaic.bench.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where the benchmarks cache their data sets: the system property {@code mosaic.bench.data}, by
 * default {@code bench/target/bench-data} under the working directory. Data sets are built into a
 * temporary sibling directory and renamed into place, so a cached directory is always complete.
 */
final class BenchDataRoot {
  static final String PROPERTY = "mosaic.bench.data";

  private BenchDataRoot() {}

  static Path get() {
    return Path.of(System.getProperty(PROPERTY, "bench/target/bench-data")).toAbsolutePath();
  }

  /** A builder of one cached directory. */
  @FunctionalInterface
  interface DirectoryBuild {
    void buildInto(Path directory) throws IOException;
  }

  /** The directory, built by {@code build} into a temporary sibling and renamed when missing. */
  static synchronized Path cached(Path directory, DirectoryBuild build) throws IOException {
    if (Files.isDirectory(directory)) {
      return directory;
    }
    Path tmp = directory.resolveSibling(directory.getFileName() + ".tmp");
    deleteRecursively(tmp);
    Files.createDirectories(tmp);
    build.buildInto(tmp);
    Files.move(tmp, directory, StandardCopyOption.ATOMIC_MOVE);
    return directory;
  }

  static void deleteRecursively(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  static long sizeOf(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      long total = 0;
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        total += Files.size(p);
      }
      return total;
    }
  }
}
