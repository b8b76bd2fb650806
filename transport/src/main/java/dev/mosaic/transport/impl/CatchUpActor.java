package dev.mosaic.transport.impl;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.TransportSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catch-up of one node: on every tick (start, reconnection, manifest change, a publish, and
 * periodically) compares the store with the manifest, refreshes the node's health, and fetches the
 * latest version of each partition it lacks — from a peer of its own datacenter first, then from
 * other datacenters once the version is older than {@code catch-up-cross-dc-after}. A manifest
 * version younger than {@code catch-up-grace} is left to the normal delivery and relay, so catch-up
 * does not add inter-DC copies while a delivery or relay is under way.
 */
final class CatchUpActor {
  private static final Logger LOG = LoggerFactory.getLogger(CatchUpActor.class);

  interface Command {}

  /** Asks for a check soon; requests within {@link #COALESCE} are served by one check. */
  record Tick() implements Command {}

  private record Check() implements Command {}

  /**
   * A check compares every partition of the manifest with the store, and a feed cycle changes the
   * manifest thousands of times: checks at most twice a second keep that below a per cent of a
   * core. Catch-up itself waits {@code catch-up-grace} (seconds) anyway.
   */
  private static final Duration COALESCE = Duration.ofMillis(500);

  private record Fetched(ManifestRecord rec, TransferClient.FetchOutcome outcome, long startNanos)
      implements Command {}

  record Context(
      String nodeId,
      String dc,
      ReceivingStore store,
      PartitionManifest manifest,
      SearcherDiscovery discovery,
      TransferClient client,
      TransportSettings settings,
      Set<PartitionFileId> receiving,
      NodeHealth health,
      TransportMetrics metrics) {}

  private CatchUpActor() {}

