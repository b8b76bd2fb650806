package dev.mosaic.transport.impl;

import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.UniformFanOutShape;
import org.apache.pekko.stream.javadsl.AsPublisher;
import org.apache.pekko.stream.javadsl.Broadcast;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.GraphDSL;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cut-through relay: an entry searcher forwards the body of a whole file pushed to it (hop 0) to
 * the other searchers of its datacenter while the bytes arrive, instead of after it published the
 * file (store and forward). Each peer gets an ordinary relayed push (hop 1) on a kept connection
 * and checks, stores and verifies it on its own; the entry's own copy and the peers' copies move in
 * lockstep (the slowest reader sets the pace: TCP backpressure reaches the sender). A peer that
 * refuses, fails or cannot be reached is left out without disturbing the entry or the other peers;
 * the entry relays the published file to it afterwards (store and forward, with retries).
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class CutThroughRelay {
  private static final Logger LOG = LoggerFactory.getLogger(CutThroughRelay.class);

  private final TransferClient client;
  private final Supplier<List<SearcherEndpoint>> peers;
  private final TransportMetrics metrics;
  private final PekkoTransport transport;

  /**
   * @param peers the other live searchers of this node's datacenter, asked at every push
   */
  CutThroughRelay(
      TransferClient client,
      Supplier<List<SearcherEndpoint>> peers,
      TransportMetrics metrics,
      PekkoTransport transport) {
    this.client = client;
    this.peers = peers;
    this.metrics = metrics;
    this.transport = transport;
  }

  /**
   * The body of one entry push, teed to the peers once it runs.
   *
   * @param body the chunks to store locally: the same bytes as the push's, also sent to every peer
   * @param reached completes, once every peer answered or failed, with the node ids of the peers
   *     that hold the version
   * @param afterRun call once {@code body} was run (or will not be): releases the peers whose feed
   *     did not start
   */
  record Tee(
      Source<Object, NotUsed> body, CompletionStage<Set<String>> reached, Runnable afterRun) {}

  /**
   * Starts a relayed push of {@code header} to every peer, fed from {@code body}. Run the returned
   * body once, then call {@link Tee#afterRun()} (peers whose feed never started are released).
   */
  Tee tee(FileHeader header, Source<Object, NotUsed> body) {
    List<SearcherEndpoint> targets = peers.get();
    if (targets.isEmpty()) {
      return new Tee(body, CompletableFuture.completedFuture(Set.of()), () -> {});
    }
    FileHeader relayed = header.toBuilder().setHopCount(1).build();
    List<CompletableFuture<Publisher<ByteString>>> feeds = new ArrayList<>();
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (SearcherEndpoint target : targets) {
      CompletableFuture<Publisher<ByteString>> feed = new CompletableFuture<>();
      feeds.add(feed);
      answers.add(forward(target, relayed, feed));
    }
    Sink<ByteString, NotUsed> fan =
        Sink.fromGraph(
            GraphDSL.create(
                b -> {
                  // never cancels the entry's own copy: the ignoring branch always demands, and a
                  // peer leaving (eagerCancel = false) does not end the others
                  UniformFanOutShape<ByteString, ByteString> bcast =
                      b.add(Broadcast.create(feeds.size() + 1, false));
                  b.from(bcast.out(0)).to(b.add(Sink.<ByteString>ignore()));
                  for (int i = 0; i < feeds.size(); i++) {
                    CompletableFuture<Publisher<ByteString>> feed = feeds.get(i);
                    b.from(bcast.out(i + 1))
                        .to(
                            b.add(
                                Sink.<ByteString>asPublisher(AsPublisher.WITHOUT_FANOUT)
                                    .mapMaterializedValue(
                                        p -> {
                                          feed.complete(p);
                                          return NotUsed.getInstance();
                                        })));
                  }
                  return SinkShape.of(bcast.in());
                }));
    Source<Object, NotUsed> teed =
        body.alsoTo(Flow.of(Object.class).map(o -> (ByteString) o).to(fan));
    CompletableFuture<Set<String>> reached =
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
            .thenApply(
                v -> {
                  Set<String> ids = new TreeSet<>();
                  for (CompletableFuture<String> a : answers) {
                    String id = a.join();
                    if (id != null) {
                      ids.add(id);
                    }
                  }
                  return ids;
                });
    Runnable afterRun =
        () -> {
          for (CompletableFuture<Publisher<ByteString>> feed : feeds) {
            feed.completeExceptionally(
                new IllegalStateException("the entry did not store " + describe(header)));
          }
        };
    return new Tee(teed, reached, afterRun);
  }

  /**
   * Pushes {@code header} with the bytes of {@code feed} to {@code target}; its id if it holds it.
   */
  private CompletableFuture<String> forward(
      SearcherEndpoint target, FileHeader header, CompletableFuture<Publisher<ByteString>> feed) {
    long start = System.nanoTime();
    // taken by whoever comes first: the push reading the feed, or the release after its answer
    AtomicBoolean taken = new AtomicBoolean();
    Source<ByteString, NotUsed> bytes =
        Source.lazyCompletionStageSource(
                () ->
                    taken.compareAndSet(false, true)
                        ? feed.thenApply(Source::fromPublisher)
                        : CompletableFuture.completedFuture(
                            Source.<ByteString>failed(
                                new IllegalStateException("feed already released"))))
            .mapMaterializedValue(m -> NotUsed.getInstance());
    return client
        .pushStream(target, header, bytes)
        .handle(
            (FileAck ack, Throwable err) -> {
              if (taken.compareAndSet(false, true)) {
                // nobody reads this feed: release it, or it would hold the entry's copy back
                feed.thenAccept(p -> transport.runWith(Source.fromPublisher(p), Sink.cancelled()));
              }
              boolean holds = ack != null && (ack.getAccepted() || ack.getAlreadyHeld());
              if (holds) {
                // a failure is not counted here: the relay of the stored file that follows is
                // the delivery that succeeds or fails (as with store and forward alone)
                metrics.delivery("relay", true, Duration.ofNanos(System.nanoTime() - start));
              } else {
                LOG.debug(
                    "cut-through relay of {} to {} did not land ({}); relaying the file after",
                    describe(header),
                    target,
                    err != null ? StoreWriter.reason(err) : ack.getReason());
              }
              return holds ? target.nodeId() : null;
            })
        .toCompletableFuture();
  }

  private static String describe(FileHeader h) {
    return "v" + h.getSchemaVersion() + "/" + h.getPartition() + "/" + h.getVersion();
  }
}
