package dev.mosaic.searcher;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * {@link PartitionStore#latestVersions} as an unmodifiable map over a copy of the store's array
 * (partition → newest version, -1 for none): a lookup is an array read, and deriving it copies one
 * array.
 *
 * <p>Thread safety: immutable (it owns its copy of the array).
 */
final class LatestVersions extends AbstractMap<Integer, Long> {
  private final long[] versions;
  private final int size;

  LatestVersions(long[] versions) {
    this.versions = versions;
    int n = 0;
    for (long v : versions) {
      n += v >= 0 ? 1 : 0;
    }
    this.size = n;
  }

  @Override
  public Long get(Object key) {
    return key instanceof Integer p && p >= 0 && p < versions.length && versions[p] >= 0
        ? versions[p]
        : null;
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Set<Map.Entry<Integer, Long>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return size;
      }

      @Override
      public Iterator<Map.Entry<Integer, Long>> iterator() {
        return new Iterator<>() {
          private int next = advance(0);

          private int advance(int from) {
            while (from < versions.length && versions[from] < 0) {
              from++;
            }
            return from;
          }

          @Override
          public boolean hasNext() {
            return next < versions.length;
          }

          @Override
          public Map.Entry<Integer, Long> next() {
            if (next >= versions.length) {
              throw new NoSuchElementException();
            }
            Map.Entry<Integer, Long> e = Map.entry(next, versions[next]);
            next = advance(next + 1);
            return e;
          }
        };
      }
    };
  }
}
