package dev.mosaic.api.schema.impl;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.mosaic.api.schema.PayloadRenderer;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link PayloadRenderer} parsing payloads as {@link DynamicMessage}s of the payload type and
 * printing them with {@link JsonFormat} (compact, Protobuf field names, {@code Any} resolved
 * through the descriptor set's types).
 *
 * <p>Thread safety: immutable, safe from any thread.
 */
public final class JsonPayloadRenderer implements PayloadRenderer {
  private final Descriptor type;
  private final JsonFormat.Printer printer;

  /** A renderer of payloads of that type. */
  public JsonPayloadRenderer(Descriptor type, JsonFormat.TypeRegistry registry) {
    this.type = type;
    this.printer =
        JsonFormat.printer()
            .usingTypeRegistry(registry)
            .omittingInsignificantWhitespace()
            .preservingProtoFieldNames();
  }

  @Override
  public String toJson(ByteBuffer payload) throws InvalidProtocolBufferException {
    DynamicMessage message;
    try {
      message = DynamicMessage.parseFrom(type, CodedInputStream.newInstance(payload));
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (IOException e) {
      throw new InvalidProtocolBufferException(e);
    }
    return printer.print(message);
  }
}
