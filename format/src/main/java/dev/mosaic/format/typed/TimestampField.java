package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a TIMESTAMP field: values are {@link java.time.Instant}. Immutable. */
public final class TimestampField extends TypedField<java.time.Instant> {
  private TimestampField(Schema schema, String name) {
    super(schema, name, FieldType.TIMESTAMP, java.time.Instant.class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not TIMESTAMP
   */
  public static TimestampField of(Schema schema, String name) {
    return new TimestampField(schema, name);
  }
}
