package dev.mosaic.api.schema.impl;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.OfferPayload;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.FieldSource;
import dev.mosaic.api.schema.IndexSchema;
import dev.mosaic.api.schema.OfferDocumentMapper;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;

/**
 * An {@link OfferDocumentMapper} reading every indexed value from the offer's payload, parsed as a
 * {@link DynamicMessage} of the schema's payload type, along each field's {@link FieldSource} path.
 * The offer's own {@code fields} list is not read.
 *
 * <p>Presence. A multi-valued field takes every element of its repeated field. A single-valued
 * FILTERABLE field takes the value only when the payload has it: for proto3 fields without explicit
 * presence that means a non-default value (an empty string, a zero are absent; declare the field
 * {@code optional} to index zeros), and a path through an unset message gives no value. SORTABLE
 * and FULL fields take exactly one value, the default when unset (as Protobuf reads it).
 *
 * <p>The document's payload is the offer's payload bytes as they came, so it equals what {@link
 * OfferDocuments} stores.
 *
 * <p>Thread safety: immutable, safe from any thread.
 */
public final class DynamicOfferDocumentMapper implements OfferDocumentMapper {
  private final IndexSchema index;
  private final Schema schema;

  /** A mapper to documents of that index's schema. */
  public DynamicOfferDocumentMapper(IndexSchema index) {
    this.index = index;
    this.schema = index.schema();
  }

  @Override
  public Document toDocument(Offer offer) {
    // The schema always names its payload type, so a checked payload is present.
    OfferPayload payload = OfferDocuments.checkedPayload(schema, offer).orElseThrow();
    DynamicMessage message;
    try {
      message = DynamicMessage.parseFrom(index.payloadType(), payload.bytes());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException(
          OfferDocuments.describe(offer)
              + ": payload is not a valid "
              + schema.payloadType()
              + ": "
              + e.getMessage(),
          e);
    }
    return toDocument(offer, payload, message);
  }

  /**
   * The document of {@code offer}, whose checked payload is {@code payload}, already parsed as
   * {@code message}: for a caller that parsed it anyway ({@link DescriptorPayloadCheck}), so the
   * payload is neither serialized nor parsed again.
   */
  Document toDocument(Offer offer, OfferPayload payload, DynamicMessage message) {
    Document.Builder document = Document.builder(schema);
    try {
      PayloadFields.forEach(index.sources(), message, (f, v) -> document.add(f.name(), v));
      document.payload(payload.bytes().toByteArray());
      return document.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(OfferDocuments.describe(offer) + ": " + e.getMessage(), e);
    }
  }
}
