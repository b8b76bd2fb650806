package dev.mosaic.searcher.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The last {@code capacity} items added, oldest first: a fixed array overwritten in a circle, so
 * its memory never grows (the status pages keep one sample a second in one).
 *
 * <p>Thread safety: safe for concurrent writers and readers. Every {@link #add} and {@link
 * #snapshot} holds one lock for a few array accesses (a snapshot copies at most {@code capacity}
 * references); items appear in the order their {@code add} calls took the lock.
 *
 * @param <T> the items, best immutable (a snapshot shares them)
 */
public final class HistoryRing<T> {
  private final Object[] items;
  private long added;

  /**
   * @param capacity how many items are kept, at least 1
   */
  public HistoryRing(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("history capacity must be >= 1, got " + capacity);
    }
    this.items = new Object[capacity];
  }

  /** Adds an item, dropping the oldest one when full. */
  public void add(T item) {
    Objects.requireNonNull(item, "item");
    synchronized (items) {
      items[(int) (added % items.length)] = item;
      added++;
    }
  }

  /** The items held, oldest first; a copy. */
  @SuppressWarnings("unchecked")
  public List<T> snapshot() {
    synchronized (items) {
      int size = (int) Math.min(added, items.length);
      List<T> out = new ArrayList<>(size);
      for (long i = added - size; i < added; i++) {
        out.add((T) items[(int) (i % items.length)]);
      }
      return out;
    }
  }

  /** How many items are held (at most the capacity). */
  public int size() {
    synchronized (items) {
      return (int) Math.min(added, items.length);
    }
  }

  /** How many items ever were added. */
  public long added() {
    synchronized (items) {
      return added;
    }
  }

  /** The most items held. */
  public int capacity() {
    return items.length;
  }
}
