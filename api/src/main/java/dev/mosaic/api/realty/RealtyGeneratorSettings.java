package dev.mosaic.api.realty;

import dev.mosaic.api.FeedMutation;
import java.time.Instant;
import java.util.Objects;

/**
 * Settings of a {@link RealtyOfferGenerator}.
 *
 * <p>Thread safety: immutable.
 *
 * @param seed the random seed: the same settings, the same offers
 * @param partners number of partners, 1..999, named {@code partner-001}...
 * @param duplicateShare share of offers that re-list a recent home under another partner, in [0, 1]
 * @param now the latest publication time; also the current year for building years
 * @param publishedWindowDays publication times spread over this many days before {@code now}, >= 1
 */
public record RealtyGeneratorSettings(
    long seed, int partners, double duplicateShare, Instant now, int publishedWindowDays) {
  /** Seed 1, 50 partners, 8% duplicates, 60 days to 2026-11-01. */
  public static final RealtyGeneratorSettings DEFAULTS =
      new RealtyGeneratorSettings(1, 50, 0.08, Instant.parse("2026-11-01T00:00:00Z"), 60);

  public RealtyGeneratorSettings {
    Objects.requireNonNull(now, "now");
    if (partners < 1 || partners > 999) {
      throw new IllegalArgumentException("partners must be in [1, 999], got " + partners);
    }
    FeedMutation.checkShare("duplicateShare", duplicateShare);
    if (publishedWindowDays < 1) {
      throw new IllegalArgumentException(
          "publishedWindowDays must be >= 1, got " + publishedWindowDays);
    }
  }

  /** These settings with another seed. */
  public RealtyGeneratorSettings withSeed(long seed) {
    return new RealtyGeneratorSettings(seed, partners, duplicateShare, now, publishedWindowDays);
  }

  /** These settings with another number of partners. */
  public RealtyGeneratorSettings withPartners(int partners) {
    return new RealtyGeneratorSettings(seed, partners, duplicateShare, now, publishedWindowDays);
  }

  /** These settings with another duplicate share. */
  public RealtyGeneratorSettings withDuplicateShare(double duplicateShare) {
    return new RealtyGeneratorSettings(seed, partners, duplicateShare, now, publishedWindowDays);
  }

  /** These settings with another latest publication time. */
  public RealtyGeneratorSettings withNow(Instant now) {
    return new RealtyGeneratorSettings(seed, partners, duplicateShare, now, publishedWindowDays);
  }
}
