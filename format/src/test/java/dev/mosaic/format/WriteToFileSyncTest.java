package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code writeTo(file, FileSync)} writes the same complete file whether or not it forces it to
 * disk, and overrides the builder's {@code fsync} setting for that write. (Whether the force
 * happened is not observable from a test short of a power cut: what is checked is that skipping it
 * loses nothing while the machine runs.)
 */
class WriteToFileSyncTest {
  @TempDir Path dir;

  @Test
  void aFileWrittenWithoutForcingIsTheSameCompleteFile() throws Exception {
    DatabaseBuilder b = CarsFixture.builder(0, 300);
    Path forced = dir.resolve("forced.mosaic");
    Path bulk = dir.resolve("bulk.mosaic");
    b.writeTo(forced, FileSync.FORCE);
    b.fsync(true).writeTo(bulk, FileSync.CALLER_SYNCS);
    assertThat(Files.readAllBytes(bulk)).isEqualTo(Files.readAllBytes(forced));
    assertThat(Files.readAllBytes(bulk)).isEqualTo(b.toByteArray());
    assertThat(Database.verify(bulk)).isEqualTo(CarsFixture.SCHEMA);
    // a second write over an existing file truncates it
    CarsFixture.builder(0, 3).writeTo(bulk, FileSync.CALLER_SYNCS);
    try (Database db = Database.open(bulk, true)) {
      assertThat(db.documentCount()).isEqualTo(3);
    }
  }
}
