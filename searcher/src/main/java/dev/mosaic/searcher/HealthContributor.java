package dev.mosaic.searcher;

/**
 * Something that has a say in whether this searcher is healthy, for example the transport's
 * staleness check ("no partition file received for too long"). {@code GET /health} calls every
 * contributor and answers 503 when any reports down.
 *
 * <p>Thread safety: implementations must be safe to call from any thread, and quick (no I/O that
 * can hang): they run on every health request.
 */
public interface HealthContributor {
  /** A short stable name shown in the health answer, e.g. {@code "transport"}. */
  String name();

  /** The current health. */
  Health check();

  /**
   * A contributor from two functions, e.g. for the transport's freshness check: {@code
   * HealthContributor.of("transport", transportHealth, transportHealth::describe)}.
   */
  static HealthContributor of(
      String name,
      java.util.function.BooleanSupplier up,
      java.util.function.Supplier<String> detail) {
    java.util.Objects.requireNonNull(name, "name");
    java.util.Objects.requireNonNull(up, "up");
    java.util.Objects.requireNonNull(detail, "detail");
    return new HealthContributor() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Health check() {
        return new Health(up.getAsBoolean(), String.valueOf(detail.get()));
      }
    };
  }

  /**
   * One contributor's verdict.
   *
   * @param up whether it considers the searcher healthy
   * @param detail a short human-readable explanation (never null)
   */
  record Health(boolean up, String detail) {
    public Health {
      java.util.Objects.requireNonNull(detail, "detail");
    }

    /** Healthy, with a detail. */
    public static Health up(String detail) {
      return new Health(true, detail);
    }

    /** Unhealthy, with the reason. */
    public static Health down(String reason) {
      return new Health(false, reason);
    }
  }
}
