package dev.mosaic.transport.impl;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Runs deliveries with bounded concurrency: each accepted {@link Submit} becomes a child {@link
 * DeliveryActor}; beyond {@code maxConcurrent} they wait in a FIFO queue.
 */
final class DeliveryCoordinator {
  interface Command {}

  record Submit(DeliveryPlan plan, CompletableFuture<DeliveryPlan.Outcome> result)
      implements Command {}

  /** Stops the coordinator and its deliveries; what is pending fails with a cancellation. */
  record Stop() implements Command {}

  private record ChildDone() implements Command {}

  private DeliveryCoordinator() {}

  static Behavior<Command> create(int maxConcurrent, TransportMetrics metrics) {
    return Behaviors.setup(
        ctx -> {
          Deque<Submit> queue = new ArrayDeque<>();
          int[] running = {0};
          Runnable drain =
              () -> {
                while (running[0] < maxConcurrent && !queue.isEmpty()) {
                  Submit s = queue.poll();
                  ActorRef<DeliveryActor.Command> child =
                      ctx.spawnAnonymous(DeliveryActor.create(s.plan(), s.result(), metrics));
                  ctx.watchWith(child, new ChildDone());
                  running[0]++;
                }
              };
          return Behaviors.receive(Command.class)
              .onMessage(
                  Submit.class,
                  s -> {
                    queue.add(s);
                    drain.run();
                    return Behaviors.same();
                  })
              .onMessage(
                  ChildDone.class,
                  d -> {
                    running[0]--;
                    drain.run();
                    return Behaviors.same();
                  })
              .onMessage(Stop.class, s -> Behaviors.stopped())
              .onSignal(
                  PostStop.class,
                  s -> {
                    for (Submit q : queue) {
                      q.result()
                          .completeExceptionally(
                              new CancellationException(
                                  "delivery of " + q.plan().id() + " not started: closing"));
                    }
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
