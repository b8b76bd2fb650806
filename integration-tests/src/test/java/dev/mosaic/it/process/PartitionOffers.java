package dev.mosaic.it.process;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.Database;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The offers one partition file holds, read from the file itself (each document's payload is a
 * {@link CarOffer}): what a searcher serving that file must answer. Stateless; thread safe.
 */
final class PartitionOffers {
  /** One offer as a query answer names it: its partner and its id. */
  record Offer(String partner, String offerId) {}

  private PartitionOffers() {}

  /** Every offer of the file, checksum verified first. */
  static Set<Offer> read(Path file) throws IOException {
    Set<Offer> out = new HashSet<>();
    try (Database db = Database.open(file, true)) {
      for (int d = 0; d < db.documentCount(); d++) {
        CarOffer o;
        try {
          o = CarOffer.parseFrom(db.payloadBytes(d));
        } catch (InvalidProtocolBufferException e) {
          throw new IOException(file + ": document " + d + " has no car offer payload", e);
        }
        out.add(new Offer(o.getPartnerId(), o.getOfferId()));
      }
    }
    return out;
  }
}
