package dev.mosaic.format;

import dev.mosaic.format.typed.TypedField;

/**
 * One document of a {@link Page}: where it is and, through {@link #value}, its sort values.
 *
 * <p>NOTE: valid while {@code database} is open (see {@link HitProcessor}). Immutable.
 *
 * @param partition the index of the document's partition in the composite ({@code 0} for a single
 *     database)
 * @param document the document id inside {@code database}
 * @param database the partition the document belongs to
 */
public record Hit(int partition, int document, Database database) {
  /**
   * The document's value of a SORTABLE or FULL field, typed by the field's handle.
   *
   * @throws IllegalArgumentException when the handle's field is not a sortable field of this
   *     database's schema with the handle's type
   */
  public <T> T value(TypedField<T> field) {
    return field.value(database, document);
  }
}
