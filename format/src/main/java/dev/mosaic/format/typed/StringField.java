package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a STRING field: values are {@link String}. Immutable. */
public final class StringField extends TypedField<String> {
  private StringField(Schema schema, String name) {
    super(schema, name, FieldType.STRING, String.class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not STRING
   */
  public static StringField of(Schema schema, String name) {
    return new StringField(schema, name);
  }
}
