package dev.mosaic.indexer;

import dev.mosaic.api.OfferPartitioning;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * How offers are keyed and routed on the offers topic. This is the contract between everything that
 * writes the topic ({@link FeedLoader}) and the {@link IndexerNode}s that read it.
 *
 * <ul>
 *   <li><b>Index partition</b> of an offer: {@code xxHash64(UTF-8 bytes of the dedup key, seed 0)}
 *       taken unsigned modulo P ({@link #indexPartition}), so possible duplicates (same dedup key)
 *       share a partition, on every machine and JVM. P defaults to {@value #DEFAULT_PARTITIONS}.
 *   <li><b>Record key</b>: {@code "<index partition>|<partner id>|<xxHash64 of the offer id, 16 hex
 *       digits>"} ({@link #recordKey}). One key per offer, so log compaction keeps its latest
 *       version and a tombstone (null value) deletes it. The key starts with the index partition,
 *       so a tombstone can be routed without the offer. Partner ids must not contain {@code '|'}.
 *   <li><b>Kafka partition</b> of a record: index partition modulo the topic's partition count K
 *       ({@link #kafkaPartition}), set explicitly on every record (no custom partitioner needed).
 *       All offers of one index partition therefore share one Kafka partition, and an indexer that
 *       owns Kafka partition k owns exactly the index partitions {@code p ≡ k (mod K)}. Choose K ≤
 *       P.
 * </ul>
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class OfferKeys {
  /** The default number of index partitions. */
  public static final int DEFAULT_PARTITIONS = 1024;

  private static final HexFormat HEX = HexFormat.of();
  private static final XXHash64 XXHASH = XXHashFactory.safeInstance().hash64();

  private OfferKeys() {}

  /**
   * The index partition of a dedup key, in {@code [0, partitions)}.
   *
   * @throws IllegalArgumentException if the key is empty or {@code partitions < 1}
   */
  public static int indexPartition(String dedupKey, int partitions) {
    Objects.requireNonNull(dedupKey, "dedupKey");
    if (dedupKey.isEmpty()) {
      throw new IllegalArgumentException("dedup key must not be empty");
    }
    return OfferPartitioning.partitionOf(dedupKey, partitions);
  }

  /**
   * The index partition of a dedup key given as UTF-8 bytes (a range of {@code bytes}): the same
   * value as {@link #indexPartition(String, int)} for the decoded key.
   *
   * @throws IllegalArgumentException if the key is empty or {@code partitions < 1}
   */
  public static int indexPartition(byte[] bytes, int offset, int length, int partitions) {
    if (length == 0) {
      throw new IllegalArgumentException("dedup key must not be empty");
    }
    return indexPartitionOfHash(XXHASH.hash(bytes, offset, length, 0L), partitions);
  }

  /**
   * The index partition of a non-empty dedup key from its {@link #hash(byte[], int, int)}: the same
   * value as {@link #indexPartition(byte[], int, int, int)} for its bytes.
   *
   * @throws IllegalArgumentException if {@code partitions < 1}
   */
  static int indexPartitionOfHash(long dedupKeyHash, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
    }
    return (int) Long.remainderUnsigned(dedupKeyHash, partitions);
  }

  /**
   * The Kafka partition carrying an index partition: {@code indexPartition mod kafkaPartitions}.
   */
  public static int kafkaPartition(int indexPartition, int kafkaPartitions) {
    if (kafkaPartitions < 1) {
      throw new IllegalArgumentException("kafka partitions must be >= 1, got " + kafkaPartitions);
    }
    return indexPartition % kafkaPartitions;
  }

  /** xxHash64 (seed 0) of a string's UTF-8 bytes: the offer id hash used in record keys. */
  public static long hash(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return XXHASH.hash(b, 0, b.length, 0L);
  }

  /** xxHash64 (seed 0) of a byte range. */
  public static long hash(byte[] bytes, int offset, int length) {
    return XXHASH.hash(bytes, offset, length, 0L);
  }

  /**
   * The record key of an offer.
   *
   * @throws IllegalArgumentException if the partner id is empty or contains {@code '|'}
   */
  public static byte[] recordKey(int indexPartition, String partnerId, String offerId) {
    return recordKey(indexPartition, partnerId, hash(offerId));
  }

  /** The record key of an offer, from the offer id's {@link #hash}. */
  public static byte[] recordKey(int indexPartition, String partnerId, long offerIdHash) {
    checkPartnerId(partnerId);
    if (indexPartition < 0) {
      throw new IllegalArgumentException("index partition must be >= 0, got " + indexPartition);
    }
    return (indexPartition + "|" + partnerId + "|" + HEX.toHexDigits(offerIdHash))
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The index partition a record key starts with.
   *
   * @throws IllegalArgumentException naming the problem when the key does not start with a decimal
   *     partition followed by {@code '|'}
   */
  public static int partitionOfKey(byte[] key) {
    if (key == null || key.length == 0) {
      throw new IllegalArgumentException("record has no key");
    }
    long p = 0;
    int i = 0;
    while (i < key.length && key[i] != '|') {
      byte c = key[i];
      if (c < '0' || c > '9' || i >= 9) {
        throw new IllegalArgumentException(
            "record key does not start with '<index partition>|': "
                + new String(key, 0, Math.min(key.length, 64), StandardCharsets.UTF_8));
      }
      p = p * 10 + (c - '0');
      i++;
    }
    if (i == 0 || i == key.length) {
      throw new IllegalArgumentException(
          "record key does not start with '<index partition>|': "
              + new String(key, 0, Math.min(key.length, 64), StandardCharsets.UTF_8));
    }
    return (int) p;
  }

  /**
   * Checks a partner id for use in record keys.
   *
   * @throws IllegalArgumentException if empty or containing {@code '|'}
   */
  public static void checkPartnerId(String partnerId) {
    Objects.requireNonNull(partnerId, "partnerId");
    if (partnerId.isEmpty()) {
      throw new IllegalArgumentException("partner id must not be empty");
    }
    if (partnerId.indexOf('|') >= 0) {
      throw new IllegalArgumentException("partner id must not contain '|': " + partnerId);
    }
  }
}
