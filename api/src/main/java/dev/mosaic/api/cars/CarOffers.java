package dev.mosaic.api.cars;

import dev.mosaic.api.FeedSnapshots;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Conversions of {@link CarOffer}s into feed messages and partition documents of {@link
 * CarsSchema#SCHEMA}.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class CarOffers {
  private CarOffers() {}

  /**
   * The indexed values of a car offer, one {@link FieldValue} per value of every field of {@link
   * CarsSchema#SCHEMA} (one per option for the multi-valued {@code options}), in schema order.
   * String fields the offer leaves empty are left out (they are FILTERABLE, so may be absent);
   * numeric fields are always present.
   */
  public static List<FieldValue> fieldValues(CarOffer car) {
    Objects.requireNonNull(car, "car");
    List<FieldValue> values = new ArrayList<>(13 + car.getOptionsCount());
    addString(values, CarsSchema.REGION, car.getRegion());
    addString(values, CarsSchema.MARK, car.getMark());
    addString(values, CarsSchema.MODEL, car.getModel());
    addString(values, CarsSchema.BODY_TYPE, car.getBodyType());
    addString(values, CarsSchema.COLOR, car.getColor());
    addString(values, CarsSchema.PARTNER, car.getPartnerId());
    addString(values, CarsSchema.OFFER_ID, car.getOfferId());
    addString(values, CarsSchema.DEDUP_KEY, car.getDedupKey());
    for (String option : car.getOptionsList()) {
      addString(values, CarsSchema.OPTIONS, option);
    }
    values.add(OfferDocuments.fieldValue(CarsSchema.YEAR, FieldType.INT, car.getYear()));
    values.add(OfferDocuments.fieldValue(CarsSchema.PRICE, FieldType.LONG, car.getPriceRub()));
    values.add(OfferDocuments.fieldValue(CarsSchema.MILEAGE, FieldType.INT, car.getMileageKm()));
    values.add(
        OfferDocuments.fieldValue(
            CarsSchema.PUBLISHED, FieldType.TIMESTAMP, car.getPublishedAtMillis()));
    return values;
  }

  /**
   * The feed offer of a car offer: partner, offer id and dedup key copied from it, its indexed
   * {@link #fieldValues}, and the car offer itself as payload.
   */
  public static Offer toOffer(CarOffer car, long observedAtMillis) {
    return Offer.newBuilder()
        .setPartnerId(car.getPartnerId())
        .setOfferId(car.getOfferId())
        .setDedupKey(car.getDedupKey())
        .addAllFields(fieldValues(car))
        .setCar(car)
        .setObservedAtMillis(observedAtMillis)
        .build();
  }

  /** The partition document of a car offer ({@link CarsSchema#SCHEMA}, payload the car offer). */
  public static Document toDocument(CarOffer car) {
    return OfferDocuments.toDocument(CarsSchema.SCHEMA, toOffer(car, 0L));
  }

  /**
   * Groups car offers into one full feed snapshot per partner (ordered by partner id; offers keep
   * their relative order), each offer observed at {@code createdAtMillis}.
   */
  public static List<FeedSnapshot> snapshotsByPartner(
      List<CarOffer> cars, long snapshotId, long createdAtMillis) {
    return FeedSnapshots.byPartner(
        cars.stream().map(car -> toOffer(car, createdAtMillis)).toList(),
        snapshotId,
        createdAtMillis);
  }

  private static void addString(List<FieldValue> values, String field, String value) {
    if (!value.isEmpty()) {
      values.add(FieldValue.newBuilder().setName(field).setStringValue(value).build());
    }
  }
}
