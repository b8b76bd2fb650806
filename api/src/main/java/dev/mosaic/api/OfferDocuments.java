package dev.mosaic.api;

import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.util.Objects;
import java.util.Optional;

/**
 * Maps feed {@link Offer}s to partition {@link Document}s of a given {@link Schema}, and typed Java
 * values to {@link FieldValue}s.
 *
 * <p>Each {@link FieldValue} of the offer is one value of the schema field of that name; a field
 * may repeat in the offer only when it is FILTERABLE (multi-valued). Each schema type takes exactly
 * one {@link FieldValue} kind, nothing is coerced:
 *
 * <table>
 *   <caption>Value kinds</caption>
 *   <tr><th>schema type</th><th>FieldValue kind</th></tr>
 *   <tr><td>INT</td><td>int_value</td></tr>
 *   <tr><td>LONG</td><td>long_value</td></tr>
 *   <tr><td>DOUBLE</td><td>double_value</td></tr>
 *   <tr><td>BOOLEAN</td><td>bool_value</td></tr>
 *   <tr><td>STRING</td><td>string_value</td></tr>
 *   <tr><td>TIMESTAMP</td><td>timestamp_millis</td></tr>
 *   <tr><td>BYTES</td><td>bytes_value</td></tr>
 * </table>
 *
 * <p>The document's payload is the offer's payload message serialized (for car offers, the {@link
 * dev.mosaic.api.feed.CarOffer}; see {@link OfferPayload}); when the schema names a payload type,
 * the offer must carry a payload of exactly that type.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class OfferDocuments {
  private OfferDocuments() {}

  /**
   * The document for an offer.
   *
   * @throws IllegalArgumentException when the offer does not fit the schema: an unknown field, a
   *     value of the wrong kind or with no value set, a second value of a SORTABLE or FULL field, a
   *     missing SORTABLE or FULL value, or a missing or mistyped payload. The message starts with
   *     the offer's partner and id and names the field, so it can go to a dead-letter record as is.
   */
  public static Document toDocument(Schema schema, Offer offer) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(offer, "offer");
    Document.Builder document = Document.builder(schema);
    for (FieldValue value : offer.getFieldsList()) {
      if (!schema.hasField(value.getName())) {
        throw new IllegalArgumentException(
            describe(offer)
                + ": unknown field '"
                + value.getName()
                + "'; schema version "
                + schema.version()
                + " has "
                + fieldNames(schema));
      }
      Field field = schema.field(value.getName());
      Object javaValue;
      try {
        javaValue = javaValue(field, value);
        document.add(field.name(), javaValue);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(describe(offer) + ": " + e.getMessage(), e);
      }
    }
    document.payload(payload(schema, offer));
    try {
      return document.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(describe(offer) + ": " + e.getMessage(), e);
    }
  }

  /**
   * The Java value of a {@link FieldValue} for a field, as {@link FieldType#encode} takes it.
   *
   * @throws IllegalArgumentException naming the field when the value's kind is not the one the
   *     field's type takes, or no value is set
   */
  public static Object javaValue(Field field, FieldValue value) {
    FieldValue.ValueCase expected = kindOf(field.type());
    FieldValue.ValueCase actual = value.getValueCase();
    if (actual != expected) {
      throw new IllegalArgumentException(
          "field '"
              + field.name()
              + "' is "
              + field.type()
              + " and takes "
              + kindName(expected)
              + ", got "
              + (actual == FieldValue.ValueCase.VALUE_NOT_SET ? "no value" : kindName(actual)));
    }
    return switch (field.type()) {
      case INT -> value.getIntValue();
      case LONG -> value.getLongValue();
      case DOUBLE -> value.getDoubleValue();
      case BOOLEAN -> value.getBoolValue();
      case STRING -> value.getStringValue();
      case TIMESTAMP -> value.getTimestampMillis();
      case BYTES -> value.getBytesValue().toByteArray();
    };
  }

  /**
   * A {@link FieldValue} of the kind the type takes.
   *
   * @param value {@code Integer} for INT, {@code Long} for LONG, {@code Double} for DOUBLE, {@code
   *     Boolean}, {@code String}, {@code Long} epoch millis or {@link java.time.Instant} for
   *     TIMESTAMP, {@code byte[]} for BYTES
   * @throws IllegalArgumentException naming the field when the Java value does not fit the type
   */
  public static FieldValue fieldValue(String name, FieldType type, Object value) {
    Objects.requireNonNull(name, "name");
    FieldValue.Builder b = FieldValue.newBuilder().setName(name);
    switch (type) {
      case INT -> b.setIntValue(cast(name, type, value, Integer.class));
      case LONG -> b.setLongValue(cast(name, type, value, Long.class));
      case DOUBLE -> b.setDoubleValue(cast(name, type, value, Double.class));
      case BOOLEAN -> b.setBoolValue(cast(name, type, value, Boolean.class));
      case STRING -> b.setStringValue(cast(name, type, value, String.class));
      case TIMESTAMP ->
          b.setTimestampMillis(
              value instanceof java.time.Instant t
                  ? t.toEpochMilli()
                  : cast(name, type, value, Long.class));
      case BYTES ->
          b.setBytesValue(
              com.google.protobuf.ByteString.copyFrom(cast(name, type, value, byte[].class)));
    }
    return b.build();
  }

  /** The {@link FieldValue} kind a schema type takes. */
  public static FieldValue.ValueCase kindOf(FieldType type) {
    return switch (type) {
      case INT -> FieldValue.ValueCase.INT_VALUE;
      case LONG -> FieldValue.ValueCase.LONG_VALUE;
      case DOUBLE -> FieldValue.ValueCase.DOUBLE_VALUE;
      case BOOLEAN -> FieldValue.ValueCase.BOOL_VALUE;
      case STRING -> FieldValue.ValueCase.STRING_VALUE;
      case TIMESTAMP -> FieldValue.ValueCase.TIMESTAMP_MILLIS;
      case BYTES -> FieldValue.ValueCase.BYTES_VALUE;
    };
  }

  private static byte[] payload(Schema schema, Offer offer) {
    return checkedPayload(schema, offer).map(p -> p.bytes().toByteArray()).orElse(new byte[0]);
  }

  /**
   * The offer's payload checked against the schema: when the schema names a payload type, the offer
   * must carry one of exactly that type; else any payload, or none, is fine.
   *
   * @return the payload, empty when the offer has none (only when the schema names no type)
   * @throws IllegalArgumentException starting with the offer's partner and id, naming the types
   */
  public static Optional<OfferPayload> checkedPayload(Schema schema, Offer offer) {
    Optional<OfferPayload> payload = OfferPayload.of(offer);
    String expected = schema.payloadType();
    if (payload.isEmpty() && !expected.isEmpty()) {
      throw new IllegalArgumentException(
          describe(offer) + ": no payload; schema expects a " + expected);
    }
    if (payload.isPresent() && !expected.isEmpty() && !expected.equals(payload.get().typeName())) {
      throw new IllegalArgumentException(
          describe(offer)
              + ": payload is a "
              + payload.get().typeName()
              + " but schema expects a "
              + expected);
    }
    return payload;
  }

  private static <T> T cast(String name, FieldType type, Object value, Class<T> javaClass) {
    if (!javaClass.isInstance(value)) {
      throw new IllegalArgumentException(
          "field '"
              + name
              + "' is "
              + type
              + " and takes a "
              + javaClass.getSimpleName()
              + ", got "
              + (value == null ? "null" : value.getClass().getSimpleName() + " (" + value + ")"));
    }
    return javaClass.cast(value);
  }

  private static String kindName(FieldValue.ValueCase kind) {
    return FieldValue.getDescriptor().findFieldByNumber(kind.getNumber()).getName();
  }

  private static String fieldNames(Schema schema) {
    return schema.fields().stream().map(Field::name).toList().toString();
  }

  /** How error messages name an offer: {@code offer '<partner>/<offer id>'}. */
  public static String describe(Offer offer) {
    return "offer '" + offer.getPartnerId() + "/" + offer.getOfferId() + "'";
  }
}
