package dev.mosaic.transport.impl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import dev.mosaic.transport.wire.TransportRequest;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The connections a sender keeps for its change sets: many exchanges share one connection, and a
 * kept connection the peer closed meanwhile is replaced without the exchange failing.
 */
class ConnectionPoolTest {
  private static final ActorTestKit KIT = ActorTestKit.create();
  private static final PekkoTransport TRANSPORT = PekkoTransport.get(KIT.system());
  private static final SearcherEndpoint PEER =
      new SearcherEndpoint("dc-a-2", "dc-a", "127.0.0.1", 1, "http://127.0.0.1:2");

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  /**
   * A peer that answers every push on a connection with an acknowledgement naming the push's
   * version, and closes the connection after {@code answersPerConnection} answers.
   */
  private static Function<SearcherEndpoint, Flow<ByteString, ByteString, ?>> peer(
      int answersPerConnection, AtomicInteger connections) {
    return target -> {
      connections.incrementAndGet();
      return Flow.of(ByteString.class)
          .statefulMapConcat(
              () ->
                  Frames.Splitter.<TransportRequest>repeating(
                      TransportRequest::parseFrom, r -> r.getPush().getSize()))
          .filter(o -> o instanceof Frames.Head)
          .map(
              o -> {
                TransportRequest r = (TransportRequest) ((Frames.Head<?>) o).message();
                return Frames.frame(
                    FileAck.newBuilder()
                        .setAccepted(true)
                        .setReason(Long.toString(r.getPush().getVersion()))
                        .build());
              })
          .take(answersPerConnection);
    };
  }

  private static List<ByteString> push(long version, int bodyBytes) {
    return List.of(
        Frames.frame(
            TransportRequest.newBuilder()
                .setPush(FileHeader.newBuilder().setVersion(version).setSize(bodyBytes))
                .build()),
        ByteString.fromArrayUnsafe(new byte[bodyBytes]));
  }

  @Test
  void exchangesOneAfterTheOtherShareOneConnection() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ConnectionPool pool =
        new ConnectionPool(peer(Integer.MAX_VALUE, connections), TRANSPORT, 4, t -> {})) {
      for (int i = 1; i <= 50; i++) {
        FileAck ack =
            pool.exchange(PEER, push(i, i * 7)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(ack.getReason()).as("the answer to push " + i).isEqualTo(Integer.toString(i));
      }
      assertThat(pool.opened()).isEqualTo(1);
      assertThat(connections).hasValue(1);
    }
  }

  @Test
  void aKeptConnectionThePeerClosedIsReplacedAndTheExchangeSucceeds() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ConnectionPool pool = new ConnectionPool(peer(1, connections), TRANSPORT, 4, t -> {})) {
      for (int i = 1; i <= 5; i++) {
        FileAck ack =
            pool.exchange(PEER, push(i, 3)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(ack.getReason()).as("the answer to push " + i).isEqualTo(Integer.toString(i));
      }
      assertThat(pool.opened()).as("each connection carried one answer").isEqualTo(5);
    }
  }
}
