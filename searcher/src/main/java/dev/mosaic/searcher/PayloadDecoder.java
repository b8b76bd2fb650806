package dev.mosaic.searcher;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.schema.ProtoTypes;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns document payloads into JSON when the schema's {@code payloadType} names a known Protobuf
 * message (every message of {@code mosaic/feed/v1/offers.proto}, such as {@code
 * mosaic.feed.v1.CarOffer}, is known; {@link #register} adds more, for instance every message of
 * the descriptor set an index's schema file was loaded with).
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class PayloadDecoder {
  private final Map<String, Descriptor> known = new ConcurrentHashMap<>();
  private final JsonFormat.Printer printer =
      JsonFormat.printer().omittingInsignificantWhitespace().preservingProtoFieldNames();

  /** A decoder knowing the feed messages of the {@code api} module. */
  public PayloadDecoder() {
    register(CarOffer.getDescriptor().getFile());
  }

  /** Makes every message of a Protobuf file known, by full name. */
  public PayloadDecoder register(FileDescriptor file) {
    for (Descriptor d : file.getMessageTypes()) {
      register(d);
    }
    return this;
  }

  /**
   * Makes every message of a descriptor set known, by full name (a schema file's payload types:
   * {@link dev.mosaic.api.schema.IndexSchema#types()}); a name already known is replaced.
   */
  public PayloadDecoder register(ProtoTypes types) {
    for (String name : types.messageNames()) {
      known.put(name, types.message(name));
    }
    return this;
  }

  /** Makes one message (and its nested messages) known, by full name. */
  public PayloadDecoder register(Descriptor message) {
    known.put(message.getFullName(), message);
    for (Descriptor nested : message.getNestedTypes()) {
      register(nested);
    }
    return this;
  }

  /** The message of that full name, when known. */
  public Optional<Descriptor> descriptor(String payloadType) {
    return payloadType == null ? Optional.empty() : Optional.ofNullable(known.get(payloadType));
  }

  /**
   * The payload as compact JSON, or empty when it does not parse as that message.
   *
   * <p>NOTE: reads the segment in place; call while the generation holding it is acquired.
   */
  public Optional<String> toJson(Descriptor type, MemorySegment payload) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(payload.asByteBuffer());
      DynamicMessage m = DynamicMessage.parseFrom(type, in);
      return Optional.of(printer.print(m));
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
  }
}
