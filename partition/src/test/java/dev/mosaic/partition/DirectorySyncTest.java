package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectorySyncTest {
  @TempDir Path tmp;

  @Test
  void aLoneCallerRunsOneRealDirectoryFsync() throws Exception {
    DirectorySync sync = new DirectorySync(tmp);
    sync.force();
    sync.force();
    assertThat(sync.fsyncs()).isEqualTo(2);
  }

  @Test
  void callersArrivingDuringAnFsyncShareTheNextOneNotTheRunningOne() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    DirectorySync sync =
        new DirectorySync(
            tmp,
            dir -> {
              if (started.incrementAndGet() == 1) {
                firstStarted.countDown();
                await(releaseFirst);
              }
            });
    try (ExecutorService pool = Executors.newFixedThreadPool(9)) {
      Future<?> first = pool.submit(() -> force(sync));
      assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
      List<Future<?>> late = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        late.add(pool.submit(() -> force(sync)));
      }
      // all eight are waiting behind the running fsync, which started before they called
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (waiting(sync) < 9 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(waiting(sync)).isEqualTo(9);
      assertThat(late).noneMatch(Future::isDone);
      releaseFirst.countDown();
      first.get(10, TimeUnit.SECONDS);
      for (Future<?> f : late) {
        f.get(10, TimeUnit.SECONDS);
      }
    }
    assertThat(started.get()).isEqualTo(2); // the running one, then one for all eight
    assertThat(sync.fsyncs()).isEqualTo(2);
  }

  @Test
  void aFailedFsyncFailsItsCallerAndCoversNobody() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    DirectorySync sync =
        new DirectorySync(
            tmp,
            dir -> {
              if (calls.incrementAndGet() == 1) {
                throw new IOException("disk gone");
              }
            });
    assertThatThrownBy(sync::force).isInstanceOf(IOException.class).hasMessage("disk gone");
    sync.force(); // not covered by the failed one: runs its own
    assertThat(calls.get()).isEqualTo(2);
  }

  private static long waiting(DirectorySync sync) {
    return sync.tickets();
  }

  private static void force(DirectorySync sync) {
    try {
      sync.force();
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
