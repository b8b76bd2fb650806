package dev.mosaic.api.realty;

import dev.mosaic.api.FeedMutation;
import dev.mosaic.api.ListingGenerator;
import dev.mosaic.api.Zipf;
import dev.mosaic.api.feed.RealtyOffer;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic generator of realistic realty offers (apartments and houses, for sale and for
 * rent) for tests, feed simulation and benchmarks.
 *
 * <p>The same settings give the same sequence of offers, on any machine. Distributions are skewed
 * the way classifieds are: cities, districts within a city, metro stations and partners follow
 * Zipf-like laws; 88% of offers are apartments; a third of apartments and a tenth of houses are for
 * rent. Apartments have 0 (studio) to 5 rooms, one- and two-room ones most common, an area growing
 * with the rooms, a building year from one of the housing eras (pre-1956 brick, 1956–1970
 * five-storey, 1971–1990 panel, 1991–2010, and new builds, the largest share), a number of floors
 * typical of the era and a floor within it; most have a nearest metro station where the city has a
 * metro. Houses have 3–8 rooms, 1–3 floors, no floor of their own and no metro, and lean to outer
 * districts. Sale prices are the area times the city's price per square metre, higher in central
 * districts and new builds, with a log-normal spread, rounded to 10,000 rubles; rents are about
 * 0.45% of that a month, rounded to 1,000. Publication times spread over the window before {@code
 * now}, denser near it. Every offer has a description, 3–20 image URLs and a few features.
 *
 * <p>Duplicates: with probability {@code duplicateShare} an offer is the same home as one of the
 * recent offers, listed by another partner: same dedup key, deal, type, rooms, area, floors,
 * address and year, a price within ±3%, its own offer id. Other offers get a new dedup key ({@code
 * realty-<16 hex digits>}). Offer ids are unique per generator: {@code <partner>-<sequence>}.
 *
 * <p>Thread safety: not thread safe (it holds the random state); use one per thread.
 */
public final class RealtyOfferGenerator extends ListingGenerator<RealtyOffer> {
  /** Cities by popularity: districts (central first), metro stations, price per m² for sale. */
  private static final City[] CITIES = {
    new City(
        "moskva",
        320_000,
        new String[] {
          "tsentralnyy", "zapadnyy", "yugo-zapadnyy", "severo-zapadnyy", "severnyy",
          "severo-vostochnyy", "vostochnyy", "yugo-vostochnyy", "yuzhnyy", "novomoskovskiy"
        },
        new String[] {
          "kurskaya", "park-kultury", "belorusskaya", "vdnkh", "sokolniki", "kievskaya",
          "tulskaya", "profsoyuznaya", "kolomenskaya", "vykhino", "mitino", "altufyevo"
        }),
    new City(
        "sankt-peterburg",
        210_000,
        new String[] {
          "tsentralnyy", "petrogradskiy", "vasileostrovskiy", "moskovskiy", "primorskiy",
          "vyborgskiy", "kalininskiy", "nevskiy", "frunzenskiy", "krasnoselskiy"
        },
        new String[] {
          "nevskiy-prospekt", "petrogradskaya", "vasileostrovskaya", "moskovskaya",
          "chyornaya-rechka", "prospekt-prosveshcheniya", "ploshchad-muzhestva", "ladozhskaya",
          "kupchino", "prospekt-veteranov"
        }),
    new City(
        "novosibirsk",
        120_000,
        new String[] {"tsentralnyy", "zheleznodorozhnyy", "oktyabrskiy", "leninskiy", "kirovskiy"},
        new String[] {"ploshchad-lenina", "krasnyy-prospekt", "oktyabrskaya", "studencheskaya"}),
    new City(
        "yekaterinburg",
        130_000,
        new String[] {
          "leninskiy", "verkh-isetskiy", "oktyabrskiy", "kirovskiy", "ordzhonikidzevskiy"
        },
        new String[] {"ploshchad-1905-goda", "dinamo", "geologicheskaya", "uralmash"}),
    new City(
        "kazan",
        150_000,
        new String[] {"vakhitovskiy", "sovetskiy", "novo-savinovskiy", "privolzhskiy", "kirovskiy"},
        new String[] {"kremlyovskaya", "tukay-square", "kozya-sloboda", "prospekt-pobedy"}),
    new City(
        "nizhniy-novgorod",
        115_000,
        new String[] {
          "nizhegorodskiy", "sovetskiy", "kanavinskiy", "prioksky", "avtozavodskiy", "sormovskiy"
        },
        new String[] {"gorkovskaya", "moskovskaya", "leninskaya", "burnakovskaya"}),
    new City(
        "krasnodar",
        110_000,
        new String[] {"tsentralnyy", "zapadnyy", "karasunskiy", "prikubanskiy"},
        new String[] {}),
    new City(
        "samara",
        100_000,
        new String[] {"leninskiy", "oktyabrskiy", "sovetskiy", "promyshlennyy", "kirovskiy"},
        new String[] {"alabinskaya", "gagarinskaya", "sportivnaya", "pobeda"}),
    new City(
        "voronezh",
        90_000,
        new String[] {"tsentralnyy", "leninskiy", "kominternovskiy", "levoberezhnyy"},
        new String[] {}),
    new City(
        "sochi",
        280_000,
        new String[] {"tsentralnyy", "khostinskiy", "adlerskiy", "lazarevskiy"},
        new String[] {})
  };

