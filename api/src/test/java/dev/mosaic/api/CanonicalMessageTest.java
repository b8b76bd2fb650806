package dev.mosaic.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CanonicalMessageTest {
  @Test
  void utf8IsValidExactlyWhenProtobufSaysSoForRandomBytesAroundAsciiAndMultiByteSequences() {
    Random random = new Random(0x7f8L);
    byte[][] pieces = {
      "a".getBytes(StandardCharsets.UTF_8),
      "thirteen byte".getBytes(StandardCharsets.UTF_8), // runs over the eight-byte steps
      "Москва".getBytes(StandardCharsets.UTF_8),
      "日本".getBytes(StandardCharsets.UTF_8),
      "\uD83D\uDE97".getBytes(StandardCharsets.UTF_8),
      {(byte) 0xC0, (byte) 0x80}, // overlong
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate
      {(byte) 0xE3}, // cut
      {(byte) 0x80}, // a stray continuation byte
      {(byte) 0xFF}
    };
    for (int trial = 0; trial < 20_000; trial++) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      for (int n = random.nextInt(random.nextBoolean() ? 6 : 40); n > 0; n--) {
        out.writeBytes(
            random.nextInt(3) == 0
                ? pieces[random.nextInt(pieces.length)]
                : pieces[random.nextInt(2)]);
      }
      byte[] value = out.toByteArray();
      // inside a larger message, as the mappers see it
      byte[] message = new byte[value.length + 4];
      message[0] = (byte) 0xE3; // a cut sequence just before: must not count
      System.arraycopy(value, 0, message, 2, value.length);
      message[message.length - 1] = (byte) 0x80;
      assertThat(CanonicalMessage.validUtf8(message, 2, value.length))
          .as("trial %d: %s", trial, java.util.HexFormat.of().formatHex(value))
          .isEqualTo(com.google.protobuf.ByteString.copyFrom(value).isValidUtf8());
    }
  }
}
