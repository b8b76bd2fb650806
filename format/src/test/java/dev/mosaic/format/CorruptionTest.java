package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.query.Query;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorruptionTest {
  @TempDir Path dir;

  private final byte[] good = CarsFixture.builder(0, 300).toByteArray();

  private Path write(byte[] bytes) throws Exception {
    Path file = dir.resolve("db.mosaic");
    Files.write(file, bytes);
    return file;
  }

  @Test
  void everyFlippedByteIsCaughtByTheChecksum() throws Exception {
    for (int i = 0; i < good.length; i += Math.max(1, good.length / 200)) {
      byte[] bad = good.clone();
      bad[i] ^= 0x10;
      Path file = write(bad);
      int at = i;
      assertThatThrownBy(() -> Database.verify(file))
          .as("flip at %d", at)
          .isInstanceOf(CorruptDatabaseException.class)
          .hasMessageContaining(file.toString());
      assertThatThrownBy(() -> Database.fromBytes(bad))
          .isInstanceOf(CorruptDatabaseException.class);
    }
  }

  @Test
  void aFlippedPayloadByteNamesTheTrailerChecksum() throws Exception {
    byte[] bad = good.clone();
    bad[bad.length - 100] ^= 1;
    Path file = write(bad);
    CorruptDatabaseException e =
        (CorruptDatabaseException) catchThrowable(() -> Database.verify(file));
    assertThat(e.segment()).isEqualTo("trailer");
    assertThat(e.offset()).isEqualTo(good.length - 8);
    assertThat(e.getMessage()).contains("checksum mismatch");
    // Without verification the structure is fine and the database opens.
    try (Database db = Database.open(file)) {
      assertThat(db.count(Query.all())).isEqualTo(300);
    }
  }

  @Test
  void truncationIsCaughtAtOpenWithoutTheChecksum() throws Exception {
    for (int len : new int[] {0, 10, 47, good.length / 2, good.length - 1}) {
      Path file = write(Arrays.copyOf(good, len));
      assertThatThrownBy(() -> Database.open(file))
          .as("truncated to %d", len)
          .isInstanceOf(CorruptDatabaseException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("truncated");
    }
  }

  @Test
  void wrongMagicAndWrongVersionAreNamed() throws Exception {
    byte[] magic = good.clone();
    magic[0] = 'X';
    CorruptDatabaseException e =
        (CorruptDatabaseException) catchThrowable(() -> Database.open(write(magic)));
    assertThat(e.getMessage()).contains("wrong magic");
    assertThat(e.segment()).isEqualTo("header");
    assertThat(e.offset()).isZero();

    byte[] version = good.clone();
    version[8] = 99;
    e = (CorruptDatabaseException) catchThrowable(() -> Database.open(write(version)));
    assertThat(e.getMessage()).contains("unsupported format version 99");
    assertThat(e.offset()).isEqualTo(8);
  }

  @Test
  void corruptStructureIsCaughtAtOpenNamingTheSegment() throws Exception {
    byte[] bad = good.clone();
    // First directory entry's offset (schema segment) -> points past the end.
    bad[32 + 8 + 7] = 0x7F;
    CorruptDatabaseException e =
        (CorruptDatabaseException) catchThrowable(() -> Database.open(write(bad)));
    assertThat(e.segment()).isEqualTo("directory");
    assertThat(e.offset()).isEqualTo(32);
  }

  /**
   * A file from the reader fuzz test (seed 71236879002861, case 33135): its payload offsets claim
   * that zstd block 0 holds 16,773,982 bytes, its zstd frame says 350. Reading a payload must name
   * the mismatch without allocating what the offsets claim (it allocated 16 MiB per read, 64 MiB
   * over the fuzz test's queries).
   */
  @Test
  void aZstdBlockWhoseOffsetsClaimMoreThanItsFrameHoldsIsRefusedBeforeAllocating()
      throws Exception {
    Path file = dir.resolve("fuzz.mosaic");
    try (var in =
        CorruptionTest.class.getResourceAsStream("/fuzz-zstd-block-claims-16mib.mosaic")) {
      Files.copy(in, file);
    }
    var threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    try (Database db = Database.open(file, false)) {
      long before = threads.getCurrentThreadAllocatedBytes();
      assertThatThrownBy(() -> db.payload(0))
          .hasCauseInstanceOf(CorruptDatabaseException.class)
          .hasMessageContaining(
              "payload block 0: is a zstd frame of 350 bytes, its offsets claim 16773982 bytes");
      assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(1L << 20);
    }
  }

  private static Throwable catchThrowable(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable callable) {
    return org.assertj.core.api.Assertions.catchThrowable(callable);
  }
}