  /** Apartment room counts 0 (studio) .. 5 and their shares. */
  private static final double[] ROOM_SHARES = {0.10, 0.33, 0.32, 0.18, 0.05, 0.02};

  /** Mean apartment area in m² by room count. */
  private static final double[] ROOM_AREAS = {26, 38, 55, 76, 102, 135};

  /** Housing eras: first and last building year (the last relative to now when 0), share. */
  private static final Era[] ERAS = {
    new Era(1930, 1955, 0.07, 4, 8, 1.10),
    new Era(1956, 1970, 0.16, 4, 5, 0.85),
    new Era(1971, 1990, 0.24, 9, 16, 0.92),
    new Era(1991, 2010, 0.16, 9, 17, 1.00),
    new Era(2011, 0, 0.37, 12, 30, 1.12)
  };

  private static final String[] APARTMENT_FEATURES = {
    "balcony",
    "elevator",
    "renovated",
    "parking",
    "furnished",
    "washing-machine",
    "internet",
    "dishwasher",
    "concierge",
    "air-conditioning"
  };

  private static final String[] HOUSE_FEATURES = {
    "garden", "parking", "garage", "gas", "sauna", "furnished", "internet", "fireplace"
  };

  private static final String[] RENT_FEATURES = {"children-allowed", "pets-allowed"};

  private static final String[] OPENINGS = {
    "Bright and quiet home, windows to the yard, owner selling directly.",
    "Well kept home in a developed neighbourhood with schools and shops nearby.",
    "Spacious layout, high ceilings, all documents ready for a quick deal.",
    "Cozy home with a fresh renovation, move in and live.",
    "Agency offer: checked legal history, one adult owner, no encumbrances."
  };

  private static final String[] DETAILS = {
    " New windows and radiators, warm in winter.",
    " Kitchen with built-in appliances stays with the home.",
    " Parks and a playground within a five minute walk.",
    " Separate bathroom, tiles laid last year.",
    " Friendly neighbours, clean entrance with a code lock.",
    " Storage room and built-in wardrobes.",
    " Good transport links, the centre in twenty minutes."
  };

  private static final String[] CLOSINGS = {
    " Viewing any day after a call.",
    " Mortgage and maternity capital accepted.",
    " Long-term tenants preferred.",
    " Agents please do not call."
  };

  private final long nowMillis;
  private final int nowYear;
  private final long windowMillis;
  private final Zipf cities = new Zipf(CITIES.length, 1.0);
  private final Zipf[] districts;
  private final Zipf[] metros;

  /** A generator with those settings. */
  public RealtyOfferGenerator(RealtyGeneratorSettings settings) {
    super(settings.seed(), settings.partners(), settings.duplicateShare());
    this.nowMillis = settings.now().toEpochMilli();
    this.nowYear = settings.now().atZone(ZoneOffset.UTC).getYear();
    this.windowMillis = settings.publishedWindowDays() * 86_400_000L;
    this.districts = new Zipf[CITIES.length];
    this.metros = new Zipf[CITIES.length];
    for (int i = 0; i < CITIES.length; i++) {
      districts[i] = new Zipf(CITIES[i].districts.length, 0.7);
      metros[i] = CITIES[i].metros.length == 0 ? null : new Zipf(CITIES[i].metros.length, 0.6);
    }
  }

