package dev.mosaic.format;

import java.io.IOException;

/**
 * A {@link ChangeSet} that cannot be decoded or does not fit the base it is applied to; the message
 * names what is wrong.
 */
public class MalformedChangeSetException extends IOException {
  public MalformedChangeSetException(String message) {
    super("malformed change set: " + message);
  }
}
