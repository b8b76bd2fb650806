package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDigestTest {
  private static final long SEED = 0x5eed_d16e_57L;

  @TempDir Path tmp;

  /** Content followed by a partition file's trailer end: its CRC32C (LE u32) and "MEND". */
  private static byte[] partitionShaped(byte[] content) {
    CRC32C crc = new CRC32C();
    crc.update(content);
    return ByteBuffer.allocate(content.length + 8)
        .order(ByteOrder.LITTLE_ENDIAN)
        .put(content)
        .putInt((int) crc.getValue())
        .put(new byte[] {'M', 'E', 'N', 'D'})
        .array();
  }

  private static long wholeFileCrc(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b);
    return crc.getValue();
  }

  @Test
  void filesOfOneSizeWithOtherContentHaveOtherDigestsThoughTheirWholeFileCrcIsOneConstant()
      throws Exception {
    Random random = new Random(SEED);
    byte[] a = new byte[4096];
    byte[] b = new byte[4096];
    random.nextBytes(a);
    random.nextBytes(b);
    Path fa = Files.write(tmp.resolve("a"), partitionShaped(a));
    Path fb = Files.write(tmp.resolve("b"), partitionShaped(b));

    // the hazard this digest avoids: data followed by its own CRC has a constant CRC
    assertThat(wholeFileCrc(Files.readAllBytes(fa)))
        .isEqualTo(wholeFileCrc(Files.readAllBytes(fb)));
    FileDigest da = FileDigest.of(fa);
    FileDigest db = FileDigest.of(fb);
    assertThat(da.size()).isEqualTo(db.size()).isEqualTo(4096 + 8);
    assertThat(da.crc32c()).isNotEqualTo(db.crc32c());
    CRC32C content = new CRC32C();
    content.update(a);
    assertThat(da.crc32c()).isEqualTo(content.getValue());
  }

  @Test
  void aStreamedDigestEqualsTheFilesDigestWhateverTheChunks() throws Exception {
    Random random = new Random(SEED + 1);
    for (int round = 0; round < 200; round++) {
      byte[] content = new byte[random.nextInt(3000)];
      random.nextBytes(content);
      byte[] file = partitionShaped(content);
      FileDigest expected = FileDigest.of(Files.write(tmp.resolve("f" + round), file));
      StreamingDigest streamed = new StreamingDigest();
      int at = 0;
      while (at < file.length) {
        int n =
            Math.min(
                file.length - at, random.nextInt(4) == 0 ? random.nextInt(9) : random.nextInt(700));
        streamed.update(file, at, n);
        at += n;
      }
      assertThat(streamed.size()).isEqualTo(file.length);
      assertThat(streamed.finish()).as("round %d", round).isEqualTo(expected);
    }
  }

  @Test
  void theTrailerAloneGivesTheDigestOfAnIntactFileWithoutReadingIt() throws Exception {
    byte[] content = new byte[5_000];
    new Random(SEED + 3).nextBytes(content);
    Path f = Files.write(tmp.resolve("intact"), partitionShaped(content));
    assertThat(FileDigest.ofTrailer(f)).isEqualTo(FileDigest.of(f));
    Path notPartition = Files.write(tmp.resolve("other"), new byte[64]);
    assertThatThrownBy(() -> FileDigest.ofTrailer(notPartition))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("marker MEND");
  }

  @Test
  void aFlippedByteIsReportedWithBothChecksums() throws Exception {
    byte[] content = new byte[10_000];
    new Random(SEED + 2).nextBytes(content);
    byte[] file = partitionShaped(content);
    file[5_000] ^= 0x10;
    Path f = Files.write(tmp.resolve("flipped"), file);
    assertThatThrownBy(() -> FileDigest.of(f))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(f.toString())
        .hasMessageMatching(
            ".*content of 10000 bytes has crc32c=\\p{XDigit}{8} but its trailer says \\p{XDigit}{8}.*");
  }

  @Test
  void bytesThatDoNotEndLikeAPartitionFileAreRefused() throws Exception {
    StreamingDigest noMarker = new StreamingDigest();
    noMarker.update(new byte[64], 0, 64);
    assertThatThrownBy(noMarker::finish)
        .isInstanceOf(StreamingDigest.MismatchException.class)
        .hasMessage("the 64 bytes do not end with a partition file trailer (marker MEND)");
    StreamingDigest tooShort = new StreamingDigest();
    tooShort.update(new byte[] {'M', 'E', 'N', 'D'}, 0, 4);
    assertThatThrownBy(tooShort::finish)
        .isInstanceOf(StreamingDigest.MismatchException.class)
        .hasMessage("4 bytes, shorter than a partition file's trailer");
  }
}
