package dev.mosaic.transport.impl;

import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.QueueOfferResult;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Connections kept open to the peers, one exchange after the other on each (a request streamed out,
 * one acknowledgement back): change sets and whole files alike, so a fan-out of many files pays one
 * TLS handshake per connection, not one per copy. An exchange borrows an idle connection of its
 * target, or opens one; the request is a {@link Source} (a frame and the file's bytes read from
 * disk as the connection pulls them: TCP backpressure reaches the file reads). After the
 * acknowledgement the connection goes back to the pool (at most {@code maxIdlePerPeer} idle ones
 * per peer) if the whole request went out; after a failure, or an answer that came before the
 * request was sent completely (a refusal), it is closed, which stops the sending. An acceptance
 * completes the exchange once its connection is back in the pool, so exchanges one after the other
 * share one connection. An exchange that fails on a reused connection (the peer or an idle timeout
 * closed it meanwhile) is tried once more on a new connection; a receiver answers a repeated push
 * it already published as already held.
 *
 * <p>Thread safety: safe for concurrent use; one exchange at a time uses a connection.
 */
final class ConnectionPool implements AutoCloseable {
  /**
   * How long after the answer the rest of a request may still be going out for its connection to be
   * kept; beyond, the connection is closed (which stops the sending).
   */
  static final Duration SEND_GRACE = Duration.ofSeconds(1);

  private final Function<SearcherEndpoint, Flow<ByteString, ByteString, ?>> connect;
  private final PekkoTransport transport;
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
      PekkoTransport transport,
      int maxIdlePerPeer,
      java.util.function.Consumer<SearcherEndpoint> onOpen) {
    if (maxIdlePerPeer < 1) {
      throw new IllegalArgumentException("maxIdlePerPeer must be >= 1, got " + maxIdlePerPeer);
    }
    this.connect = connect;
    this.transport = transport;
    this.maxIdlePerPeer = maxIdlePerPeer;
    this.onOpen = onOpen;
  }

  /** Connections opened so far. */
  long opened() {
    return opened.get();
  }

  /** Sends {@code request} (bytes in memory) to {@code target}; completes with the answer. */
  CompletionStage<FileAck> exchange(SearcherEndpoint target, List<ByteString> request) {
    return exchange(target, Source.from(request));
  }

  /**
   * Sends {@code request} to {@code target} and completes with the acknowledgement. The request is
   * materialized again when the exchange is retried on a new connection.
   */
  CompletionStage<FileAck> exchange(SearcherEndpoint target, Source<ByteString, NotUsed> request) {
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
      Connection c, SearcherEndpoint target, Source<ByteString, NotUsed> request) {
    CompletableFuture<Done> sent = new CompletableFuture<>();
    Source<ByteString, NotUsed> watched =
        request.watchTermination(
            (m, done) -> {
              done.whenComplete(
                  (d, e) -> {
                    if (e != null) {
                      sent.completeExceptionally(e);
                    } else {
                      sent.complete(d);
                    }
                  });
              return m;
            });
    boolean offered;
    try {
      offered = c.out.offer(watched) == QueueOfferResult.enqueued();
    } catch (IllegalStateException e) { // the queue was completed
      offered = false;
    }
    if (!offered) {
      c.close();
      return CompletableFuture.failedFuture(
          new IOException("connection to " + target + " ended before the request"));
    }
    CompletableFuture<FileAck> answer = new CompletableFuture<>();
    c.in
        .pull()
        .whenComplete(
            (head, err) -> {
              if (err != null || head.isEmpty()) {
                c.close();
                answer.completeExceptionally(
                    err != null
                        ? err
                        : new IOException(
                            "connection to " + target + " closed before the acknowledgement"));
                return;
              }
              FileAck ack = head.get();
              // the answer may overtake the end of the request by a moment; an answer long before
              // the whole request went out (a refusal) stops the sending: the connection, which
              // cannot carry another request then, is closed
              sent.copy()
                  .orTimeout(SEND_GRACE.toMillis(), TimeUnit.MILLISECONDS)
                  .whenComplete(
                      (d, e) -> {
                        if (e == null) {
                          giveBack(target, c);
                        } else {
                          c.close();
                        }
                        if (ack.getAccepted()) {
                          answer.complete(ack);
                        }
                      });
              // an acceptance comes after the receiver took the whole request, so its end is a
              // moment away: the answer waits for the connection to be back in the pool, and the
              // sender's next exchange reuses it instead of opening another; a refusal may come
              // before the request is through and is answered at once
              if (!ack.getAccepted()) {
                answer.complete(ack);
              }
            });
    return answer;
  }

  private Connection open(SearcherEndpoint target) {
    opened.incrementAndGet();
    onOpen.accept(target);
    Pair<
            Pair<
                Pair<BoundedSourceQueue<Source<ByteString, NotUsed>>, UniqueKillSwitch>,
                CompletionStage<Done>>,
            SinkQueueWithCancel<FileAck>>
        m =
            transport.run(
                Source.<Source<ByteString, NotUsed>>queue(4)
                    .flatMapConcat(r -> r)
                    .viaMat(KillSwitches.single(), Keep.both())
                    .via(connect.apply(target))
                    .statefulMapConcat(
                        () -> Frames.Splitter.<FileAck>repeating(FileAck::parseFrom, a -> 0))
                    .filter(o -> o instanceof Frames.Head)
                    .map(o -> ((Frames.Head<?>) o).message())
                    .map(FileAck.class::cast)
                    .watchTermination(Keep.both())
                    .toMat(Sink.queue(), Keep.both()));
    return new Connection(
        m.first().first().first(), m.first().first().second(), m.second(), m.first().second());
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
      BoundedSourceQueue<Source<ByteString, NotUsed>> out,
      UniqueKillSwitch sending,
      SinkQueueWithCancel<FileAck> in,
      CompletionStage<Done> ended) {
    boolean isEnded() {
      return ended.toCompletableFuture().isDone();
    }

    /** Stops sending (also a request under way) and reading. */
    void close() {
      try {
        out.complete();
      } catch (IllegalStateException e) {
        // already completed, or the stream ended
      }
      sending.shutdown();
      in.cancel();
    }
  }
}
