package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PayloadDictionaryTest {
  private static final long SEED = 18;

  /** Offer-like payloads with a shared vocabulary, so the trainer finds a dictionary. */
  private static List<byte[]> payloads(Random random, int n) {
    String[] words = {"toyota", "garage kept", "one owner", "winter tyres", "leather", "4x4"};
    List<byte[]> result = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      StringBuilder s = new StringBuilder("{\"price\":").append(random.nextInt(5_000_000));
      s.append(",\"text\":\"");
      for (int w = 10 + random.nextInt(40); w > 0; w--) {
        s.append(words[random.nextInt(words.length)]).append(' ');
      }
      result.add(s.append("\"}").toString().getBytes(StandardCharsets.UTF_8));
    }
    return result;
  }

  private static byte[] concat(List<byte[]> parts) {
    int length = parts.stream().mapToInt(p -> p.length).sum();
    byte[] out = new byte[length];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  @Test
  void framesLeaveOutTheDictionaryIdAndFramesCarryingItStillDecompress() {
    List<byte[]> docs = payloads(new Random(SEED), 600);
    PayloadDictionary dictionary =
        PayloadDictionary.train(
            docs.size(), docs.stream().mapToLong(p -> p.length).sum(), docs::get);
    assertThat(dictionary.length()).as("seed %d", SEED).isPositive();
    assertThat(Zstd.getDictIdFromDict(dictionary.bytes())).as("a trained dictionary").isNotZero();
    byte[] block = concat(docs.subList(100, 103));
    byte[] frame = new byte[PayloadDictionary.maxCompressedLength(block.length)];
    int length = dictionary.compress(block, block.length, frame);
    assertThat(Zstd.getDictIdFromFrame(Arrays.copyOf(frame, length))).isZero();
    byte[] back = new byte[block.length];
    assertThat(dictionary.decompress(frame, length, back, block.length)).isNull();
    assertThat(back).isEqualTo(block);

    // a frame as earlier version 3 writers made it, naming its dictionary, reads the same
    byte[] named;
    try (ZstdDictCompress digested =
            new ZstdDictCompress(dictionary.bytes(), PayloadDictionary.LEVEL);
        ZstdCompressCtx ctx = new ZstdCompressCtx().setLevel(PayloadDictionary.LEVEL)) {
      named = ctx.loadDict(digested).compress(block);
    }
    assertThat(Zstd.getDictIdFromFrame(named))
        .isEqualTo(Zstd.getDictIdFromDict(dictionary.bytes()));
    assertThat(named.length).as("the id costs 4 bytes").isEqualTo(length + 4);
    Arrays.fill(back, (byte) 0);
    assertThat(dictionary.decompress(named, named.length, back, block.length)).isNull();
    assertThat(back).isEqualTo(block);
  }
}
