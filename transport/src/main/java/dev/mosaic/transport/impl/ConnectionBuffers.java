package dev.mosaic.transport.impl;

import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.scaladsl.TcpAttributes;

/**
 * How many bytes a transport connection gathers before it hands them on, on both ends. Pekko's
 * defaults suit small messages: the TCP stage gathers 16 KiB of outgoing bytes while a write is
 * pending, so a file leaves as one write (one message to the connection actor, one thread wake-up)
 * per TLS record. For a file, fewer and larger writes cost far less CPU per byte; the latency of
 * small messages (headers, acknowledgements) is unchanged, since nothing waits for the buffer to
 * fill. Not instantiable.
 */
final class ConnectionBuffers {
  private ConnectionBuffers() {}

  /** Outgoing bytes the TCP stage gathers while a write is pending. */
  private static final int TCP_WRITE_BUFFER = 1 << 20;

  /** Received bytes gathered for one file write while the previous write is under way. */
  static final long FILE_WRITE_BATCH = 1 << 20;

  /** The attributes of a transport connection's TCP stage. */
  static Attributes tcp() {
    return TcpAttributes.tcpWriteBufferSize(TCP_WRITE_BUFFER);
  }
}
