package dev.mosaic.deploy;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated partner's listings, each kept as its serialized bytes: a few objects per listing
 * instead of a few dozen (strings, lists, the message), so that a simulator of millions of listings
 * leaves the garbage collector's marking little to walk in a JVM it shares with the nodes it feeds.
 * The listings are parsed back when they are read ({@link #unpack}), which the simulator does only
 * when it changes or publishes a partner.
 *
 * <p>Thread safety: immutable.
 */
final class PackedListings<T extends MessageLite> {
  private final Parser<? extends T> parser;
  private final byte[][] packed;

  private PackedListings(Parser<? extends T> parser, byte[][] packed) {
    this.parser = parser;
    this.packed = packed;
  }

  /** Packs {@code listings}; {@code parser} reads them back. */
  static <T extends MessageLite> PackedListings<T> of(
      List<T> listings, Parser<? extends T> parser) {
    byte[][] packed = new byte[listings.size()][];
    for (int i = 0; i < packed.length; i++) {
      packed[i] = listings.get(i).toByteArray();
    }
    return new PackedListings<>(parser, packed);
  }

  /** Number of listings. */
  int size() {
    return packed.length;
  }

  /** The listings, parsed, in order (a new mutable list). */
  List<T> unpack() {
    List<T> out = new ArrayList<>(packed.length);
    for (byte[] p : packed) {
      try {
        out.add(parser.parseFrom(p));
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("a packed listing does not parse back", e);
      }
    }
    return out;
  }
}