  /** A generator with {@link RealtyGeneratorSettings#DEFAULTS} and that seed. */
  public static RealtyOfferGenerator seeded(long seed) {
    return new RealtyOfferGenerator(RealtyGeneratorSettings.DEFAULTS.withSeed(seed));
  }

  /** All cities, most popular first. */
  public static List<String> cities() {
    return Arrays.stream(CITIES).map(c -> c.name).toList();
  }

  /** The districts of a city, central first (empty for an unknown city). */
  public static List<String> districts(String city) {
    return Arrays.stream(CITIES)
        .filter(c -> c.name.equals(city))
        .findFirst()
        .map(c -> List.of(c.districts))
        .orElse(List.of());
  }

  /** The metro stations of a city (empty for a city without metro, or an unknown one). */
  public static List<String> metroStations(String city) {
    return Arrays.stream(CITIES)
        .filter(c -> c.name.equals(city))
        .findFirst()
        .map(c -> List.of(c.metros))
        .orElse(List.of());
  }

  /** Every feature an offer can list. */
  public static List<String> features() {
    List<String> all = new ArrayList<>(List.of(APARTMENT_FEATURES));
    for (String f : HOUSE_FEATURES) {
      if (!all.contains(f)) {
        all.add(f);
      }
    }
    all.addAll(List.of(RENT_FEATURES));
    return List.copyOf(all);
  }

  /**
   * A later version of a snapshot (see {@link FeedMutation}): a changed offer gets a new price (-8%
   * .. +3%) and sometimes a new description, keeping its offer id and dedup key.
   */
  @Override
  public List<RealtyOffer> mutate(
      List<RealtyOffer> snapshot, double changeShare, double removeShare, double addShare) {
    return super.mutate(snapshot, changeShare, removeShare, addShare);
  }

  @Override
  protected RealtyOffer changed(RealtyOffer offer) {
    RealtyOffer.Builder b = offer.toBuilder();
    double factor = 1 + (random.nextDouble() * 0.11 - 0.08);
    b.setPriceRub(roundPrice(offer.getDealType(), (long) (offer.getPriceRub() * factor)));
    if (random.nextInt(4) == 0) {
      b.setDescription(description());
    }
    return b.build();
  }

  @Override
  protected RealtyOffer newListing() {
    int cityIndex = cities.sample(random);
    City city = CITIES[cityIndex];
    boolean house = random.nextDouble() < 0.12;
    boolean rent = random.nextDouble() < (house ? 0.10 : 0.33);
    RealtyOffer.Builder b =
        RealtyOffer.newBuilder()
            .setDealType(rent ? "rent" : "sale")
            .setPropertyType(house ? "house" : "apartment")
            .setCity(city.name)
            .setDedupKey(String.format("realty-%016x", random.nextLong()));
    int districtRank = districts[cityIndex].sample(random);
    if (house) {
      // Houses lean to the outer districts: reverse the district ranking.
      districtRank = city.districts.length - 1 - districtRank;
      int rooms = 3;
      while (rooms < 8 && random.nextDouble() < 0.45) {
        rooms++;
      }
      b.setRooms(rooms)
          .setAreaM2(round1((60 + rooms * 25) * Math.exp(random.nextGaussian() * 0.25)))
          .setFloorsTotal(1 + random.nextInt(3))
          .setBuildingYear(nowYear - houseAge());
    } else {
      int rooms = pick(ROOM_SHARES);
      Era era = ERAS[pick(eraShares())];
      int floors = era.minFloors + random.nextInt(era.maxFloors - era.minFloors + 1);
      b.setRooms(rooms)
          .setAreaM2(round1(ROOM_AREAS[rooms] * Math.exp(random.nextGaussian() * 0.15)))
          .setFloorsTotal(floors)
          .setFloor(1 + random.nextInt(floors))
          .setBuildingYear(era.year(random, nowYear));
      if (metros[cityIndex] != null && random.nextDouble() < 0.8) {
        b.setMetroStation(city.metros[metros[cityIndex].sample(random)]);
      }
    }
    b.setDistrict(city.districts[districtRank]);
    double districtFactor = 1.5 - 0.7 * districtRank / Math.max(1, city.districts.length - 1);
    double eraFactor = house ? 0.6 : eraOf(b.getBuildingYear()).priceFactor;
    double sale =
        b.getAreaM2()
            * city.pricePerM2
            * districtFactor
            * eraFactor
            * Math.exp(random.nextGaussian() * 0.15);
    long price =
        rent ? (long) (sale * 0.0045 * Math.exp(random.nextGaussian() * 0.1)) : (long) sale;
    b.setPriceRub(roundPrice(b.getDealType(), price));
    return offer(b, pickPartner());
  }

