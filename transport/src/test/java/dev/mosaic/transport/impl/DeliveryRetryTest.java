package dev.mosaic.transport.impl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** How a delivery treats each kind of refusal: retry what may pass later, not what cannot. */
class DeliveryRetryTest {
  private static final ActorTestKit KIT = ActorTestKit.create();
  private static final SearcherEndpoint PEER =
      new SearcherEndpoint("dc-a-2", "dc-a", "127.0.0.1", 1, "http://127.0.0.1:2");

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private DeliveryPlan.Outcome deliver(FileAck answer, AtomicInteger attempts) throws Exception {
    return deliver(answer, attempts, () -> false);
  }

  private DeliveryPlan.Outcome deliver(
      FileAck answer, AtomicInteger attempts, java.util.function.BooleanSupplier obsolete)
      throws Exception {
    ActorRef<DeliveryCoordinator.Command> coordinator =
        KIT.spawn(DeliveryCoordinator.create(2, new TransportMetrics(registry)));
    DeliveryPlan plan =
        new DeliveryPlan(
            new PartitionFileId(1, 7, 3),
            "relay",
            Set.of("dc-a-2"),
            group -> List.of(PEER),
            target -> {
              attempts.incrementAndGet();
              return CompletableFuture.completedFuture(answer);
            },
            5,
            Duration.ofMillis(1),
            Duration.ofMillis(5),
            (group, target) -> {},
            obsolete);
    CompletableFuture<DeliveryPlan.Outcome> result = new CompletableFuture<>();
    coordinator.tell(new DeliveryCoordinator.Submit(plan, result));
    return result.get(30, TimeUnit.SECONDS);
  }

  @Test
  void aCopySupersededByANewerVersionIsNotRetried() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    FileAck superseded =
        FileAck.newBuilder()
            .setAccepted(false)
            .setSuperseded(true)
            .setReason("older version: v1/7/3 is older than the held version 4 of partition 7")
            .build();

    DeliveryPlan.Outcome outcome = deliver(superseded, attempts);

    assertThat(attempts).hasValue(1);
    assertThat(outcome.acceptedBy()).isEmpty();
    assertThat(outcome.failed().get("dc-a-2"))
        .startsWith("superseded: ")
        .contains("held version 4");
    assertThat(deliveries("superseded")).isEqualTo(1.0);
    assertThat(deliveries("failed")).as("a superseded copy is not a failure").isZero();
  }

  @Test
  void aRelayOfAVersionThatANewerOneReplacedIsDroppedNotRetried() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    FileAck busy = FileAck.newBuilder().setAccepted(false).setReason("busy: 4 transfers").build();

    // the relaying node published a newer version of the partition after the first attempt
    DeliveryPlan.Outcome outcome = deliver(busy, attempts, () -> attempts.get() >= 1);

    assertThat(attempts).as("no retry once superseded").hasValue(1);
    assertThat(outcome.failed().get("dc-a-2")).startsWith("superseded: ").contains("busy");
    assertThat(deliveries("superseded")).isEqualTo(1.0);
    assertThat(deliveries("failed")).isZero();
    assertThat(retries()).isZero();
  }

  @Test
  void aBusyRefusalIsRetriedUpToTheAttemptLimit() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    FileAck busy = FileAck.newBuilder().setAccepted(false).setReason("busy: 4 transfers").build();

    DeliveryPlan.Outcome outcome = deliver(busy, attempts);

    assertThat(attempts).hasValue(5);
    assertThat(outcome.failed().get("dc-a-2")).contains("busy");
    assertThat(deliveries("failed")).isEqualTo(1.0);
  }

  private double retries() {
    var counter = registry.find("mosaic.transport.retries").counter();
    return counter == null ? 0 : counter.count();
  }

  private double deliveries(String outcome) {
    var counter = registry.find("mosaic.transport.deliveries").tag("outcome", outcome).counter();
    return counter == null ? 0 : counter.count();
  }
}
