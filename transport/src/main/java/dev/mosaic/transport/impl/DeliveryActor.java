package dev.mosaic.transport.impl;

import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one delivery: per group, the candidates tried, attempts made, the last error, and
 * who accepted. Attempts run as streams; their outcome comes back as a message. Stops once every
 * group accepted or gave up, completing the outcome future.
 */
final class DeliveryActor {
  private static final Logger LOG = LoggerFactory.getLogger(DeliveryActor.class);

  interface Command {}

  private record Start() implements Command {}

  private record Attempt(String group) implements Command {}

  private record AttemptDone(String group, SearcherEndpoint target, FileAck ack, Throwable error)
      implements Command {}

  private DeliveryActor() {}

  static Behavior<Command> create(
      DeliveryPlan plan, CompletableFuture<DeliveryPlan.Outcome> result, TransportMetrics metrics) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> {
                  ctx.getSelf().tell(new Start());
                  return new State(plan, result, metrics, ctx, timers).behavior();
                }));
  }

  private static final class State {
    private final DeliveryPlan plan;
    private final CompletableFuture<DeliveryPlan.Outcome> result;
    private final TransportMetrics metrics;
    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;
    private final Map<String, Set<String>> tried = new HashMap<>();
    private final Map<String, Integer> attempts = new HashMap<>();
    private final Map<String, String> accepted = new TreeMap<>();
    private final Map<String, String> failed = new TreeMap<>();
    private final long startNanos = System.nanoTime();
    private boolean firstAccepted;

    State(
        DeliveryPlan plan,
        CompletableFuture<DeliveryPlan.Outcome> result,
        TransportMetrics metrics,
        ActorContext<Command> ctx,
        TimerScheduler<Command> timers) {
      this.plan = plan;
      this.result = result;
      this.metrics = metrics;
      this.ctx = ctx;
      this.timers = timers;
    }

    Behavior<Command> behavior() {
      return Behaviors.receive(Command.class)
          .onMessage(
              Start.class,
              m -> {
                for (String g : plan.groups()) {
                  attempt(g);
                }
                return next();
              })
          .onMessage(
              Attempt.class,
              m -> {
                attempt(m.group());
                return next();
              })
          .onMessage(
              AttemptDone.class,
              m -> {
                done(m);
                return next();
              })
          .onSignal(
              PostStop.class,
              s -> {
                if (!result.isDone()) {
                  result.completeExceptionally(
                      new CancellationException("delivery of " + plan.id() + " stopped: closing"));
                }
                return Behaviors.same();
              })
          .build();
    }

    private Behavior<Command> next() {
      if (accepted.size() + failed.size() < plan.groups().size()) {
        return Behaviors.same();
      }
      result.complete(
          new DeliveryPlan.Outcome(plan.id(), Map.copyOf(accepted), Map.copyOf(failed)));
      return Behaviors.stopped();
    }

    private void attempt(String group) {
      List<SearcherEndpoint> all = plan.candidates().apply(group);
      Set<String> seen = tried.computeIfAbsent(group, g -> new HashSet<>());
      List<SearcherEndpoint> fresh = new ArrayList<>();
      for (SearcherEndpoint e : all) {
        if (!seen.contains(e.nodeId())) {
          fresh.add(e);
        }
      }
      if (fresh.isEmpty() && !all.isEmpty()) {
        seen.clear(); // every candidate tried once: start another round
        fresh.addAll(all);
      }
      if (fresh.isEmpty()) {
        failedAttempt(group, "no live searcher registered for " + group);
        return;
      }
      SearcherEndpoint target = fresh.get(ThreadLocalRandom.current().nextInt(fresh.size()));
      seen.add(target.nodeId());
      ctx.pipeToSelf(
          plan.transfer().apply(target), (ack, err) -> new AttemptDone(group, target, ack, err));
    }

    private void done(AttemptDone m) {
      if (m.ack() != null && (m.ack().getAccepted() || m.ack().getAlreadyHeld())) {
        accepted.put(m.group(), m.target().nodeId());
        metrics.delivery(plan.kind(), true, Duration.ofNanos(System.nanoTime() - startNanos));
        if (!firstAccepted) {
          firstAccepted = true;
          try {
            plan.onFirstAccept().accept(m.group(), m.target());
          } catch (RuntimeException e) {
            LOG.warn("after first acceptance of {}", plan.id(), e);
          }
        }
        return;
      }
      String reason =
          m.error() != null
              ? StoreWriter.reason(m.error())
              : (m.ack().getReason().isEmpty() ? "refused without reason" : m.ack().getReason());
      if (m.ack() != null && m.ack().getSuperseded()) {
        // the group holds a newer version: final, no retry (retries would only hold a delivery
        // slot that fresher files wait for)
        LOG.debug(
            "{} delivery of {} to {} superseded: {}", plan.kind(), plan.id(), m.group(), reason);
        failed.put(m.group(), "superseded: " + m.target() + ": " + reason);
        metrics.superseded(plan.kind());
        return;
      }
      failedAttempt(m.group(), m.target() + ": " + reason);
    }

    private void failedAttempt(String group, String reason) {
      if (plan.obsolete().getAsBoolean()) {
        LOG.debug(
            "{} delivery of {} to {} dropped: a newer version exists ({})",
            plan.kind(),
            plan.id(),
            group,
            reason);
        failed.put(group, "superseded: a newer version exists; last attempt: " + reason);
        metrics.superseded(plan.kind());
        return;
      }
      int n = attempts.merge(group, 1, Integer::sum);
      if (n >= plan.maxAttempts()) {
        LOG.warn(
            "{} delivery of {} to {} failed after {} attempts: {}",
            plan.kind(),
            plan.id(),
            group,
            n,
            reason);
        failed.put(group, reason);
        metrics.delivery(plan.kind(), false, Duration.ZERO);
        return;
      }
      Duration backoff = backoff(n);
      LOG.info(
          "{} delivery of {} to {}: attempt {} failed ({}); retrying in {} ms",
          plan.kind(),
          plan.id(),
          group,
          n,
          reason,
          backoff.toMillis());
      metrics.retry(plan.kind());
      timers.startSingleTimer(group, new Attempt(group), backoff);
    }

    private Duration backoff(int failures) {
      long min = Math.max(1, plan.backoffMin().toMillis());
      long max = Math.max(min, plan.backoffMax().toMillis());
      long exp = min << Math.min(20, failures - 1);
      long base = Math.min(max, exp);
      // +-20% jitter so retries of many deliveries do not align
      long jitter = (long) (base * 0.2 * (ThreadLocalRandom.current().nextDouble() * 2 - 1));
      return Duration.ofMillis(Math.max(1, base + jitter));
    }
  }
}
