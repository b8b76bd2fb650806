package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;

class PekkoTransportTest {

  private static String threadOfAStream(Config config) throws Exception {
    ActorSystem<Void> system =
        ActorSystem.create(Behaviors.empty(), "pekko-transport-test", config);
    try {
      return PekkoTransport.get(system)
          .runWith(Source.single(1).map(i -> Thread.currentThread().getName()), Sink.head())
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void transferStreamsRunOnTheTransportsDispatcher() throws Exception {
    assertThat(threadOfAStream(ConfigFactory.load())).contains(PekkoTransport.STREAM_DISPATCHER);
  }

  @Test
  void theSystemConfigLetsTheConnectionActorsWorkThroughManyMessagesPerTurn() {
    Config pekkoDefaults = ConfigFactory.load();
    Config transport = PekkoTransport.systemConfig(pekkoDefaults);
    assertThat(pekkoDefaults.getInt("pekko.actor.internal-dispatcher.throughput")).isEqualTo(5);
    assertThat(transport.getInt("pekko.actor.internal-dispatcher.throughput"))
        .isEqualTo(transport.getInt(PekkoTransport.STREAM_DISPATCHER + ".throughput"))
        .isGreaterThan(5);
  }
}
