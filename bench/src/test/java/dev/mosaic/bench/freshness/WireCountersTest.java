package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.transport.impl.TransportMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WireCountersTest {

  @Test
  void crossDcBytesAreTheSentBytesBetweenDifferentDatacentersOverEveryNode() {
    SimpleMeterRegistry indexer = new SimpleMeterRegistry();
    SimpleMeterRegistry searcher = new SimpleMeterRegistry();
    TransportMetrics entry = new TransportMetrics(indexer);
    TransportMetrics relay = new TransportMetrics(searcher);

    entry.bytesSent("dc-a", "dc-b", 1000);
    entry.bytesSent("dc-a", "dc-a", 5000); // stays in its datacenter
    relay.bytesReceived("dc-a", "dc-b", 1000); // the same bytes, seen by the receiver
    relay.bytesSent("dc-b", "dc-b", 1000);
    entry.copySent("full", "dc-a", "dc-b");
    entry.copySent("full", "dc-a", "dc-a");
    entry.copySent("delta", "dc-a", "dc-b"); // a change set is not a full copy
    relay.copySent("full", "dc-b", "dc-b");
    relay.delivery("relay", true, Duration.ofMillis(5)); // received, counted by its sender

    WireCounters.Reading before = WireCounters.read(List.of(indexer, searcher));
    assertThat(before.crossDcBytes()).isEqualTo(1000);
    assertThat(before.fullCopies()).as("whole files sent by every node").isEqualTo(3);
    assertThat(before.bytesSentByKind()).isEmpty();

    entry.bytesSent("dc-b", "dc-a", 300);
    relay.copySent("full", "dc-b", "dc-a"); // a catch-up fetch served
    relay.copySent("delta", "dc-b", "dc-b");
    WireCounters.Reading cycle = WireCounters.read(List.of(indexer, searcher)).minus(before);
    assertThat(cycle.crossDcBytes()).isEqualTo(300);
    assertThat(cycle.fullCopies()).isEqualTo(1);
  }

  @Test
  void bytesSentByKindAreSummedWhenTheTransportReportsThem() {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    Counter.builder(WireCounters.BYTES_SENT_BY_KIND).tag("kind", "delta").register(r).increment(70);
    Counter.builder(WireCounters.BYTES_SENT_BY_KIND).tag("kind", "full").register(r).increment(900);
    SimpleMeterRegistry other = new SimpleMeterRegistry();
    Counter.builder(WireCounters.BYTES_SENT_BY_KIND)
        .tag("kind", "delta")
        .register(other)
        .increment(30);

    assertThat(WireCounters.read(List.of(r, other)).bytesSentByKind())
        .isEqualTo(Map.of("delta", 100L, "full", 900L));
  }
}
