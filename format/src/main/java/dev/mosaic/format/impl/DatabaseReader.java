package dev.mosaic.format.impl;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;

/** Placeholder until the reader lands: every entry point says so. */
public final class DatabaseReader {
  private DatabaseReader() {}

  public static Database open(Path file, boolean verifyChecksum) throws IOException {
    throw new UnsupportedOperationException("reader not implemented yet");
  }

  public static Database map(Path file, Arena arena, boolean verifyChecksum) throws IOException {
    throw new UnsupportedOperationException("reader not implemented yet");
  }

  public static Database fromBytes(byte[] bytes) throws CorruptDatabaseException {
    throw new UnsupportedOperationException("reader not implemented yet");
  }

  public static Schema verify(Path file) throws IOException {
    throw new UnsupportedOperationException("reader not implemented yet");
  }
}