  @Override
  protected RealtyOffer duplicateOf(RealtyOffer original) {
    int partner = otherPartner(original.getPartnerId());
    long price =
        roundPrice(
            original.getDealType(),
            (long) (original.getPriceRub() * (1 + random.nextDouble() * 0.06 - 0.03)));
    RealtyOffer.Builder b =
        original.toBuilder().clearFeatures().clearImageUrls().setPriceRub(price);
    return offer(b, partner);
  }

  /** Fills the per-listing parts: partner, offer id, publication, description, images, features. */
  private RealtyOffer offer(RealtyOffer.Builder b, int partner) {
    String offerId = nextOfferId(partner);
    b.setPartnerId(partnerId(partner)).setOfferId(offerId);
    double u = random.nextDouble();
    b.setPublishedAtMillis(nowMillis - (long) (u * u * windowMillis) - random.nextInt(1000));
    b.setDescription(description());
    int images = 3 + random.nextInt(18);
    for (int i = 1; i <= images; i++) {
      b.addImageUrls("https://img.mosaic.example/realty/" + offerId + "/" + i + ".jpg");
    }
    boolean house = b.getPropertyType().equals("house");
    String[] features = house ? HOUSE_FEATURES : APARTMENT_FEATURES;
    for (int i = 0; i < features.length; i++) {
      boolean elevator = features[i].equals("elevator");
      if (elevator ? b.getFloorsTotal() > 5 : random.nextDouble() < 0.55 / (1 + i / 3.0)) {
        b.addFeatures(features[i]);
      }
    }
    if (b.getDealType().equals("rent")) {
      for (String f : RENT_FEATURES) {
        if (random.nextDouble() < 0.3) {
          b.addFeatures(f);
        }
      }
    }
    return b.build();
  }

  private String description() {
    StringBuilder s = new StringBuilder(300);
    s.append(OPENINGS[random.nextInt(OPENINGS.length)]);
    int details = 2 + random.nextInt(3);
    int start = random.nextInt(DETAILS.length);
    for (int i = 0; i < details; i++) {
      s.append(DETAILS[(start + i * 3) % DETAILS.length]);
    }
    s.append(CLOSINGS[random.nextInt(CLOSINGS.length)]);
    return s.toString();
  }

  /** House age in years, 0..60, leaning recent: geometric with mean about 12. */
  private int houseAge() {
    int age = 0;
    while (age < 60 && random.nextDouble() < 0.92) {
      age++;
    }
    return age;
  }

  private int pick(double[] shares) {
    double r = random.nextDouble();
    for (int i = 0; i < shares.length - 1; i++) {
      r -= shares[i];
      if (r < 0) {
        return i;
      }
    }
    return shares.length - 1;
  }

  private static double[] eraShares() {
    return Arrays.stream(ERAS).mapToDouble(e -> e.share).toArray();
  }

  private Era eraOf(int year) {
    for (Era e : ERAS) {
      if (year <= (e.last == 0 ? nowYear : e.last)) {
        return e;
      }
    }
    return ERAS[ERAS.length - 1];
  }

  private static double round1(double area) {
    return Math.round(area * 10) / 10.0;
  }

  private static long roundPrice(String dealType, long price) {
    return dealType.equals("rent")
        ? Math.max(8_000L, Math.round(price / 1_000.0) * 1_000L)
        : Math.max(500_000L, Math.round(price / 10_000.0) * 10_000L);
  }

  private record City(String name, long pricePerM2, String[] districts, String[] metros) {}

  /**
   * A housing era: building years {@code first..last} ({@code last} 0: up to now), its share of
   * apartments, the floors its buildings have, and how it moves the price per m².
   */
  private record Era(
      int first, int last, double share, int minFloors, int maxFloors, double priceFactor) {
    int year(SplittableRandom random, int nowYear) {
      if (last != 0) {
        return first + random.nextInt(last - first + 1);
      }
      // New builds lean to the latest years.
      double u = random.nextDouble();
      return nowYear - (int) (u * u * (nowYear - first + 1));
    }
  }
}