  static Behavior<Command> create(Context c) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> {
                  timers.startTimerWithFixedDelay(
                      "periodic", new Check(), c.settings().catchUpInterval());
                  ctx.getSelf().tell(new Check());
                  Set<PartitionFileId> inFlight = new HashSet<>();
                  Map<Long, Long> acceptedSeen = new HashMap<>();
                  return Behaviors.receive(Command.class)
                      .onMessage(
                          Tick.class,
                          t -> {
                            if (!timers.isTimerActive("soon")) {
                              timers.startSingleTimer("soon", new Check(), COALESCE);
                            }
                            return Behaviors.same();
                          })
                      .onMessage(
                          Check.class,
                          t -> {
                            tick(c, inFlight, acceptedSeen, ctx.getSelf());
                            return Behaviors.same();
                          })
                      .onMessage(
                          Fetched.class,
                          f -> {
                            inFlight.remove(f.rec().id());
                            c.receiving().remove(f.rec().id());
                            Duration took = Duration.ofNanos(System.nanoTime() - f.startNanos());
                            c.metrics().delivery("fetch", f.outcome().published(), took);
                            if (f.outcome().published()) {
                              LOG.info(
                                  "{}: caught up {} ({})",
                                  c.nodeId(),
                                  f.rec().id(),
                                  f.outcome().reason());
                              ctx.getSelf().tell(new Tick());
                            } else {
                              LOG.warn(
                                  "{}: catch-up of {} failed: {}",
                                  c.nodeId(),
                                  f.rec().id(),
                                  f.outcome().reason());
                            }
                            return Behaviors.same();
                          })
                      .build();
                }));
  }

  /**
   * One catch-up round. {@code acceptedSeen} holds, by (schema, partition), the newest version this
   * node saw accepted: the manifest keeps only a partition's latest record, and under churn that is
   * often a newer version not yet accepted, so a node lacking the accepted one (a datacenter cut
   * off) would otherwise look up to date whenever it looks, and never become stale.
   */
  private static void tick(
      Context c,
      Set<PartitionFileId> inFlight,
      Map<Long, Long> acceptedSeen,
      org.apache.pekko.actor.typed.ActorRef<Command> self) {
    long now = System.currentTimeMillis();
    long grace = c.settings().catchUpGrace().toMillis();
    Map<Integer, Map<Integer, Long>> held = new HashMap<>();
    int behind = 0;
    List<ManifestRecord> missing = new ArrayList<>();
    for (ManifestRecord rec : c.manifest().all()) {
      PartitionFileId id = rec.id();
      long key = ((long) id.schemaVersion() << 32) | (id.partition() & 0xffffffffL);
      long acceptedVersion =
          rec.accepted()
              ? acceptedSeen.merge(key, id.version(), Math::max)
              : acceptedSeen.getOrDefault(key, -1L);
      Long h;
      try {
        h = held.computeIfAbsent(id.schemaVersion(), c.store()::latestVersions).get(id.partition());
      } catch (RuntimeException e) {
        LOG.warn("{}: cannot list the store for {}: {}", c.nodeId(), id, e.toString());
        continue;
      }
      if (acceptedVersion < 0 || (h != null && h >= acceptedVersion)) {
        continue; // holds every version some datacenter accepted
      }
      behind++;
      if (!rec.accepted()) {
        continue; // the latest record is not yet held by any datacenter: nothing to fetch
      }
      if (now - rec.acceptedAtMillis() >= grace && !inFlight.contains(id)) {
        missing.add(rec);
      }
    }
    c.health().update(behind);
    Collections.shuffle(missing);
    for (ManifestRecord rec : missing) {
      if (inFlight.size() >= c.settings().catchUpParallelism()) {
        break;
      }
      if (!c.receiving().add(rec.id())) {
        continue; // arriving by a delivery right now
      }
      inFlight.add(rec.id());
      long started = System.nanoTime();
      boolean crossDc =
          now - rec.acceptedAtMillis() >= c.settings().catchUpCrossDcAfter().toMillis();
      List<SearcherEndpoint> peers = peers(c, crossDc);
      LOG.info("{}: catching up {} from {} candidate peers", c.nodeId(), rec.id(), peers.size());
      fetchFrom(c, peers, 0, rec, new StringBuilder())
          .whenComplete(
              (o, e) ->
                  self.tell(
                      new Fetched(
                          rec,
                          e != null
                              ? new TransferClient.FetchOutcome(false, StoreWriter.reason(e))
                              : o,
                          started)));
    }
  }

  /** Own datacenter first (shuffled), then, when allowed, the others (shuffled). */
  private static List<SearcherEndpoint> peers(Context c, boolean crossDc) {
    List<SearcherEndpoint> own = new ArrayList<>();
    List<SearcherEndpoint> others = new ArrayList<>();
    c.discovery()
        .byDc()
        .forEach(
            (dc, list) -> {
              for (SearcherEndpoint e : list) {
                if (e.nodeId().equals(c.nodeId())) {
                  continue;
                }
                (dc.equals(c.dc()) ? own : others).add(e);
              }
            });
    Collections.shuffle(own, ThreadLocalRandom.current());
    Collections.shuffle(others, ThreadLocalRandom.current());
    if (crossDc) {
      own.addAll(others);
    }
    return own;
  }

  private static CompletionStage<TransferClient.FetchOutcome> fetchFrom(
      Context c, List<SearcherEndpoint> peers, int i, ManifestRecord rec, StringBuilder why) {
    if (i >= peers.size()) {
      return CompletableFuture.completedFuture(
          new TransferClient.FetchOutcome(
              false, peers.isEmpty() ? "no live peer" : "no peer could provide it: " + why));
    }
    return c.client()
        .fetch(peers.get(i), rec, c.store())
        .thenCompose(
            o -> {
              if (o.published()) {
                return CompletableFuture.completedFuture(o);
              }
              why.append(why.isEmpty() ? "" : "; ").append(o.reason());
              return fetchFrom(c, peers, i + 1, rec, why);
            });
  }
}
