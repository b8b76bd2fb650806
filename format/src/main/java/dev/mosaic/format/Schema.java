package dev.mosaic.format;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The typed schema of a database: a schema version, an optional payload type name (for example the
 * full name of the Protobuf message every payload holds, so readers can decode it), and fields in
 * declaration order. Files store their schema, so they are self-describing.
 *
 * <p>Thread safety: immutable.
 */
public final class Schema {
  private final int version;
  private final String payloadType;
  private final List<Field> fields;
  private final Map<String, Field> byName;
  private final Map<String, Integer> indexByName;

  private Schema(int version, String payloadType, List<Field> fields) {
    this.version = version;
    this.payloadType = payloadType;
    this.fields = List.copyOf(fields);
    Map<String, Field> map = new LinkedHashMap<>();
    Map<String, Integer> indexes = new java.util.HashMap<>();
    for (Field f : fields) {
      if (map.put(f.name(), f) != null) {
        throw new IllegalArgumentException("field '" + f.name() + "' is declared twice");
      }
      indexes.put(f.name(), indexes.size());
    }
    this.byName = Collections.unmodifiableMap(map);
    this.indexByName = indexes;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The schema version (non-negative), written to every file's header. */
  public int version() {
    return version;
  }

  /** The payload type name, or the empty string when payloads are opaque bytes. */
  public String payloadType() {
    return payloadType;
  }

  /** Fields in declaration order. */
  public List<Field> fields() {
    return fields;
  }

  /**
   * The field of that name.
   *
   * @throws IllegalArgumentException naming the field and listing the known ones, if absent
   */
  public Field field(String name) {
    Field f = byName.get(name);
    if (f == null) {
      throw new IllegalArgumentException(
          "unknown field '" + name + "'; the schema has " + byName.keySet());
    }
    return f;
  }

  /** The index of the field of that name in {@link #fields()}, or -1 when there is none. */
  public int fieldIndex(String name) {
    Integer index = indexByName.get(name);
    return index == null ? -1 : index;
  }

  /**
   * The typed handle of an INT field.
   *
   * @throws IllegalArgumentException when there is no such field or it has another type
   */
  public dev.mosaic.format.typed.IntField intField(String name) {
    return dev.mosaic.format.typed.IntField.of(this, name);
  }

  /** The typed handle of a LONG field; throws as {@link #intField}. */
  public dev.mosaic.format.typed.LongField longField(String name) {
    return dev.mosaic.format.typed.LongField.of(this, name);
  }

  /** The typed handle of a DOUBLE field; throws as {@link #intField}. */
  public dev.mosaic.format.typed.DoubleField doubleField(String name) {
    return dev.mosaic.format.typed.DoubleField.of(this, name);
  }

  /** The typed handle of a BOOLEAN field; throws as {@link #intField}. */
  public dev.mosaic.format.typed.BooleanField booleanField(String name) {
    return dev.mosaic.format.typed.BooleanField.of(this, name);
  }

  /** The typed handle of a STRING field; throws as {@link #intField}. */
  public dev.mosaic.format.typed.StringField stringField(String name) {
    return dev.mosaic.format.typed.StringField.of(this, name);
  }

  /** The typed handle of a TIMESTAMP field; throws as {@link #intField}. */
  public dev.mosaic.format.typed.TimestampField timestampField(String name) {
    return dev.mosaic.format.typed.TimestampField.of(this, name);
  }

  /** The typed handle of a BYTES field; throws as {@link #intField}. */
  public dev.mosaic.format.typed.BytesField bytesField(String name) {
    return dev.mosaic.format.typed.BytesField.of(this, name);
  }

  /** True when a field of that name exists. */
  public boolean hasField(String name) {
    return byName.containsKey(name);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schema s
        && s.version == version
        && s.payloadType.equals(payloadType)
        && s.fields.equals(fields);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, payloadType, fields);
  }

  @Override
  public String toString() {
    return "Schema{version="
        + version
        + ", payloadType="
        + payloadType
        + ", fields="
        + fields
        + "}";
  }

  /** Builds a {@link Schema}. Not thread safe. */
  public static final class Builder {
    private int version;
    private String payloadType = "";
    private final List<Field> fields = new ArrayList<>();

    private Builder() {}

    /** Sets the schema version (default 0). */
    public Builder version(int version) {
      if (version < 0) {
        throw new IllegalArgumentException("schema version must be >= 0, got " + version);
      }
      this.version = version;
      return this;
    }

    /** Sets the payload type name (default empty: opaque bytes). */
    public Builder payloadType(String payloadType) {
      this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
      return this;
    }

    /** Adds a field. */
    public Builder field(String name, FieldType type, FieldRole role) {
      fields.add(new Field(name, type, role));
      return this;
    }

    /** The schema; fails if a field name repeats. */
    public Schema build() {
      return new Schema(version, payloadType, fields);
    }
  }
}
