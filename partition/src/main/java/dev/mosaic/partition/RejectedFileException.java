package dev.mosaic.partition;

import java.io.IOException;

/** A partition file refused by a store or a receiver; the message is the reason sent back. */
public class RejectedFileException extends IOException {
  public RejectedFileException(String reason) {
    super(reason);
  }

  public RejectedFileException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
