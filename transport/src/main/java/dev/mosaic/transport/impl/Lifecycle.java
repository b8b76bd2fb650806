package dev.mosaic.transport.impl;

import java.util.concurrent.atomic.AtomicReference;

/** LATENT → STARTED → CLOSED by compare-and-set, with messages naming the component. */
final class Lifecycle {
  enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final String what;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

  Lifecycle(String what) {
    this.what = what;
  }

  void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException(
          "cannot start " + what + ": it is " + state.get() + " (start is allowed once)");
    }
  }

  /** True when this call closed it (it was not closed before). */
  boolean close() {
    return state.getAndSet(State.CLOSED) != State.CLOSED;
  }

  void checkStarted() {
    State s = state.get();
    if (s != State.STARTED) {
      throw new IllegalStateException(what + " is " + s + ", not STARTED");
    }
  }

  State get() {
    return state.get();
  }
}
