package dev.mosaic.transport.impl;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/** Stops a top-level (system) actor from outside. Not instantiable. */
final class ActorSystemStop {
  private ActorSystemStop() {}

  static void stop(ActorSystem<?> system, ActorRef<?> ref) {
    Adapter.toClassic(system).stop(Adapter.toClassic(ref));
  }
}
