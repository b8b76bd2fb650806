package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.DatabaseMerger;
import dev.mosaic.format.Document;
import dev.mosaic.format.PayloadCompression;
import dev.mosaic.format.Schema;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LZ4 payload blocks are bounded on both sides: the writer never makes a block over {@link
 * FileFormat#MAX_PAYLOAD_BLOCK_BYTES} uncompressed, a reader refuses a file whose block claims more
 * (a precise {@link CorruptDatabaseException} at open, not a 2 GiB allocation per query thread),
 * and a thread reading large blocks keeps no large buffer afterwards.
 */
class PayloadBlockBoundsTest {
  private static final Schema SCHEMA = Schema.builder().version(1).build();

  @TempDir Path dir;

  private static byte[] payload(Random random, int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) ('a' + random.nextInt(4)); // compressible, not trivially
    }
    return b;
  }

  private Path write(List<byte[]> payloads, int blockSize, PayloadCompression compression)
      throws Exception {
    DatabaseBuilder b =
        DatabaseBuilder.create(SCHEMA).payloadCompression(compression).payloadBlockSize(blockSize);
    for (byte[] p : payloads) {
      b.add(Document.builder(SCHEMA).payload(p).build());
    }
    Path file = Files.createTempFile(dir, "blocks", ".mosaic");
    Files.write(file, b.toByteArray());
    return file;
  }

  /** Where the payload segment starts, read from the directory. */
  private static int payloadSegment(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int segments = b.getInt(20);
    for (int i = 0; i < segments; i++) {
      int at = HEADER_SIZE + i * DIRECTORY_ENTRY_SIZE;
      if (file[at] == KIND_PAYLOAD) {
        return (int) b.getLong(at + 8);
      }
    }
    throw new AssertionError("no payload segment");
  }

  @Test
  void aBlockClaimingMoreThanTheLargestBlockIsRefusedAtOpenNamingTheBound() throws Exception {
    Random random = new Random(1);
    Path file =
        write(
            List.of(payload(random, 4096), payload(random, 4096)), 1 << 20, PayloadCompression.LZ4);
    byte[] bytes = Files.readAllBytes(file);
    int base = payloadSegment(bytes);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(b.getInt(base + 4)).isEqualTo(PAYLOAD_FLAG_LZ4_BLOCKS);
    assertThat(b.getInt(base)).isEqualTo(4);
    // two documents in one block: claim 20 MiB for the block (within 255x of nothing LZ4 checks)
    b.putInt(base + 16 + 4, 10 << 20);
    b.putInt(base + 16 + 8, 20 << 20);
    Path damaged = dir.resolve("damaged.mosaic");
    Files.write(damaged, bytes);
    assertThatThrownBy(() -> Database.open(damaged, false).close())
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining("payload block 0 claims " + (20 << 20) + " uncompressed bytes")
        .hasMessageContaining(
            "more than the largest block a writer makes (" + MAX_PAYLOAD_BLOCK_BYTES + ")");
  }

  @Test
  void theWriterNeverMakesABlockOverTheLargestBlock() throws Exception {
    Random random = new Random(2);
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      payloads.add(payload(random, (1 + random.nextInt(3)) << 20)); // 1-3 MiB each
    }
    // the largest target: blocks end at twice it at the latest, or before a payload would take
    // them over the bound; opening checks every block's claimed size against the bound
    Path file = write(payloads, MAX_PAYLOAD_BLOCK_BYTES / 2, PayloadCompression.LZ4);
    try (Database db = Database.open(file)) {
      DatabaseReader reader = DatabaseReader.of(db);
      assertThat(reader.payloadsCompressed()).isTrue();
      assertThat(reader.payloadBlockCount()).isGreaterThanOrEqualTo(4); // 48 MiB at most 16 each
      for (int d = 0; d < payloads.size(); d++) {
        assertThat(db.payload(d).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads.get(d));
      }
    }
  }

  @Test
  void aPayloadLargerThanTheLargestBlockIsStoredRaw() throws Exception {
    byte[] big = payload(new Random(3), MAX_PAYLOAD_BLOCK_BYTES + 1);
    Path file = write(List.of(new byte[] {1}, big), 8192, PayloadCompression.LZ4);
    try (Database db = Database.open(file)) {
      assertThat(DatabaseReader.of(db).payloadsCompressed()).isFalse();
      assertThat(db.payload(1).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(big);
    }
    assertThatThrownBy(
            () -> DatabaseBuilder.create(SCHEMA).payloadBlockSize(MAX_PAYLOAD_BLOCK_BYTES / 2 + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "payload block size must be in [1, " + MAX_PAYLOAD_BLOCK_BYTES / 2 + "]");
    assertThatThrownBy(
            () -> DatabaseMerger.builder().payloadBlockSize(MAX_PAYLOAD_BLOCK_BYTES / 2 + 1))
        .as("a merge accepts the same largest block target as a builder")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "payload block size must be in [1, " + MAX_PAYLOAD_BLOCK_BYTES / 2 + "]");
  }

  @Test
  void aThreadReadingLargeBlocksKeepsNoLargeBuffer() throws Exception {
    Random random = new Random(4);
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      payloads.add(payload(random, 256 << 10));
    }
    Path file = write(payloads, 4 << 20, PayloadCompression.LZ4); // one 4 MiB block
    try (Database db = Database.open(file)) {
      long retained =
          CompletableFuture.supplyAsync(
                  () -> {
                    for (int d = 0; d < payloads.size(); d++) {
                      assertThat(db.payload(d).toArray(ValueLayout.JAVA_BYTE))
                          .isEqualTo(payloads.get(d));
                    }
                    return PayloadBlocks.retainedBytes();
                  })
              .get();
      assertThat(retained).isLessThanOrEqualTo(2L * PayloadBlocks.RETAINED_BUFFER_BYTES);
    }
  }
}
