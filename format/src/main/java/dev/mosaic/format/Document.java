package dev.mosaic.format;

import dev.mosaic.format.impl.DocumentColumns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One document to add to a {@link DatabaseBuilder}: field values already checked against the schema
 * and converted to comparable bytes, and an optional payload.
 *
 * <p>Thread safety: immutable once built.
 */
public final class Document {
  private static final byte[] EMPTY = new byte[0];

  private final Schema schema;

  /** Every value, field by field: field {@code f}'s at {@code [start[f], start[f + 1])}. */
  private final byte[][] values;

  private final int[] start;
  private final byte[] payload;

  private Document(Schema schema, byte[][] values, int[] start, byte[] payload) {
    this.schema = schema;
    this.values = values;
    this.start = start;
    this.payload = payload;
  }

  /** A builder of documents of that schema. */
  public static Builder builder(Schema schema) {
    return new Builder(schema);
  }

  /** The schema the document was checked against. */
  public Schema schema() {
    return schema;
  }

  /**
   * The comparable-byte values of a field in the order they were added; empty when the document has
   * none. NOTE: the arrays are shared, do not modify them.
   */
  public List<byte[]> values(String field) {
    int index = schema.fieldIndex(field);
    return index < 0 ? List.of() : values(index);
  }

  /**
   * The comparable-byte values of the field at index {@code field} of {@link Schema#fields()}, as
   * {@link #values(String)} gives them (without a look-up by name).
   *
   * @throws IndexOutOfBoundsException when the schema has no such field index
   */
  public List<byte[]> values(int field) {
    Objects.checkIndex(field, start.length - 1);
    return Collections.unmodifiableList(
        Arrays.asList(values).subList(start[field], start[field + 1]));
  }

  /**
   * How many values the field at index {@code field} has: with {@link #value(int, int)}, what
   * builders walk a document's values with, without a list per field.
   *
   * @throws IndexOutOfBoundsException when the schema has no such field index
   */
  public int valueCount(int field) {
    return start[field + 1] - start[field];
  }

  /**
   * The {@code i}-th value of the field at index {@code field}, as {@code values(field).get(i)}.
   * NOTE: shared, do not modify.
   *
   * @throws IndexOutOfBoundsException when there is no such field index or value
   */
  public byte[] value(int field, int i) {
    Objects.checkIndex(i, valueCount(field));
    return values[start[field] + i];
  }

  /** The payload (empty array when none). NOTE: shared, do not modify. */
  public byte[] payload() {
    return payload;
  }

  /**
   * Builds one {@link Document}, checking every value against the schema as it is set. Not thread
   * safe. Values are held per field index (the first one apart, as most fields have one value), so
   * building a document allocates little besides the values themselves. A bulk load may reuse one
   * builder: {@link DatabaseUpdate#add(Builder)} takes its values without a document, and {@link
   * #clear()} empties it for the next one.
   */
  public static final class Builder {
    private final Schema schema;
    private final List<Field> fields;

    /** Per field index: its first value, or null when it has none. */
    private final byte[][] first;

    /** Per field index: all its values when it has more than one, else null. */
    private final List<byte[]>[] more;

    private byte[] payload = EMPTY;

    /** Values added so far, over every field. */
    private int addedValues;

    @SuppressWarnings("unchecked")
    private Builder(Schema schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      this.fields = schema.fields();
      this.first = new byte[fields.size()][];
      this.more = new List[fields.size()];
    }

    /**
     * Adds a value to a field. FILTERABLE fields take any number of values; SORTABLE and FULL
     * fields take exactly one.
     *
     * @throws IllegalArgumentException for an unknown field, a value of the wrong type, or a second
     *     value of a SORTABLE or FULL field; the message names the field
     */
    public Builder add(String field, Object value) {
      int index = schema.fieldIndex(field);
      if (index < 0) {
        schema.field(field); // unknown: throws, naming it
      }
      return add(index, value);
    }

