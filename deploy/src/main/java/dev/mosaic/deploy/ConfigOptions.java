package dev.mosaic.deploy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
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

  /**
   * As {@link #load()}, but when no ZooKeeper digest password is configured, uses a random one for
   * this run: every node of a one-JVM cluster shares it, nobody else can write the znodes.
   */
  MosaicConfig loadWithThrowawayZooKeeperCredential() {
    MosaicConfig config = load();
    String key = "mosaic.transport.zookeeper.digest-password";
    if (!config.config().getString(key).isEmpty()) {
      return config;
    }
    Map<String, String> withSecret = new LinkedHashMap<>(overrides);
    withSecret.put(key, UUID.randomUUID().toString());
    return MosaicConfig.load(file, withSecret);
  }
}
