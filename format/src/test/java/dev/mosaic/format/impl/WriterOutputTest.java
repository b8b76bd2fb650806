package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.channels.Channels;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link SegmentFile.Output} reuses its buffer across the outputs of a thread: each output still
 * carries exactly its own bytes and checksum, outputs open at once do not share a buffer, and a
 * finished output refuses further writes.
 */
class WriterOutputTest {
  private static final long SEED = 0x0a7_9c7L;

  @Test
  void consecutiveAndNestedOutputsCarryTheirOwnBytes() throws Exception {
    Random random = new Random(SEED);
    for (int round = 0; round < 20; round++) {
      byte[] first = bytes(random, random.nextInt(200_000));
      byte[] second = bytes(random, random.nextInt(200_000));
      ByteArrayOutputStream a = new ByteArrayOutputStream();
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      SegmentFile.Output outA = new SegmentFile.Output(Channels.newChannel(a));
      writeInPieces(outA, first, random);
      // a second output opened while the first is in use
      SegmentFile.Output outB = new SegmentFile.Output(Channels.newChannel(b));
      writeInPieces(outB, second, random);
      outA.finish();
      outB.finish();
      assertThat(a.toByteArray()).isEqualTo(first);
      assertThat(b.toByteArray()).isEqualTo(second);
      assertThat(outA.crc.getValue()).isEqualTo(crc(first));
      assertThat(outB.crc.getValue()).isEqualTo(crc(second));
      assertThat(outA.written).isEqualTo(first.length);
    }
  }

  @Test
  void aFinishedOutputRefusesWrites() throws Exception {
    SegmentFile.Output out =
        new SegmentFile.Output(Channels.newChannel(new ByteArrayOutputStream()));
    out.write(new byte[] {1, 2, 3}, 0, 3);
    out.finish();
    assertThatThrownBy(() -> out.write(new byte[] {4}, 0, 1))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> out.write(MemorySegment.ofArray(new byte[] {4})))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(out::finish).isInstanceOf(IllegalStateException.class);
  }

  private static void writeInPieces(SegmentFile.Output out, byte[] bytes, Random random)
      throws Exception {
    int at = 0;
    while (at < bytes.length) {
      int n = Math.min(bytes.length - at, 1 + random.nextInt(90_000));
      if (random.nextBoolean()) {
        out.write(bytes, at, n);
      } else {
        out.write(MemorySegment.ofArray(bytes).asSlice(at, n));
      }
      at += n;
    }
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static long crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return c.getValue();
  }
}