    /**
     * Adds a value to the field at index {@code field} of {@link Schema#fields()}, as {@link
     * #add(String, Object)} does (without a look-up by name: for mappers that resolved the field).
     *
     * @throws IndexOutOfBoundsException when the schema has no such field index
     * @throws IllegalArgumentException as {@link #add(String, Object)}
     */
    public Builder add(int field, Object value) {
      int index = Objects.checkIndex(field, fields.size());
      Field f = fields.get(index);
      byte[] bytes;
      try {
        bytes = f.type().encode(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("field '" + f.name() + "': " + e.getMessage(), e);
      }
      return addEncoded(index, f, bytes);
    }

    /**
     * Adds a STRING value given as its UTF-8 bytes {@code utf8[offset, offset + length)} (copied):
     * the document is the one {@link #add(int, Object)} builds with the String they decode to,
     * which a STRING value's comparable form is the UTF-8 of, without decoding and encoding it
     * again (for mappers reading serialized messages). NOTE: the caller vouches that the bytes are
     * well-formed UTF-8 (as a Protobuf parser checks a string field); malformed bytes would be
     * stored as they are and read back with replacement characters.
     *
     * @throws IndexOutOfBoundsException when the schema has no such field index, or the range is
     *     outside {@code utf8}
     * @throws IllegalArgumentException when the field is not a STRING field, or as {@link #add(int,
     *     Object)}
     */
    public Builder addUtf8(int field, byte[] utf8, int offset, int length) {
      int index = Objects.checkIndex(field, fields.size());
      Field f = fields.get(index);
      if (f.type() != FieldType.STRING) {
        throw new IllegalArgumentException(
            "field '"
                + f.name()
                + "': expected a "
                + f.type()
                + " value but got the UTF-8 bytes of a STRING");
      }
      Objects.checkFromIndexSize(offset, length, utf8.length);
      return addEncoded(index, f, Arrays.copyOfRange(utf8, offset, offset + length));
    }

    /**
     * Adds an INT value, as {@link #add(int, Object)} with an {@code Integer} (without boxing: for
     * mappers reading serialized messages).
     *
     * @throws IndexOutOfBoundsException when the schema has no such field index
     * @throws IllegalArgumentException when the field is not an INT field, or as {@link #add(int,
     *     Object)}
     */
    public Builder addInt(int field, int value) {
      Field f = typed(field, "an INT", FieldType.INT, FieldType.INT);
      return addEncoded(field, f, ComparableBytes.ofInt(value));
    }

    /**
     * Adds a LONG value, or a TIMESTAMP's epoch milliseconds, as {@link #add(int, Object)} with a
     * {@code Long} (without boxing).
     *
     * @throws IndexOutOfBoundsException when the schema has no such field index
     * @throws IllegalArgumentException when the field is neither a LONG nor a TIMESTAMP field, or
     *     as {@link #add(int, Object)}
     */
    public Builder addLong(int field, long value) {
      Field f = typed(field, "a LONG", FieldType.LONG, FieldType.TIMESTAMP);
      return addEncoded(field, f, ComparableBytes.ofLong(value));
    }

    /**
     * Adds a DOUBLE value, as {@link #add(int, Object)} with a {@code Double} (without boxing).
     *
     * @throws IndexOutOfBoundsException when the schema has no such field index
     * @throws IllegalArgumentException when the field is not a DOUBLE field, or as {@link #add(int,
     *     Object)}
     */
    public Builder addDouble(int field, double value) {
      Field f = typed(field, "a DOUBLE", FieldType.DOUBLE, FieldType.DOUBLE);
      return addEncoded(field, f, ComparableBytes.ofDouble(value));
    }

    /**
     * Adds a BOOLEAN value, as {@link #add(int, Object)} with a {@code Boolean} (without boxing).
     *
     * @throws IndexOutOfBoundsException when the schema has no such field index
     * @throws IllegalArgumentException when the field is not a BOOLEAN field, or as {@link
     *     #add(int, Object)}
     */
    public Builder addBoolean(int field, boolean value) {
      Field f = typed(field, "a BOOLEAN", FieldType.BOOLEAN, FieldType.BOOLEAN);
      return addEncoded(field, f, ComparableBytes.ofBoolean(value));
    }

    /** The field at that index when its type is one of the two, else the error naming both. */
    private Field typed(int field, String given, FieldType one, FieldType other) {
      Field f = fields.get(Objects.checkIndex(field, fields.size()));
      if (f.type() != one && f.type() != other) {
        throw new IllegalArgumentException(
            "field '" + f.name() + "': expected a " + f.type() + " value but got " + given);
      }
      return f;
    }

    private Builder addEncoded(int index, Field f, byte[] bytes) {
      if (first[index] == null) {
        first[index] = bytes;
        addedValues++;
        return this;
      }
      if (f.role().isSortable()) {
        throw new IllegalArgumentException(
            "field '"
                + f.name()
                + "' is "
                + f.role()
                + " and takes exactly one value per document");
      }
      if (more[index] == null) {
        more[index] = new ArrayList<>(4);
        more[index].add(first[index]);
      }
      more[index].add(bytes);
      addedValues++;
      return this;
    }

    /**
     * Adds a value to a field through its typed handle, so that the value's Java type is checked at
     * compile time ({@code add(year, 2015L)} on an {@code IntField} does not compile); otherwise as
     * {@link #add(String, Object)}.
     *
     * @throws IllegalArgumentException when this document's schema has no field of the handle's
     *     name and type, or as {@link #add(String, Object)}
     */
    public <T> Builder add(dev.mosaic.format.typed.TypedField<T> field, T value) {
      Field f = schema.field(field.name());
      if (!f.equals(field.field())) {
        throw new IllegalArgumentException(
            "field '" + field.name() + "' is " + f + " in this schema, not " + field.field());
      }
      return add(field.name(), value);
    }

    /** Adds every value of {@code values} to a field, as {@link #add} does one by one. */
    public Builder addAll(String field, Iterable<?> values) {
      for (Object v : values) {
        add(field, v);
      }
      return this;
    }

    /** Sets the payload (copied). */
    public Builder payload(byte[] payload) {
      this.payload = Objects.requireNonNull(payload, "payload").clone();
      return this;
    }

    /**
     * Sets the payload to {@code bytes[offset, offset + length)} (copied once): for mappers that
     * find the payload inside a larger serialized message.
     *
     * @throws IndexOutOfBoundsException when the range is outside {@code bytes}
     */
    public Builder payload(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      this.payload = Arrays.copyOfRange(bytes, offset, offset + length);
      return this;
    }

    /**
     * The document.
     *
     * @throws IllegalArgumentException if a SORTABLE or FULL field has no value
     */
    public Document build() {
      checkComplete();
      byte[][] values = new byte[addedValues][];
      int[] start = new int[fields.size() + 1];
      int at = 0;
      for (int i = 0; i < first.length; i++) {
        start[i] = at;
        if (more[i] != null) {
          for (byte[] v : more[i]) {
            values[at++] = v;
          }
        } else if (first[i] != null) {
          values[at++] = first[i];
        }
      }
      start[first.length] = at;
      return new Document(schema, values, start, payload);
    }

    /**
     * Empties the builder for the next document (no values, no payload), keeping what it allocated
     * per field: documents built or added before are not affected.
     */
    public Builder clear() {
      Arrays.fill(first, null);
      Arrays.fill(more, null);
      payload = EMPTY;
      addedValues = 0;
      return this;
    }

    /** The schema the values are checked against. */
    public Schema schema() {
      return schema;
    }

    /** Throws {@link #build()}'s error when a SORTABLE or FULL field has no value. */
    void checkComplete() {
      for (int i = 0; i < first.length; i++) {
        Field f = fields.get(i);
        if (first[i] == null && f.role().isSortable()) {
          throw new IllegalArgumentException(
              "field '" + f.name() + "' is " + f.role() + " and needs a value in every document");
        }
      }
    }

    /**
     * Appends the values and the payload to {@code columns} as one document, as {@link #build()}
     * orders them (by reference: the builder never modifies an array it handed over). The caller
     * checked {@link #checkComplete()}.
     */
    void appendTo(DocumentColumns columns) {
      for (int i = 0; i < first.length; i++) {
        if (more[i] != null) {
          for (byte[] v : more[i]) {
            columns.append(i, v);
          }
        } else if (first[i] != null) {
          columns.append(i, first[i]);
        }
      }
      columns.end(payload);
    }
  }
}
