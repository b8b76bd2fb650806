package dev.mosaic.format;

/**
 * The value type of a schema field. Every type has an order-preserving conversion to comparable
 * bytes: for two values {@code a < b} of one type, {@code encode(a)} is less than {@code encode(b)}
 * in unsigned lexicographic byte order. Signed integers flip the sign bit; doubles flip the sign
 * bit of positives and all bits of negatives (so -0.0 sorts before 0.0 and NaN sorts last); strings
 * are UTF-8; booleans are one byte; timestamps are epoch milliseconds as a long.
 *
 * <p>Java value classes accepted by {@code encode}: INT {@link Integer}; LONG {@link Long} (or
 * Integer); DOUBLE {@link Double} (or Float, Integer, Long); BOOLEAN {@link Boolean}; STRING {@link
 * String}; TIMESTAMP {@link java.time.Instant} or {@link Long} epoch millis; BYTES {@code byte[]}.
 * Anything else is rejected with an {@link IllegalArgumentException} naming the type.
 *
 * <p>Thread safety: immutable.
 */
public enum FieldType {
  INT,
  LONG,
  DOUBLE,
  BOOLEAN,
  STRING,
  TIMESTAMP,
  BYTES;

  /** Converts a Java value of this type to its comparable bytes. */
  public byte[] encode(Object value) {
    return ComparableBytes.encode(this, value);
  }

  /**
   * Converts comparable bytes back to the Java value ({@code Integer}, {@code Long}, {@code
   * Double}, {@code Boolean}, {@code String}, {@code Instant}, {@code byte[]}).
   */
  public Object decode(byte[] bytes) {
    return ComparableBytes.decode(this, bytes);
  }
}
