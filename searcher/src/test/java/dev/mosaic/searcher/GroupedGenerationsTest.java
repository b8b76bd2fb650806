package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.PartitionGrouping;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A searcher that groups its partitions in the background answers exactly as one that does not,
 * reopen after reopen: two generations side by side over two stores receiving the same random
 * partition files (replaced one to three at a time, sometimes a new partition), compared on random
 * counts, ordered pages (documents named by their payloads) and facets, both right after a reopen
 * (replaced partitions served beside their masked groups) and once the merges caught up. Reproduce
 * a failure with {@code -Dtests.seed=<seed>}.
 */
class GroupedGenerationsTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Schema SCHEMA =
      Schema.builder()
          .version(1)
          .field("color", FieldType.STRING, FieldRole.FILTERABLE)
          .field("tag", FieldType.STRING, FieldRole.FILTERABLE) // 0..2 values per document
          .field("year", FieldType.INT, FieldRole.FULL)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .build();

  @TempDir Path root;

  @Test
  void groupedSearcherAnswersAsAnUngroupedOneOverRandomReopens() throws Exception {
    Random random = new Random(SEED);
    int groupSize = 2 + random.nextInt(5);
    int partitions = 10 + random.nextInt(14);
    String context = "tests.seed=" + SEED + ", group size " + groupSize;
    try (PartitionStore groupedStore = PartitionStore.builder(root.resolve("a")).build();
        PartitionStore plainStore = PartitionStore.builder(root.resolve("b")).build()) {
      groupedStore.start();
      plainStore.start();
      long[] versions = new long[partitions + 8];
      for (int p = 0; p < partitions; p++) {
        publishBoth(random, p, ++versions[p], groupedStore, plainStore);
      }
      try (Generations grouped =
              Generations.builder(groupedStore)
                  .scanInterval(Duration.ZERO)
                  .partitionGrouping(
                      new PartitionGrouping.Config(root.resolve("groups"), groupSize))
                  .build();
          Generations plain = Generations.builder(plainStore).scanInterval(Duration.ZERO).build()) {
        grouped.start();
        plain.start();
        await().atMost(WAIT).until(() -> grouped.isReady() && plain.isReady());
        await().atMost(WAIT).until(() -> fullyGrouped(grouped, groupSize));
        compare(random, grouped, plain, context + ", merged");
        for (int round = 0; round < 12; round++) {
          if (random.nextInt(6) == 0 && partitions < versions.length) {
            publishBoth(random, partitions, ++versions[partitions], groupedStore, plainStore);
            partitions++;
          } else {
            for (int n = 1 + random.nextInt(3); n > 0; n--) {
              int p = random.nextInt(partitions);
              publishBoth(random, p, ++versions[p], groupedStore, plainStore);
            }
          }
          grouped.reopen().get(30, TimeUnit.SECONDS);
          plain.reopen().get(30, TimeUnit.SECONDS);
          compare(random, grouped, plain, context + ", round " + round + " after the reopen");
          if (random.nextBoolean()) {
            await().atMost(WAIT).until(() -> fullyGrouped(grouped, groupSize));
            compare(random, grouped, plain, context + ", round " + round + " merged");
          }
        }
        await().atMost(WAIT).until(() -> fullyGrouped(grouped, groupSize));
        compare(random, grouped, plain, context + ", end");
        try (Generation g = grouped.acquire()) {
          assertThat(g.database().groups()).as("groups queried at the end").isNotEmpty();
        }
      }
    }
  }

  /** The same random file, as partition {@code p} version {@code v}, into every store. */
  private static void publishBoth(Random random, int p, long v, ReceivingStore... stores)
      throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    int documents = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(60);
    for (int row = 0; row < documents; row++) {
      Document.Builder d =
          Document.builder(SCHEMA)
              .add("color", "c" + random.nextInt(6))
              .add("year", 2000 + random.nextInt(20))
              .add("price", (long) random.nextInt(300))
              .payload(("p" + p + "v" + v + "r" + row).getBytes());
      for (int t = random.nextInt(3); t > 0; t--) {
        d.add("tag", "t" + random.nextInt(5));
      }
      b.add(d.build());
    }
    byte[] bytes = b.toByteArray();
    for (ReceivingStore store : stores) {
      try (ReceivingStore.StagedFile staged =
          store.stage(new PartitionFileId(SCHEMA.version(), p, v), bytes.length)) {
        Files.write(staged.path(), bytes);
        staged.publish();
      }
    }
  }

  /**
   * True when the current generation queries every block of {@code groupSize} partitions (a last
   * block of one excepted) as one group of exactly its partitions.
   */
  private static boolean fullyGrouped(Generations gens, int groupSize) {
    try (Generation g = gens.acquire()) {
      List<Database> partitions = g.database().partitions();
      List<Database> expected =
          partitions.size() % groupSize == 1
              ? partitions.subList(0, partitions.size() - 1)
              : partitions;
      List<Database> members = new ArrayList<>();
      for (PartitionGroup group : g.database().groups()) {
        members.addAll(group.members());
      }
      return members.equals(expected);
    }
  }

  private static void compare(Random random, Generations grouped, Generations plain, String what) {
    try (Generation a = grouped.acquire();
        Generation b = plain.acquire()) {
      CompositeDatabase x = a.database();
      CompositeDatabase y = b.database();
      assertThat(x.documentCount()).as("documents, " + what).isEqualTo(y.documentCount());
      for (int q = 0; q < 12; q++) {
        Condition c = condition(random);
        Query query = Query.where(c);
        if (random.nextBoolean()) {
          query = query.orderBy(Order.desc("year"), Order.asc("price"));
        }
        query = query.skip(random.nextInt(4) == 0 ? random.nextInt(30) : 0);
        query = query.limit(1 + random.nextInt(40));
        String w = what + ", " + query;
        assertThat(x.count(query)).as("count, " + w).isEqualTo(y.count(query));
        // ties (and unordered queries) go by partition, then document: the pages are identical
        assertThat(payloads(x, query)).as("documents, " + w).isEqualTo(payloads(y, query));
        List<Facet> facets = List.of(Facet.all("color"), Facet.top("tag", 3));
        List<Stats> stats = List.of(Stats.of("price"));
        assertThat(x.aggregate(c, facets, stats))
            .as("aggregation, " + w)
            .isEqualTo(y.aggregate(c, facets, stats));
      }
    }
  }

  private static Condition condition(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> Condition.all();
      case 1 -> Condition.eq("color", "c" + random.nextInt(7));
      case 2 -> Condition.in("tag", List.of("t" + random.nextInt(6), "t" + random.nextInt(6)));
      case 3 ->
          Condition.between(
              "year", 2000 + random.nextInt(10), true, 2010 + random.nextInt(10), false);
      case 4 ->
          Condition.and(
              Condition.eq("color", "c" + random.nextInt(6)),
              Condition.lte("price", (long) random.nextInt(300)));
      default ->
          Condition.or(
              Condition.eq("tag", "t" + random.nextInt(5)),
              Condition.not(Condition.eq("color", "c" + random.nextInt(6))));
    };
  }

  private static List<String> payloads(CompositeDatabase db, Query q) {
    List<String> out = new ArrayList<>();
    db.execute(
        q,
        (doc, partition) -> {
          out.add(new String(partition.payloadBytes(doc)));
          return true;
        });
    return out;
  }
}
