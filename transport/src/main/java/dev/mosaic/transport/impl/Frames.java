package dev.mosaic.transport.impl;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import dev.mosaic.partition.StreamingDigest;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.zip.CRC32C;
import org.apache.pekko.util.ByteString;

/**
 * Wire framing: a 4-byte big-endian length, that many bytes of one Protobuf message, then
 * (depending on the message) exactly N raw bytes of a file. Not instantiable.
 */
final class Frames {
  /** Upper bound of one Protobuf frame; a larger length means a foreign or broken peer. */
  static final int MAX_FRAME = 1 << 20;

  private Frames() {}

  static ByteString frame(MessageLite message) {
    byte[] body = message.toByteArray();
    ByteBuffer buf = ByteBuffer.allocate(4 + body.length);
    buf.putInt(body.length).put(body).flip();
    return ByteString.fromByteBuffer(buf);
  }

  static void update(CRC32C crc, ByteString bytes) {
    for (ByteBuffer b : bytes.getByteBuffers()) {
      crc.update(b);
    }
  }

  static void update(StreamingDigest digest, ByteString bytes) {
    for (ByteBuffer b : bytes.getByteBuffers()) {
      digest.update(b);
    }
  }

  /** A parser of one message type. */
  interface Parser<M> {
    M parse(byte[] bytes) throws InvalidProtocolBufferException;
  }

  /** The first element of a split stream. */
  record Head<M>(M message) {}

  /**
   * Emitted after the last body byte (right after the {@link Head} for an empty body): the body is
   * complete without waiting for the peer to close its side (a TLS session stays open until both
   * ends are done).
   */
  static final Object END =
      new Object() {
        @Override
        public String toString() {
          return "END";
        }
      };

  /** The body chunks of a split stream, completing at {@link #END}. */
  static org.apache.pekko.stream.javadsl.Source<Object, org.apache.pekko.NotUsed> body(
      org.apache.pekko.stream.javadsl.Source<Object, org.apache.pekko.NotUsed> tail) {
    return tail.takeWhile(o -> o != END);
  }

  /**
   * Splits a byte stream into one {@link Head} followed by the raw body chunks ({@link ByteString})
   * whose total is {@code bodySize(message)}, then {@link #END}; any byte beyond that fails the
   * stream, unless the splitter {@linkplain #repeating repeats}: then the next frame follows. Used
   * with {@code statefulMapConcat}: one instance per stream, not thread safe.
   */
  static final class Splitter<M>
      implements org.apache.pekko.japi.function.Function<ByteString, Iterable<Object>> {
    private static final long serialVersionUID = 1L;
    private final transient Parser<M> parser;
    private final transient ToLongFunction<M> bodySize;
    private final boolean repeat;
    private ByteString pending = ByteString.emptyByteString();
    private boolean headDone;
    private long remaining;

    Splitter(Parser<M> parser, ToLongFunction<M> bodySize) {
      this(parser, bodySize, false);
    }

    private Splitter(Parser<M> parser, ToLongFunction<M> bodySize, boolean repeat) {
      this.parser = parser;
      this.bodySize = bodySize;
      this.repeat = repeat;
    }

    /**
     * A splitter of a connection that carries one exchange after the other: after a frame's {@link
     * #END} the next {@link Head} follows.
     */
    static <M> Splitter<M> repeating(Parser<M> parser, ToLongFunction<M> bodySize) {
      return new Splitter<>(parser, bodySize, true);
    }

    @Override
    public Iterable<Object> apply(ByteString chunk) throws Exception {
      if (!repeat) {
        return next(chunk);
      }
      List<Object> out = new java.util.ArrayList<>(4);
      ByteString rest = chunk;
      do {
        Iterable<Object> part = next(rest);
        rest = leftover;
        leftover = ByteString.emptyByteString();
        part.forEach(out::add);
      } while (!rest.isEmpty());
      return out;
    }

    /** Bytes after a frame's end that belong to the next frame (repeating splitters only). */
    private ByteString leftover = ByteString.emptyByteString();

    private Iterable<Object> next(ByteString chunk) throws Exception {
      if (headDone) {
        return body(chunk);
      }
      pending = pending.concat(chunk);
      if (pending.size() < 4) {
        return List.of();
      }
      int len = pending.iterator().getInt(java.nio.ByteOrder.BIG_ENDIAN);
      if (len < 0 || len > MAX_FRAME) {
        throw new ProtocolException("bad frame length " + len + " (not a Mosaic transport peer?)");
      }
      if (pending.size() < 4 + len) {
        return List.of();
      }
      M message = parser.parse(pending.slice(4, 4 + len).toArray());
      ByteString rest = pending.drop(4 + len);
      pending = ByteString.emptyByteString();
      headDone = true;
      remaining = bodySize.applyAsLong(message);
      Head<M> head = new Head<>(message);
      if (remaining == 0) {
        if (repeat) {
          headDone = false;
          leftover = rest;
        } else if (!rest.isEmpty()) {
          throw new ProtocolException(
              "peer sent " + rest.size() + " bytes more than the announced size");
        }
        return List.of(head, END);
      }
      if (rest.isEmpty()) {
        return List.of(head);
      }
      List<Object> out = new java.util.ArrayList<>(3);
      out.add(head);
      for (Object o : body(rest)) {
        out.add(o);
      }
      return out;
    }

    private Iterable<Object> body(ByteString chunk) throws ProtocolException {
      if (repeat && chunk.size() > remaining) {
        leftover = chunk.drop((int) remaining);
        chunk = chunk.take((int) remaining);
      }
      if (chunk.size() > remaining) {
        throw new ProtocolException(
            "peer sent " + (chunk.size() - remaining) + " bytes more than the announced size");
      }
      if (chunk.isEmpty()) {
        return List.of();
      }
      remaining -= chunk.size();
      if (remaining == 0) {
        headDone = !repeat;
        return List.of(chunk, END);
      }
      return List.of(chunk);
    }
  }

  /** A peer broke the wire protocol. */
  static final class ProtocolException extends java.io.IOException {
    ProtocolException(String message) {
      super(message);
    }
  }
}
