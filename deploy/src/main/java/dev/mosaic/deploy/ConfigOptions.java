package dev.mosaic.deploy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options every command takes to find its configuration. Not thread safe. */
final class ConfigOptions {
  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "HOCON file overriding the defaults (keys: deploy/CONFIG.md).")
  Path file;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "Overrides one key, e.g. --set mosaic.partitions=128 (repeatable).")
  Map<String, String> overrides = new LinkedHashMap<>();

  MosaicConfig load() {
    return MosaicConfig.load(file, overrides);
  }
}
