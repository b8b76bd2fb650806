package dev.mosaic.transport.impl;

import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.QueueOfferResult;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Connections kept open to the peers for small exchanges (a request whose bytes are in memory, one
 * acknowledgement back): a TLS handshake per change set cost more than the change set. An exchange
 * borrows an idle connection of its target, or opens one; after the acknowledgement the connection
 * goes back to the pool (at most {@code maxIdlePerPeer} idle ones per peer), after a failure it is
 * closed. An exchange that fails on a reused connection (the peer or an idle timeout closed it
 * meanwhile) is tried once more on a new connection; a receiver answers a repeated push it already
 * published as already held.
 *
 * <p>Thread safety: safe for concurrent use; one exchange at a time uses a connection.
 */
final class ConnectionPool implements AutoCloseable {
  private final Function<SearcherEndpoint, Flow<ByteString, ByteString, ?>> connect;
  private final Materializer materializer;
  private final int maxIdlePerPeer;
  private final java.util.function.Consumer<SearcherEndpoint> onOpen;
  private final Map<SearcherEndpoint, ConcurrentLinkedDeque<Connection>> idle =
      new ConcurrentHashMap<>();
  private final AtomicLong opened = new AtomicLong();
  private volatile boolean closed;

  /**
   * @param connect the connection flow to a peer (TLS or plain)
   * @param onOpen told of every connection opened (metrics)
   */
  ConnectionPool(
      Function<SearcherEndpoint, Flow<ByteString, ByteString, ?>> connect,
      Materializer materializer,
      int maxIdlePerPeer,
      java.util.function.Consumer<SearcherEndpoint> onOpen) {
    if (maxIdlePerPeer < 1) {
      throw new IllegalArgumentException("maxIdlePerPeer must be >= 1, got " + maxIdlePerPeer);
    }
    this.connect = connect;
    this.materializer = materializer;
    this.maxIdlePerPeer = maxIdlePerPeer;
    this.onOpen = onOpen;
  }

  /** Connections opened so far. */
  long opened() {
    return opened.get();
  }

  /** Sends {@code request} to {@code target} and completes with the acknowledgement. */
  CompletionStage<FileAck> exchange(SearcherEndpoint target, List<ByteString> request) {
    Connection reused = borrow(target);
    if (reused == null) {
      return exchangeOn(open(target), target, request);
    }
    return exchangeOn(reused, target, request)
        .handle(
            (ack, err) ->
                err == null
                    ? CompletableFuture.completedFuture(ack)
                    : exchangeOn(open(target), target, request))
        .thenCompose(s -> s);
  }

  private Connection borrow(SearcherEndpoint target) {
    ConcurrentLinkedDeque<Connection> q = idle.get(target);
    if (q == null) {
      return null;
    }
    for (Connection c = q.pollLast(); c != null; c = q.pollLast()) {
      if (!c.isEnded()) {
        return c;
      }
      c.close();
    }
    return null;
  }

  private void giveBack(SearcherEndpoint target, Connection c) {
    ConcurrentLinkedDeque<Connection> q =
        idle.computeIfAbsent(target, t -> new ConcurrentLinkedDeque<>());
    if (closed || c.isEnded() || q.size() >= maxIdlePerPeer) {
      c.close();
      return;
    }
    q.addLast(c);
    if (closed) {
      close(); // raced with close(): drain what was just added
    }
  }

  private CompletionStage<FileAck> exchangeOn(
      Connection c, SearcherEndpoint target, List<ByteString> request) {
    boolean sent = true;
    for (ByteString b : request) {
      if (!offer(c, b)) {
        // the connection ended: an answer that came before (a refusal) still counts
        sent = false;
        break;
      }
    }
    boolean whole = sent;
    return c.in
        .pull()
        .handle(
            (head, err) -> {
              if (err != null || head.isEmpty()) {
                c.close();
                throw new CompletionException(
                    err != null
                        ? err
                        : new IOException(
                            "connection to " + target + " closed before the acknowledgement"));
              }
              if (whole) {
                giveBack(target, c);
              } else {
                c.close();
              }
              return head.get();
            });
  }

  private static boolean offer(Connection c, ByteString b) {
    try {
      return c.out.offer(b) == QueueOfferResult.enqueued();
    } catch (IllegalStateException e) { // the queue was completed
      return false;
    }
  }

  private Connection open(SearcherEndpoint target) {
    opened.incrementAndGet();
    onOpen.accept(target);
    Pair<
            Pair<BoundedSourceQueue<ByteString>, CompletionStage<org.apache.pekko.Done>>,
            SinkQueueWithCancel<FileAck>>
        m =
            Source.<ByteString>queue(16)
                .via(connect.apply(target))
                .statefulMapConcat(
                    () -> Frames.Splitter.<FileAck>repeating(FileAck::parseFrom, a -> 0))
                .filter(o -> o instanceof Frames.Head)
                .map(o -> ((Frames.Head<?>) o).message())
                .map(FileAck.class::cast)
                .watchTermination(Keep.both())
                .toMat(Sink.queue(), Keep.both())
                .run(materializer);
    return new Connection(m.first().first(), m.second(), m.first().second());
  }

  /** Closes the idle connections; later give-backs are closed at once. */
  @Override
  public void close() {
    closed = true;
    for (ConcurrentLinkedDeque<Connection> q : idle.values()) {
      for (Connection c = q.pollFirst(); c != null; c = q.pollFirst()) {
        c.close();
      }
    }
  }

  /** One kept connection: its outgoing queue, its acknowledgements, and its end. */
  private record Connection(
      BoundedSourceQueue<ByteString> out,
      SinkQueueWithCancel<FileAck> in,
      CompletionStage<org.apache.pekko.Done> ended) {
    boolean isEnded() {
      return ended.toCompletableFuture().isDone();
    }

    void close() {
      try {
        out.complete();
      } catch (IllegalStateException e) {
        // already completed, or the stream ended
      }
      in.cancel();
    }
  }
}
