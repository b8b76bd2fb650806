package dev.mosaic.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  /**
   * A payload is canonical exactly when it parses with no unknown field and Protobuf writes the
   * parsed message back byte for byte: generated car and realty payloads, damaged by changed,
   * inserted and removed bytes and by varints padded to a longer form.
   */
  @Test
  void aPayloadIsCanonicalExactlyWhenProtobufWritesItBackUnchanged() throws Exception {
    Random random = new Random(0xca11L);
    CanonicalMessage car = new CanonicalMessage(CarOffer.getDescriptor());
    CanonicalMessage realty = new CanonicalMessage(RealtyOffer.getDescriptor());
    CarOfferGenerator cars = CarOfferGenerator.builder().seed(3).build();
    RealtyOfferGenerator homes = RealtyOfferGenerator.seeded(3);
    int canonical = 0;
    int not = 0;
    for (int trial = 0; trial < 20_000; trial++) {
      boolean isCar = random.nextBoolean();
      byte[] bytes =
          damaged(
              random, isCar ? cars.next().toByteArray() : homes.next().toByteArray(), trial % 6);
      boolean expected =
          isCar ? writtenBack(CarOffer.parser(), bytes) : writtenBack(RealtyOffer.parser(), bytes);
      // inside a larger array, as the mappers see it
      byte[] around = new byte[bytes.length + 7];
      System.arraycopy(bytes, 0, around, 3, bytes.length);
      around[0] = (byte) 0x80;
      around[around.length - 1] = (byte) 0x80;
      assertThat((isCar ? car : realty).isCanonical(around, 3, bytes.length))
          .as("trial %d: %s", trial, java.util.HexFormat.of().formatHex(bytes))
          .isEqualTo(expected);
      if (expected) {
        canonical++;
      } else {
        not++;
      }
    }
    assertThat(canonical).isGreaterThan(3_000);
    assertThat(not).isGreaterThan(3_000);
  }

  private static boolean writtenBack(
      com.google.protobuf.Parser<? extends Message> parser, byte[] b) {
    Message parsed;
    try {
      parsed = parser.parseFrom(b);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      return false;
    }
    return parsed.getUnknownFields().asMap().isEmpty() && Arrays.equals(parsed.toByteArray(), b);
  }

  /**
   * {@code kind} 0: unchanged; 1: a byte changed; 2: a byte inserted; 3: removed; 4: a varint
   * padded; 5: a byte that may end a varint zeroed (a value written at its default when it was
   * one).
   */
  private static byte[] damaged(Random random, byte[] b, int kind) {
    if (b.length == 0) {
      return b;
    }
    int at = random.nextInt(b.length);
    return switch (kind) {
      case 0 -> b;
      case 1 -> {
        b[at] = random.nextBoolean() ? (byte) random.nextInt(256) : (byte) (b[at] ^ 1);
        yield b;
      }
      case 2 -> {
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, at);
        c[at] = (byte) random.nextInt(256);
        System.arraycopy(b, at, c, at + 1, b.length - at);
        yield c;
      }
      case 3 -> {
        byte[] c = new byte[b.length - 1];
        System.arraycopy(b, 0, c, 0, at);
        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
        yield c;
      }
      case 5 -> {
        int[] ends = java.util.stream.IntStream.range(0, b.length).filter(i -> b[i] >= 0).toArray();
        b[ends[random.nextInt(ends.length)]] = 0;
        yield b;
      }
      default -> {
        // a byte that may end a varint (a tag, a length, a value) continued by a zero byte: the
        // same number in a longer, non-canonical form when it did end one
        int[] ends = java.util.stream.IntStream.range(0, b.length).filter(i -> b[i] >= 0).toArray();
        int end = ends[random.nextInt(ends.length)];
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, end + 1);
        c[end] = (byte) (b[end] | 0x80);
        System.arraycopy(b, end + 1, c, end + 2, b.length - end - 1);
        yield c;
      }
    };
  }
}
