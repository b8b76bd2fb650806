package dev.mosaic.searcher;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.Objects;

/**
 * Meters of one index in a registry shared by several: a view that adds the tag {@code
 * index=<name>} to every meter registered through it and registers it in the shared registry. The
 * tag's values are the configured index names only, so its cardinality is bounded by the
 * configuration.
 *
 * <p>Every meter of one name must carry the same tag keys in a Prometheus registry, so a process
 * registers everything index-scoped through such a view, the default index included.
 *
 * <p>Thread safety: the view is a Micrometer registry, safe for concurrent use.
 */
public final class IndexMeters {
  /** The tag naming the index. */
  public static final String TAG = "index";

  private IndexMeters() {}

  /** A view of {@code shared} tagging every meter with {@code index=<index>}. */
  public static MeterRegistry tagged(MeterRegistry shared, String index) {
    Objects.requireNonNull(shared, "shared");
    CompositeMeterRegistry view = new CompositeMeterRegistry(shared.config().clock());
    view.config().commonTags(TAG, Objects.requireNonNull(index, "index"));
    view.add(shared);
    return view;
  }
}
