package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database larger than 2 GiB maps as one segment and serves payloads past the 2 GiB mark. The
 * file is written sparse (the writer would need the payloads in the heap), laid out per FORMAT.md:
 * two documents, the second payload starting beyond 2 GiB.
 */
class LargeFileTest {
  @TempDir Path dir;

  @Test
  void payloadsBeyondTwoGibibytesAreReadInPlace() throws Exception {
    Schema schema = Schema.builder().version(1).build();
    ByteSink schemaBytes = SchemaCodec.encode(schema);
    long gap = (1L << 31) + 1000; // first payload: > 2 GiB of zeros (a hole in the file)
    byte[] marker = "beyond two gibibytes".getBytes(StandardCharsets.UTF_8);
    long directoryEnd = HEADER_SIZE + 2L * DIRECTORY_ENTRY_SIZE;
    long schemaAt = directoryEnd;
    long payloadAt = schemaAt + ((schemaBytes.size() + 7) & ~7);
    long payloadLength = 8 + 3 * 4 + gap + marker.length;
    long trailerAt = payloadAt + ((payloadLength + 7) & ~7);
    long size = trailerAt + TRAILER_SIZE;

    ByteBuffer head = ByteBuffer.allocate((int) payloadAt + 20).order(ByteOrder.LITTLE_ENDIAN);
    head.putLong(MAGIC).putInt(FORMAT_VERSION_1).putInt(1).put((byte) CHECKSUM_CRC32C);
    head.put(new byte[3]).putInt(2).putInt(2).putInt(0);
    head.put((byte) KIND_SCHEMA).put(new byte[3]).putInt(-1).putLong(schemaAt);
    head.putLong(schemaBytes.size());
    head.put((byte) KIND_PAYLOAD).put(new byte[3]).putInt(-1).putLong(payloadAt);
    head.putLong(payloadLength);
    head.put(schemaBytes.array(), 0, schemaBytes.size());
    head.position((int) payloadAt);
    head.putInt(4).putInt(0).putInt(0).putInt((int) gap).putInt((int) (gap + marker.length));
    head.flip();

    Path file = dir.resolve("large.mosaic");
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(head, 0);
      ch.write(ByteBuffer.wrap(marker), payloadAt + 20 + gap);
      ByteBuffer trailer = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
      trailer.putLong(size).putInt(0).putInt(END_MAGIC).flip();
      ch.write(trailer, trailerAt);
    }

    try (Database db = Database.open(file)) {
      assertThat(db.sizeInBytes()).isGreaterThan(1L << 31);
      assertThat(db.documentCount()).isEqualTo(2);
      assertThat(db.count(Query.all())).isEqualTo(2);
      MemorySegment payload = db.payload(1);
      assertThat(payload.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(marker);
      assertThat(db.payload(0).byteSize()).isEqualTo(gap);
    }
  }
}
