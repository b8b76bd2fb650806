package dev.mosaic.api.cars;

import dev.mosaic.api.FeedMutation;
import dev.mosaic.api.ListingGenerator;
import dev.mosaic.api.Zipf;
import dev.mosaic.api.feed.CarOffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A deterministic generator of realistic car offers for tests, feed simulation and benchmarks.
 *
 * <p>The same builder settings give the same sequence of offers, on any machine. Distributions are
 * skewed the way classifieds are: regions, marks, models within a mark, body types, colors and
 * partners follow Zipf-like laws (a few values hold most offers); years lean recent; prices depend
 * on the mark's class, the age and a log-normal spread; mileage grows with age; publication times
 * spread over the {@link Builder#publishedWindowDays} days before {@link Builder#now}, denser near
 * it. Every offer carries a description of a few hundred bytes, 2–12 image URLs and a few equipment
 * options.
 *
 * <p>Duplicates: with probability {@link Builder#duplicateShare} an offer is the same car as one of
 * the recent offers, listed by another partner: same dedup key, mark, model, year, body, color and
 * region, a slightly different price and mileage, its own offer id. Other offers get a new dedup
 * key.
 *
 * <p>Offer ids are unique per generator: {@code <partner>-<sequence>}.
 *
 * <p>Thread safety: not thread safe (it holds the random state); use one per thread.
 */
public final class CarOfferGenerator extends ListingGenerator<CarOffer> {
  private static final String[] REGIONS = {
    "moskva",
    "sankt-peterburg",
    "moskovskaya-oblast",
    "krasnodarskiy-kray",
    "sverdlovskaya-oblast",
    "tatarstan",
    "novosibirskaya-oblast",
    "rostovskaya-oblast",
    "bashkortostan",
    "chelyabinskaya-oblast",
    "samarskaya-oblast",
    "nizhegorodskaya-oblast",
    "krasnoyarskiy-kray",
    "permskiy-kray",
    "voronezhskaya-oblast",
    "volgogradskaya-oblast",
    "omskaya-oblast",
    "saratovskaya-oblast",
    "tyumenskaya-oblast",
    "irkutskaya-oblast",
    "primorskiy-kray",
    "leningradskaya-oblast",
    "altayskiy-kray",
    "stavropolskiy-kray",
    "orenburgskaya-oblast",
    "kemerovskaya-oblast",
    "khabarovskiy-kray",
    "yaroslavskaya-oblast",
    "tulskaya-oblast",
    "udmurtiya",
    "kaliningradskaya-oblast",
    "belgorodskaya-oblast",
    "tverskaya-oblast",
    "vladimirskaya-oblast",
    "kurskaya-oblast",
    "ryazanskaya-oblast",
    "penzenskaya-oblast",
    "lipetskaya-oblast",
    "ulyanovskaya-oblast",
    "kaluzhskaya-oblast"
  };

  /** Marks by popularity, each with its models by popularity and a new-car base price in rubles. */
  private static final Mark[] MARKS = {
    new Mark("lada", 1_100_000, "vesta", "granta", "niva", "largus", "xray", "priora", "kalina"),
    new Mark("toyota", 3_500_000, "camry", "rav4", "corolla", "land-cruiser", "highlander"),
    new Mark("kia", 2_400_000, "rio", "sportage", "ceed", "optima", "sorento", "k5", "soul"),
    new Mark("hyundai", 2_400_000, "solaris", "creta", "tucson", "elantra", "santa-fe", "sonata"),
    new Mark("volkswagen", 2_800_000, "polo", "tiguan", "passat", "golf", "jetta", "touareg"),
    new Mark("renault", 1_800_000, "logan", "duster", "sandero", "kaptur", "arkana", "megane"),
    new Mark("skoda", 2_600_000, "octavia", "rapid", "kodiaq", "superb", "karoq", "fabia"),
    new Mark("nissan", 2_500_000, "qashqai", "x-trail", "almera", "terrano", "juke", "murano"),
    new Mark("mercedes-benz", 6_500_000, "e-class", "c-class", "gle", "s-class", "glc", "a-class"),
    new Mark("bmw", 6_000_000, "x5", "3-series", "5-series", "x3", "x6", "7-series", "x1"),
    new Mark("ford", 2_200_000, "focus", "kuga", "mondeo", "fiesta", "explorer", "ecosport"),
    new Mark("chevrolet", 1_900_000, "niva", "cruze", "aveo", "lacetti", "cobalt", "tahoe"),
    new Mark("mitsubishi", 2_700_000, "outlander", "lancer", "pajero-sport", "asx", "l200"),
    new Mark("audi", 5_200_000, "a6", "q5", "a4", "q7", "a3", "q3", "a8"),
    new Mark("mazda", 3_000_000, "cx-5", "6", "3", "cx-9", "cx-30"),
    new Mark("haval", 2_600_000, "jolion", "f7", "h6", "dargo", "h9"),
    new Mark("geely", 2_500_000, "coolray", "monjaro", "atlas", "tugella", "emgrand"),
    new Mark("chery", 2_300_000, "tiggo-7-pro", "tiggo-4", "tiggo-8", "arrizo-8"),
    new Mark("honda", 2_900_000, "cr-v", "civic", "accord", "pilot", "fit"),
    new Mark("lexus", 6_800_000, "rx", "nx", "lx", "es", "gx"),
    new Mark("volvo", 4_800_000, "xc90", "xc60", "s60", "xc40", "v90"),
    new Mark("peugeot", 2_100_000, "308", "3008", "408", "206", "partner"),
    new Mark("opel", 1_900_000, "astra", "corsa", "insignia", "mokka", "zafira"),
    new Mark("subaru", 3_200_000, "forester", "outback", "xv", "impreza", "legacy"),
    new Mark("land-rover", 7_500_000, "range-rover", "discovery", "defender", "evoque"),
    new Mark("porsche", 11_000_000, "cayenne", "macan", "panamera", "911")
  };

  private static final String[] BODY_TYPES = {
    "sedan",
    "suv",
    "hatchback",
    "liftback",
    "wagon",
    "minivan",
    "coupe",
    "pickup",
    "van",
    "convertible"
  };

  private static final String[] COLORS = {
    "white",
    "black",
    "silver",
    "grey",
    "blue",
    "red",
    "brown",
    "green",
    "beige",
    "burgundy",
    "yellow",
    "orange",
    "gold",
    "purple"
  };

  private static final String[] OPTIONS = {
    "air-conditioning",
    "heated-seats",
    "cruise-control",
    "parking-sensors",
    "rear-camera",
    "navigation",
    "leather",
    "climate-control",
    "sunroof",
    "alloy-wheels",
    "keyless-entry",
    "heated-steering-wheel",
    "xenon",
    "led-headlights",
    "panoramic-roof",
    "adaptive-cruise",
    "lane-assist",
    "blind-spot-monitor",
    "third-row",
    "tow-hitch"
  };

  private static final String[] OPENINGS = {
    "Selling my car, one owner, full service history at the official dealer.",
    "Car in excellent condition, garage kept, never been in an accident.",
    "Honest sale: real mileage, all maintenance on time, original paint.",
    "Reliable family car, bought new in the region, two keys, all documents.",
    "Trade-in offer from a certified dealer, checked on 120 points, warranty available.",
    "Urgent sale because of relocation, price is negotiable for a quick deal."
  };

  private static final String[] DETAILS = {
    " Engine runs smooth, no oil leaks, gearbox shifts without jerks.",
    " Winter tyres on rims included, summer set installed last month.",
    " Interior is clean, no smoking, seats without wear, all electrics work.",
    " Recently replaced timing belt, brake pads and discs, fresh oil and filters.",
    " Body checked with a thickness gauge, two elements repainted after minor scratches.",
    " Suspension is quiet, alignment done, new battery this year.",
    " Multimedia with Android Auto and Apple CarPlay, good speakers.",
    " Low fuel consumption in the city, perfect for daily commuting.",
    " Ready to drive, no investments needed, inspection at any service is welcome."
  };

  private static final String[] CLOSINGS = {
    " Call any time, no text messages please.",
    " Possible exchange for a cheaper car with your extra payment.",
    " Credit and leasing available, we help with registration.",
    " Viewing on weekends near the metro, test drive after a call.",
    " Resellers please do not bother."
  };

  private final long nowMillis;
  private final long windowMillis;
  private final Zipf regions = new Zipf(REGIONS.length, 1.1);
  private final Zipf marks = new Zipf(MARKS.length, 0.9);
  private final Zipf[] models;
  private final Zipf bodies = new Zipf(BODY_TYPES.length, 1.2);
  private final Zipf colors = new Zipf(COLORS.length, 1.1);

  private CarOfferGenerator(Builder b) {
    super(b.seed, b.partners, b.duplicateShare);
    this.nowMillis = b.now.toEpochMilli();
    this.windowMillis = b.publishedWindowDays * 86_400_000L;
    this.models = new Zipf[MARKS.length];
    for (int i = 0; i < MARKS.length; i++) {
      models[i] = new Zipf(MARKS[i].models.length, 1.0);
    }
  }

  /** A builder with the defaults: seed 1, 50 partners, 10% duplicates, 60 days to 2026-11-01. */
  public static Builder builder() {
    return new Builder();
  }

  /** All regions, most popular first. */
  public static List<String> regions() {
    return List.of(REGIONS);
  }

  /** All marks, most popular first. */
  public static List<String> marks() {
    return Arrays.stream(MARKS).map(m -> m.name).toList();
  }

  /** The models of a mark, most popular first (empty for an unknown mark). */
  public static List<String> models(String mark) {
    for (Mark m : MARKS) {
      if (m.name.equals(mark)) {
        return List.of(m.models);
      }
    }
    return List.of();
  }

  /** All body types, most popular first. */
  public static List<String> bodyTypes() {
    return List.of(BODY_TYPES);
  }

  /** All colors, most popular first. */
  public static List<String> colors() {
    return List.of(COLORS);
  }

  /** All equipment options. */
  public static List<String> options() {
    return List.of(OPTIONS);
  }

  /**
   * A later version of a snapshot, as a feed would show it: each offer is removed with probability
   * {@code removeShare}, else changed with probability {@code changeShare} (new price, more
   * mileage, sometimes a new description; same offer id and dedup key), else kept as is; then
   * {@code round(addShare * snapshot.size())} new offers are appended. Survivors keep their order.
   */
  @Override
  public List<CarOffer> mutate(
      List<CarOffer> snapshot, double changeShare, double removeShare, double addShare) {
    return super.mutate(snapshot, changeShare, removeShare, addShare);
  }

  @Override
  protected CarOffer changed(CarOffer offer) {
    CarOffer.Builder b = offer.toBuilder();
    double factor = 1 + (random.nextDouble() * 0.16 - 0.1); // -10% .. +6%
    b.setPriceRub(roundPrice((long) (offer.getPriceRub() * factor)));
    b.setMileageKm(offer.getMileageKm() + random.nextInt(50, 3000));
    if (random.nextInt(4) == 0) {
      b.setDescription(description());
    }
    return b.build();
  }

  @Override
  protected CarOffer newListing() {
    int markIndex = marks.sample(random);
    Mark mark = MARKS[markIndex];
    String model = mark.models[models[markIndex].sample(random)];
    int age = age();
    int year = Instant.ofEpochMilli(nowMillis).atZone(java.time.ZoneOffset.UTC).getYear() - age;
    int mileage =
        age == 0
            ? random.nextInt(0, 1500)
            : (int) (age * 15_000 * Math.exp(random.nextGaussian() * 0.35));
    double depreciation = Math.pow(0.87, age);
    long price =
        roundPrice((long) (mark.basePrice * depreciation * Math.exp(random.nextGaussian() * 0.25)));
    String dedupKey = String.format("car-%016x", random.nextLong());
    return offer(
        CarOffer.newBuilder()
            .setMark(mark.name)
            .setModel(model)
            .setYear(year)
            .setPriceRub(price)
            .setMileageKm(mileage)
            .setRegion(REGIONS[regions.sample(random)])
            .setBodyType(BODY_TYPES[bodies.sample(random)])
            .setColor(COLORS[colors.sample(random)])
            .setDedupKey(dedupKey),
        pickPartner());
  }

  @Override
  protected CarOffer duplicateOf(CarOffer original) {
    int partner = otherPartner(original.getPartnerId());
    long price =
        roundPrice((long) (original.getPriceRub() * (1 + random.nextDouble() * 0.1 - 0.05)));
    CarOffer.Builder b =
        original.toBuilder()
            .clearOptions()
            .clearImageUrls()
            .setPriceRub(price)
            .setMileageKm(original.getMileageKm() + random.nextInt(0, 500));
    return offer(b, partner);
  }

  /** Fills the per-listing parts: partner, offer id, publication, description, images, options. */
  private CarOffer offer(CarOffer.Builder b, int partner) {
    String offerId = nextOfferId(partner);
    b.setPartnerId(partnerId(partner)).setOfferId(offerId);
    // Denser near now: the square of a uniform variable leans towards 0.
    double u = random.nextDouble();
    b.setPublishedAtMillis(nowMillis - (long) (u * u * windowMillis) - random.nextInt(1000));
    b.setDescription(description());
    int images = 2 + random.nextInt(11);
    for (int i = 1; i <= images; i++) {
      b.addImageUrls("https://img.mosaic.example/cars/" + offerId + "/" + i + ".jpg");
    }
    for (int i = 0; i < OPTIONS.length; i++) {
      // Common options first: option i is present with probability 0.6 / (1 + i / 4).
      if (random.nextDouble() < 0.6 / (1 + i / 4.0)) {
        b.addOptions(OPTIONS[i]);
      }
    }
    return b.build();
  }

  private String description() {
    StringBuilder s = new StringBuilder(400);
    s.append(OPENINGS[random.nextInt(OPENINGS.length)]);
    int details = 2 + random.nextInt(4);
    int start = random.nextInt(DETAILS.length);
    for (int i = 0; i < details; i++) {
      s.append(DETAILS[(start + i * 2) % DETAILS.length]);
    }
    s.append(CLOSINGS[random.nextInt(CLOSINGS.length)]);
    return s.toString();
  }

  /** Age in years, 0..25, leaning recent: geometric with mean about 6. */
  private int age() {
    int age = 0;
    while (age < 25 && random.nextDouble() < 0.85) {
      age++;
    }
    return age;
  }

  private static long roundPrice(long price) {
    return Math.max(30_000L, Math.round(price / 5_000.0) * 5_000L);
  }

  private record Mark(String name, long basePrice, String... models) {}

  /** Settings of a {@link CarOfferGenerator}. Not thread safe. */
  public static final class Builder {
    private long seed = 1;
    private int partners = 50;
    private double duplicateShare = 0.1;
    private Instant now = Instant.parse("2026-11-01T00:00:00Z");
    private int publishedWindowDays = 60;

    private Builder() {}

    /** The random seed (default 1): the same seed, the same offers. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Number of partners, 1..999 (default 50), named {@code partner-001}... */
    public Builder partners(int partners) {
      if (partners < 1 || partners > 999) {
        throw new IllegalArgumentException("partners must be in [1, 999], got " + partners);
      }
      this.partners = partners;
      return this;
    }

    /** Share of offers that re-list a recent car under another partner (default 0.1). */
    public Builder duplicateShare(double duplicateShare) {
      FeedMutation.checkShare("duplicateShare", duplicateShare);
      this.duplicateShare = duplicateShare;
      return this;
    }

    /** The latest publication time (default 2026-11-01T00:00:00Z); also fixes model years. */
    public Builder now(Instant now) {
      this.now = Objects.requireNonNull(now, "now");
      return this;
    }

    /** Publication times spread over this many days before {@link #now} (default 60). */
    public Builder publishedWindowDays(int days) {
      if (days < 1) {
        throw new IllegalArgumentException("publishedWindowDays must be >= 1, got " + days);
      }
      this.publishedWindowDays = days;
      return this;
    }

    /** The generator. */
    public CarOfferGenerator build() {
      return new CarOfferGenerator(this);
    }
  }
}
