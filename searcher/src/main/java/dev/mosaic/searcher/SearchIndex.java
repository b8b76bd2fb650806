package dev.mosaic.searcher;

import java.util.Objects;

/**
 * One index a {@link SearcherNode} serves: its own {@link PartitionStore} (a store directory of its
 * own), the {@link Generations} reopened from it and the {@link SearchService} answering queries on
 * them. A node serves one index, or several side by side ({@link SearcherNode.Builder#index}).
 *
 * <p>Thread safety: immutable; its parts are safe for concurrent use.
 *
 * @param name the index name (the {@code index} tag of its meters, the {@code /indexes/<name>} HTTP
 *     prefix)
 * @param store its partition store, which the index's transport publishes into
 * @param generations the generations of that store
 * @param search its queries
 */
public record SearchIndex(
    String name, PartitionStore store, Generations generations, SearchService search) {
  /** Checks the fields. */
  public SearchIndex {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(generations, "generations");
    Objects.requireNonNull(search, "search");
  }

  /** True when a generation is open (the index answers queries). */
  public boolean isReady() {
    return generations.isReady();
  }
}
