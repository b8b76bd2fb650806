package dev.mosaic.api.schema;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.schema.impl.DynamicOfferDocumentMapper;
import dev.mosaic.api.schema.impl.JsonPayloadRenderer;
import dev.mosaic.api.schema.impl.PayloadFields;
import dev.mosaic.format.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The schema of one index as a schema file declares it: the index name, the partition {@link
 * Schema} (version, payload type, fields), the payload message type resolved in a descriptor set,
 * and for every field the path its values come from in the payload. Read by {@link
 * SchemaFileLoader}.
 *
 * <p>Thread safety: immutable; the mapper and renderer it gives are safe from any thread.
 *
 * @param name the index name, e.g. {@code cars}
 * @param schema the partition schema; its payload type is {@code payloadType}'s full name
 * @param payloadType the payload message type
 * @param sources one per schema field, in schema order
 * @param types the descriptor set the payload type was resolved in
 */
public record IndexSchema(
    String name,
    Schema schema,
    Descriptor payloadType,
    List<FieldSource> sources,
    ProtoTypes types) {
  public IndexSchema {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(payloadType, "payloadType");
    Objects.requireNonNull(types, "types");
    sources = List.copyOf(sources);
    if (!schema.payloadType().equals(payloadType.getFullName())) {
      throw new IllegalArgumentException(
          "schema payload type "
              + schema.payloadType()
              + " is not the payload message "
              + payloadType.getFullName());
    }
    if (!sources.stream().map(FieldSource::field).toList().equals(schema.fields())) {
      throw new IllegalArgumentException("field sources do not match the schema's fields");
    }
  }

  /** Maps feed offers to documents of this schema, reading indexed values from the payload. */
  public OfferDocumentMapper documentMapper() {
    return new DynamicOfferDocumentMapper(this);
  }

  /**
   * The indexed values of a payload message as feed {@link FieldValue}s, one per value, in schema
   * order: what an {@link dev.mosaic.api.feed.Offer}'s {@code fields} hold for this payload, so
   * that {@link dev.mosaic.api.OfferDocuments} maps the offer to the same document as {@link
   * #documentMapper()}.
   *
   * @throws IllegalArgumentException if the message is not of the payload type
   */
  public List<FieldValue> fieldValues(Message payload) {
    if (!payload.getDescriptorForType().getFullName().equals(payloadType.getFullName())) {
      throw new IllegalArgumentException(
          "payload is a "
              + payload.getDescriptorForType().getFullName()
              + " but schema expects a "
              + payloadType.getFullName());
    }
    Message message = payload;
    if (payload.getDescriptorForType() != payloadType) {
      // A generated message: read it through the schema's own descriptors.
      try {
        message = DynamicMessage.parseFrom(payloadType, payload.toByteString());
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("a serialized message did not parse back: " + e, e);
      }
    }
    List<FieldValue> values = new ArrayList<>();
    PayloadFields.forEach(
        sources, message, (f, v) -> values.add(OfferDocuments.fieldValue(f.name(), f.type(), v)));
    return values;
  }

  /** Renders payloads of this schema's payload type as JSON. */
  public PayloadRenderer payloadRenderer() {
    return new JsonPayloadRenderer(payloadType, types.typeRegistry());
  }
}
