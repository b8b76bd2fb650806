package dev.mosaic.indexer;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The end-of-batch marker the feed loader writes to each Kafka partition of the offers topic that a
 * batch wrote to, once every record of the batch was handed to the producer (so, per partition, it
 * comes after all of them): key {@code batch-end|<batch id>}, value null (a tombstone, so
 * compaction drops it after {@code delete.retention.ms} and readers that treat null as a removal
 * ignore it), and headers {@value #BATCH_HEADER} (the batch id, 16 hex digits), {@value
 * #UPSERTS_HEADER} and {@value #TOMBSTONES_HEADER} (decimal counts of the batch's records in this
 * Kafka partition). Every record of the batch carries the {@value #BATCH_HEADER} header too.
 *
 * @param batchId the loader's batch id
 * @param upserts the batch's upserts in this Kafka partition
 * @param tombstones the batch's tombstones in this Kafka partition
 */
record BatchEnd(long batchId, long upserts, long tombstones) {
  /** Header naming the batch of an offer record or a marker. */
  static final String BATCH_HEADER = "mosaic.batch";

  /** Header of a marker: the batch's upserts in its Kafka partition. */
  static final String UPSERTS_HEADER = "mosaic.batch.upserts";

  /** Header of a marker: the batch's tombstones in its Kafka partition. */
  static final String TOMBSTONES_HEADER = "mosaic.batch.tombstones";

  /** Key prefix of a marker; offer keys start with a digit, so the two never collide. */
  static final String KEY_PREFIX = "batch-end|";

  private static final byte[] PREFIX = KEY_PREFIX.getBytes(StandardCharsets.US_ASCII);
  private static final HexFormat HEX = HexFormat.of();

  /** Not a batch: the value {@link #batchOf} returns for a record without the batch header. */
  static final long NONE = 0;

  BatchEnd {
    if (batchId == NONE) {
      throw new IllegalArgumentException("batch id 0 is reserved for records outside a batch");
    }
    if (upserts < 0 || tombstones < 0) {
      throw new IllegalArgumentException(
          "negative counts in batch end: " + upserts + " upserts, " + tombstones + " tombstones");
    }
  }

  /** Records of the batch in its Kafka partition. */
  long records() {
    return upserts + tombstones;
  }

  /** The header value naming a batch. */
  static byte[] batchHeaderValue(long batchId) {
    return HEX.toHexDigits(batchId).getBytes(StandardCharsets.US_ASCII);
  }

  /** The marker record for Kafka partition {@code kafkaPartition} of {@code topic}. */
  ProducerRecord<byte[], byte[]> toRecord(String topic, int kafkaPartition) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(BATCH_HEADER, batchHeaderValue(batchId));
    headers.add(UPSERTS_HEADER, Long.toString(upserts).getBytes(StandardCharsets.US_ASCII));
    headers.add(TOMBSTONES_HEADER, Long.toString(tombstones).getBytes(StandardCharsets.US_ASCII));
    byte[] key = (KEY_PREFIX + HEX.toHexDigits(batchId)).getBytes(StandardCharsets.US_ASCII);
    return new ProducerRecord<>(topic, kafkaPartition, key, null, headers);
  }

  /** Whether a record key is a marker's (starts with {@value #KEY_PREFIX}). */
  static boolean isMarker(byte[] key) {
    if (key == null || key.length < PREFIX.length) {
      return false;
    }
    for (int i = 0; i < PREFIX.length; i++) {
      if (key[i] != PREFIX[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a marker's headers.
   *
   * @throws IllegalArgumentException naming the header that is missing or malformed
   */
  static BatchEnd of(Headers headers) {
    long batch = batchOf(headers);
    if (batch == NONE) {
      throw new IllegalArgumentException("batch end marker without a " + BATCH_HEADER + " header");
    }
    return new BatchEnd(batch, count(headers, UPSERTS_HEADER), count(headers, TOMBSTONES_HEADER));
  }

  /**
   * The batch a record belongs to, or {@link #NONE} when it has no {@value #BATCH_HEADER} header.
   *
   * @throws IllegalArgumentException if the header is not 16 hex digits or names batch 0
   */
  static long batchOf(Headers headers) {
    Header h = headers.lastHeader(BATCH_HEADER);
    if (h == null) {
      return NONE;
    }
    byte[] v = h.value();
    if (v == null || v.length != 16) {
      throw new IllegalArgumentException(
          "header " + BATCH_HEADER + " must be 16 hex digits, got " + describe(v));
    }
    long id;
    try {
      id = HexFormat.fromHexDigitsToLong(new String(v, StandardCharsets.US_ASCII));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "header " + BATCH_HEADER + " must be 16 hex digits, got " + describe(v), e);
    }
    if (id == NONE) {
      throw new IllegalArgumentException("header " + BATCH_HEADER + " names batch 0 (reserved)");
    }
    return id;
  }

  private static long count(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    if (h == null || h.value() == null) {
      throw new IllegalArgumentException("batch end marker without a " + name + " header");
    }
    try {
      long n = Long.parseLong(new String(h.value(), StandardCharsets.US_ASCII));
      if (n < 0) {
        throw new NumberFormatException("negative");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "header " + name + " must be a non-negative decimal count, got " + describe(h.value()),
          e);
    }
  }

  private static String describe(byte[] v) {
    return v == null ? "no value" : "'" + new String(v, StandardCharsets.UTF_8) + "'";
  }
}
