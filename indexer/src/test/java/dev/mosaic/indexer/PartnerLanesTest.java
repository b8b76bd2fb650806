package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PartnerLanesTest {
  record Item(String lane, int seq) {}

  @Test
  void differentLanesRunAtOnce() throws Exception {
    // each of the two tasks waits for the other to have started: run one after the other, the
    // first would wait out its deadline and report false
    CountDownLatch bothStarted = new CountDownLatch(2);
    try (PartnerLanes lanes = new PartnerLanes(2, "test-lane-")) {
      boolean[] done =
          lanes.run(
              List.of(new Item("a", 0), new Item("b", 0)),
              Item::lane,
              item -> {
                bothStarted.countDown();
                return bothStarted.await(30, TimeUnit.SECONDS);
              });
      assertThat(done).containsExactly(true, true);
    }
  }

  @Test
  void aLanesItemsRunOneAtATimeInTheirOrder() throws Exception {
    Random random = new Random(7);
    List<Item> items = new ArrayList<>();
    Map<String, AtomicInteger> next = new ConcurrentHashMap<>();
    for (int i = 0; i < 400; i++) {
      String lane = "p" + random.nextInt(9);
      items.add(
          new Item(lane, next.computeIfAbsent(lane, k -> new AtomicInteger()).getAndIncrement()));
    }
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    try (PartnerLanes lanes = new PartnerLanes(4, "test-lane-")) {
      boolean[] done =
          lanes.run(
              items,
              Item::lane,
              item -> {
                if (inside.computeIfAbsent(item.lane(), k -> new AtomicInteger()).incrementAndGet()
                    != 1) {
                  violations.add(item + " ran beside another item of its lane");
                }
                int expected =
                    seen.computeIfAbsent(item.lane(), k -> new AtomicInteger()).getAndIncrement();
                if (expected != item.seq()) {
                  violations.add(item + " ran as number " + expected + " of its lane");
                }
                Thread.onSpinWait();
                inside.get(item.lane()).decrementAndGet();
                return true;
              });
      assertThat(violations).isEmpty();
      assertThat(done).doesNotContain(false);
    }
  }

  @Test
  void aTaskThatStopsItsLaneLeavesTheLanesLaterItemsUndoneAndOtherLanesRun() throws Exception {
    List<Item> items =
        List.of(
            new Item("a", 0),
            new Item("b", 0),
            new Item("a", 1),
            new Item("b", 1),
            new Item("a", 2));
    try (PartnerLanes lanes = new PartnerLanes(3, "test-lane-")) {
      boolean[] done = lanes.run(items, Item::lane, item -> !item.equals(new Item("a", 1)));
      assertThat(done).containsExactly(true, true, false, true, false);
    }
  }

  @Test
  void aTasksExceptionIsRethrownAfterEveryLaneEnded() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    try (PartnerLanes lanes = new PartnerLanes(2, "test-lane-")) {
      assertThatThrownBy(
              () ->
                  lanes.run(
                      List.of(new Item("a", 0), new Item("b", 0), new Item("b", 1)),
                      Item::lane,
                      item -> {
                        if (item.lane().equals("a")) {
                          throw new IllegalStateException("lane a broke");
                        }
                        ran.incrementAndGet();
                        return true;
                      }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("lane a broke");
      assertThat(ran).hasValue(2);
    }
  }

  @Test
  void oneThreadRunsEverythingOnTheCallersThreadInOrder() throws Exception {
    List<String> order = new ArrayList<>();
    Thread caller = Thread.currentThread();
    try (PartnerLanes lanes = new PartnerLanes(1, "unused-")) {
      lanes.run(
          List.of(new Item("a", 0), new Item("b", 0), new Item("a", 1)),
          Item::lane,
          item -> {
            assertThat(Thread.currentThread()).isSameAs(caller);
            order.add(item.lane() + item.seq());
            return true;
          });
    }
    // lanes in order of first appearance, each lane's items in order
    assertThat(order).containsExactly("a0", "a1", "b0");
  }
}
