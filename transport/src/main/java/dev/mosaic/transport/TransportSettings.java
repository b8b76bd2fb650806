package dev.mosaic.transport;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of the transport. Read from the {@code mosaic.transport} section of a Pekko/Typesafe
 * config ({@link #fromConfig}) or built with {@link #builder()}; see {@code reference.conf} in this
 * module for every key and its default.
 *
 * <p>Thread safety: immutable.
 */
public record TransportSettings(
    String zkRoot,
    int maxConcurrentDeliveries,
    int maxAttemptsPerDc,
    Duration retryBackoffMin,
    Duration retryBackoffMax,
    Duration transferIdleTimeout,
    Duration connectTimeout,
    int relayParallelism,
    int relayAttempts,
    int maxIncomingTransfers,
    Duration catchUpInterval,
    Duration catchUpGrace,
    Duration catchUpCrossDcAfter,
    int catchUpParallelism,
    Duration staleAfter,
    int chunkSize,
    boolean writeManifest,
    Duration manifestWait) {

  /** Checks every value; throws {@link IllegalArgumentException} naming the bad one. */
  public TransportSettings {
    Objects.requireNonNull(zkRoot, "zkRoot");
    if (!zkRoot.startsWith("/") || (zkRoot.length() > 1 && zkRoot.endsWith("/"))) {
      throw new IllegalArgumentException("zk-root must be an absolute ZooKeeper path: " + zkRoot);
    }
    positive("max-concurrent-deliveries", maxConcurrentDeliveries);
    positive("max-attempts-per-dc", maxAttemptsPerDc);
    positive("relay-parallelism", relayParallelism);
    positive("relay-attempts", relayAttempts);
    positive("max-incoming-transfers", maxIncomingTransfers);
    positive("catch-up-parallelism", catchUpParallelism);
    positive("chunk-size", chunkSize);
    for (var d :
        new Object[][] {
          {"retry-backoff-min", retryBackoffMin},
          {"retry-backoff-max", retryBackoffMax},
          {"transfer-idle-timeout", transferIdleTimeout},
          {"connect-timeout", connectTimeout},
          {"catch-up-interval", catchUpInterval},
          {"catch-up-grace", catchUpGrace},
          {"catch-up-cross-dc-after", catchUpCrossDcAfter},
          {"stale-after", staleAfter},
          {"manifest-wait", manifestWait}
        }) {
      Duration value = (Duration) d[1];
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException(d[0] + " must be >= 0: " + value);
      }
    }
  }

  private static void positive(String key, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(key + " must be > 0: " + value);
    }
  }

  /** The defaults of {@code reference.conf}. */
  public static TransportSettings defaults() {
    return builder().build();
  }

  /** Reads the {@code mosaic.transport} section of {@code config} (which includes the defaults). */
  public static TransportSettings fromConfig(Config config) {
    Config c = config.getConfig("mosaic.transport");
    return new TransportSettings(
        c.getString("zk-root"),
        c.getInt("max-concurrent-deliveries"),
        c.getInt("max-attempts-per-dc"),
        c.getDuration("retry-backoff-min"),
        c.getDuration("retry-backoff-max"),
        c.getDuration("transfer-idle-timeout"),
        c.getDuration("connect-timeout"),
        c.getInt("relay-parallelism"),
        c.getInt("relay-attempts"),
        c.getInt("max-incoming-transfers"),
        c.getDuration("catch-up-interval"),
        c.getDuration("catch-up-grace"),
        c.getDuration("catch-up-cross-dc-after"),
        c.getInt("catch-up-parallelism"),
        c.getDuration("stale-after"),
        (int) c.getBytes("chunk-size").longValue(),
        c.getBoolean("write-manifest"),
        c.getDuration("manifest-wait"));
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.zkRoot = zkRoot;
    b.maxConcurrentDeliveries = maxConcurrentDeliveries;
    b.maxAttemptsPerDc = maxAttemptsPerDc;
    b.retryBackoffMin = retryBackoffMin;
    b.retryBackoffMax = retryBackoffMax;
    b.transferIdleTimeout = transferIdleTimeout;
    b.connectTimeout = connectTimeout;
    b.relayParallelism = relayParallelism;
    b.relayAttempts = relayAttempts;
    b.maxIncomingTransfers = maxIncomingTransfers;
    b.catchUpInterval = catchUpInterval;
    b.catchUpGrace = catchUpGrace;
    b.catchUpCrossDcAfter = catchUpCrossDcAfter;
    b.catchUpParallelism = catchUpParallelism;
    b.staleAfter = staleAfter;
    b.chunkSize = chunkSize;
    b.writeManifest = writeManifest;
    b.manifestWait = manifestWait;
    return b;
  }

  /** Mutable builder; not thread safe. Defaults equal {@code reference.conf}. */
  public static final class Builder {
    private String zkRoot = "/mosaic";
    private int maxConcurrentDeliveries = 8;
    private int maxAttemptsPerDc = 6;
    private Duration retryBackoffMin = Duration.ofMillis(100);
    private Duration retryBackoffMax = Duration.ofSeconds(5);
    private Duration transferIdleTimeout = Duration.ofSeconds(60);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private int relayParallelism = 4;
    private int relayAttempts = 5;
    private int maxIncomingTransfers = 16;
    private Duration catchUpInterval = Duration.ofSeconds(30);
    private Duration catchUpGrace = Duration.ofSeconds(10);
    private Duration catchUpCrossDcAfter = Duration.ofMinutes(2);
    private Duration manifestWait = Duration.ofSeconds(10);
    private int catchUpParallelism = 2;
    private Duration staleAfter = Duration.ofMinutes(5);
    private int chunkSize = 256 * 1024;
    private boolean writeManifest = true;

    private Builder() {}

    /** {@code zk-root}. */
    public Builder zkRoot(String v) {
      zkRoot = v;
      return this;
    }

    /** {@code max-concurrent-deliveries}. */
    public Builder maxConcurrentDeliveries(int v) {
      maxConcurrentDeliveries = v;
      return this;
    }

    /** {@code max-attempts-per-dc}. */
    public Builder maxAttemptsPerDc(int v) {
      maxAttemptsPerDc = v;
      return this;
    }

    /** {@code retry-backoff-min} and {@code retry-backoff-max}. */
    public Builder retryBackoff(Duration min, Duration max) {
      retryBackoffMin = min;
      retryBackoffMax = max;
      return this;
    }

    /** {@code transfer-idle-timeout}. */
    public Builder transferIdleTimeout(Duration v) {
      transferIdleTimeout = v;
      return this;
    }

    /** {@code connect-timeout}. */
    public Builder connectTimeout(Duration v) {
      connectTimeout = v;
      return this;
    }

    /** {@code relay-parallelism}. */
    public Builder relayParallelism(int v) {
      relayParallelism = v;
      return this;
    }

    /** {@code relay-attempts}. */
    public Builder relayAttempts(int v) {
      relayAttempts = v;
      return this;
    }

    /** {@code max-incoming-transfers}. */
    public Builder maxIncomingTransfers(int v) {
      maxIncomingTransfers = v;
      return this;
    }

    /** {@code catch-up-interval}. */
    public Builder catchUpInterval(Duration v) {
      catchUpInterval = v;
      return this;
    }

    /** {@code catch-up-grace}. */
    public Builder catchUpGrace(Duration v) {
      catchUpGrace = v;
      return this;
    }

    /** {@code catch-up-cross-dc-after}. */
    public Builder catchUpCrossDcAfter(Duration v) {
      catchUpCrossDcAfter = v;
      return this;
    }

    /** {@code catch-up-parallelism}. */
    public Builder catchUpParallelism(int v) {
      catchUpParallelism = v;
      return this;
    }

    /** {@code stale-after}. */
    public Builder staleAfter(Duration v) {
      staleAfter = v;
      return this;
    }

    /** {@code chunk-size} in bytes. */
    public Builder chunkSize(int v) {
      chunkSize = v;
      return this;
    }

    /** {@code write-manifest}. */
    public Builder writeManifest(boolean v) {
      writeManifest = v;
      return this;
    }

    /** {@code manifest-wait}. */
    public Builder manifestWait(Duration v) {
      manifestWait = v;
      return this;
    }

    /** Validates and builds. */
    public TransportSettings build() {
      return new TransportSettings(
          zkRoot,
          maxConcurrentDeliveries,
          maxAttemptsPerDc,
          retryBackoffMin,
          retryBackoffMax,
          transferIdleTimeout,
          connectTimeout,
          relayParallelism,
          relayAttempts,
          maxIncomingTransfers,
          catchUpInterval,
          catchUpGrace,
          catchUpCrossDcAfter,
          catchUpParallelism,
          staleAfter,
          chunkSize,
          writeManifest,
          manifestWait);
    }
  }
}
