package dev.mosaic.api.schema;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;

/**
 * Renders serialized payload messages of one type as JSON.
 *
 * <p>Thread safety: implementations are safe from any thread.
 */
public interface PayloadRenderer {
  /**
   * The payload as compact JSON, Protobuf field names kept ({@code price_rub}).
   *
   * @throws InvalidProtocolBufferException when the bytes are not a message of the type
   */
  String toJson(ByteBuffer payload) throws InvalidProtocolBufferException;

  /** {@link #toJson(ByteBuffer)} of an array. */
  default String toJson(byte[] payload) throws InvalidProtocolBufferException {
    return toJson(ByteBuffer.wrap(payload));
  }
}
