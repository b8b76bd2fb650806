package dev.mosaic.partition;

/**
 * A staged file refused because its size or content checksum is not the one the publisher expected
 * (see {@link ReceivingStore.StagedFile#publish(FileDigest)}): nothing was published.
 */
public final class DigestMismatchException extends RejectedFileException {
  private final FileDigest expected;
  private final FileDigest actual;

  public DigestMismatchException(String file, FileDigest expected, FileDigest actual) {
    super(file + ": has " + actual + ", expected " + expected);
    this.expected = expected;
    this.actual = actual;
  }

  /** What the publisher expected. */
  public FileDigest expected() {
    return expected;
  }

  /** What the staged file has. */
  public FileDigest actual() {
    return actual;
  }
}
