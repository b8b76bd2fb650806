package dev.mosaic.searcher.status;

import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A searcher's recent history for its status page: one {@link StatusSample} every interval, taken
 * on its own daemon thread and kept in a {@link HistoryRing}, so the page's charts are full when it
 * opens (with the defaults, one sample every 5 seconds for the last 15 minutes).
 *
 * <p>Thread safety: safe for concurrent use; the sampler is called from one thread only.
 */
public final class StatusHistory implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusHistory.class);

  /**
   * How often and how long to sample.
   *
   * @param interval time between samples, positive
   * @param samples samples kept, at least 1
   */
  public record Settings(Duration interval, int samples) {
    /**
     * One sample every 5 seconds for the last 15 minutes. A sample describes every partition (a
     * grid of 1024 partitions is a few milliseconds of CPU), so one a second cost a searcher
     * several per cent of a core while a feed cycle was arriving.
     */
    public static final Settings DEFAULT = new Settings(Duration.ofSeconds(5), 180);

    /** Checks the values. */
    public Settings {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("status sample interval must be positive: " + interval);
      }
      if (samples < 1) {
        throw new IllegalArgumentException("status history samples must be >= 1: " + samples);
      }
    }
  }

  private final Settings settings;
  private final Supplier<StatusSample> sampler;
  private final HistoryRing<StatusSample> ring;
  private final ScheduledExecutorService thread;

  /**
   * @param settings interval and length
   * @param sampler takes one sample; called on the history's thread only
   */
  public StatusHistory(Settings settings, Supplier<StatusSample> sampler) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.sampler = Objects.requireNonNull(sampler, "sampler");
    this.ring = new HistoryRing<>(settings.samples());
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "mosaic-status-history");
              t.setDaemon(true);
              return t;
            });
  }

  /** Takes a first sample now and one every interval until closed. */
  public void start() {
    long nanos = settings.interval().toNanos();
    thread.scheduleAtFixedRate(this::sampleQuietly, 0, nanos, TimeUnit.NANOSECONDS);
  }

  private void sampleQuietly() {
    try {
      ring.add(sampler.get());
    } catch (RuntimeException e) {
      // a failed sample leaves a gap in the chart; the next one tries again
      LOG.warn("status sample failed: {}", e.toString());
    }
  }

  /** The samples held, oldest first. */
  public List<StatusSample> samples() {
    return ring.snapshot();
  }

  /** Interval and length. */
  public Settings settings() {
    return settings;
  }

  /** Stops sampling; idempotent. */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}
