package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class BatchEndTest {
  @Test
  void markerRecordRoundTripsThroughItsHeaders() {
    BatchEnd end = new BatchEnd(0xfedcba9876543210L, 17, 3);
    ProducerRecord<byte[], byte[]> r = end.toRecord("offers", 5);
    assertThat(r.partition()).isEqualTo(5);
    assertThat(r.value()).isNull();
    assertThat(new String(r.key(), StandardCharsets.US_ASCII))
        .isEqualTo("batch-end|fedcba9876543210");
    assertThat(BatchEnd.isMarker(r.key())).isTrue();
    assertThat(BatchEnd.of(r.headers())).isEqualTo(end);
    assertThat(end.records()).isEqualTo(20);
  }

  @Test
  void offerKeysAreNotMarkers() {
    assertThat(BatchEnd.isMarker(OfferKeys.recordKey(12, "partner-1", "offer-1"))).isFalse();
    assertThat(BatchEnd.isMarker(null)).isFalse();
  }

  @Test
  void recordWithoutBatchHeaderIsOutsideABatch() {
    assertThat(BatchEnd.batchOf(new RecordHeaders())).isEqualTo(BatchEnd.NONE);
  }

  @Test
  void malformedHeadersAreNamedInTheError() {
    RecordHeaders badId = new RecordHeaders();
    badId.add(BatchEnd.BATCH_HEADER, "xyz".getBytes(StandardCharsets.US_ASCII));
    assertThatThrownBy(() -> BatchEnd.batchOf(badId))
        .hasMessageContaining("mosaic.batch must be 16 hex digits, got 'xyz'");

    RecordHeaders noCounts = new RecordHeaders();
    noCounts.add(BatchEnd.BATCH_HEADER, BatchEnd.batchHeaderValue(7));
    assertThatThrownBy(() -> BatchEnd.of(noCounts))
        .hasMessageContaining("without a mosaic.batch.upserts header");

    RecordHeaders badCount = new RecordHeaders();
    badCount.add(BatchEnd.BATCH_HEADER, BatchEnd.batchHeaderValue(7));
    badCount.add(BatchEnd.UPSERTS_HEADER, "-1".getBytes(StandardCharsets.US_ASCII));
    badCount.add(BatchEnd.TOMBSTONES_HEADER, "0".getBytes(StandardCharsets.US_ASCII));
    assertThatThrownBy(() -> BatchEnd.of(badCount))
        .hasMessageContaining(
            "mosaic.batch.upserts must be a non-negative decimal count, got '-1'");
  }
}
