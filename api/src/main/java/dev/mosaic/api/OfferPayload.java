package dev.mosaic.api;

import com.google.protobuf.ByteString;
import dev.mosaic.api.feed.Offer;
import java.util.Objects;
import java.util.Optional;

/**
 * The payload an {@link Offer} carries, whichever way it carries it: a typed {@code car} or {@code
 * realty} message, or a message of any other type packed in {@code other} (a {@code
 * google.protobuf.Any}, whose type URL ends with the message's full name).
 *
 * <p>Thread safety: immutable.
 *
 * @param typeName the full Protobuf name of the payload message, e.g. {@code
 *     mosaic.feed.v1.CarOffer}
 * @param bytes the serialized payload message
 */
public record OfferPayload(String typeName, ByteString bytes) {
  public OfferPayload {
    Objects.requireNonNull(typeName, "typeName");
    Objects.requireNonNull(bytes, "bytes");
  }

  /** The offer's payload, or empty when it carries none. */
  public static Optional<OfferPayload> of(Offer offer) {
    return switch (offer.getPayloadCase()) {
      case CAR ->
          Optional.of(
              new OfferPayload(
                  offer.getCar().getDescriptorForType().getFullName(),
                  offer.getCar().toByteString()));
      case REALTY ->
          Optional.of(
              new OfferPayload(
                  offer.getRealty().getDescriptorForType().getFullName(),
                  offer.getRealty().toByteString()));
      case OTHER ->
          Optional.of(
              new OfferPayload(
                  typeNameOf(offer.getOther().getTypeUrl()), offer.getOther().getValue()));
      case PAYLOAD_NOT_SET -> Optional.empty();
    };
  }

  /** The message name a type URL names: what follows its last {@code '/'}, or all of it. */
  public static String typeNameOf(String typeUrl) {
    return typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
  }
}
