package dev.mosaic.indexer;

import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionSender;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real, simple {@link PartitionSender}: copies each file durably into the {@link PartitionLayout}
 * under {@code dir} and reports it accepted by one datacenter, {@value #DC}. Remembers every id it
 * delivered, in order. While {@link #down} is set, every send is reported as refused by that
 * datacenter (an outage), and nothing is copied.
 */
final class DirectoryPartitionSender implements PartitionSender {
  static final String DC = "dc-test";

  private final Path dir;
  private final List<PartitionFileId> delivered = new CopyOnWriteArrayList<>();
  private final AtomicInteger refused = new AtomicInteger();
  private volatile boolean down;

  DirectoryPartitionSender(Path dir) {
    this.dir = dir;
  }

  @Override
  public CompletionStage<DeliveryReport> send(PartitionFileId id, Path file) {
    if (down) {
      refused.incrementAndGet();
      return CompletableFuture.completedFuture(
          new DeliveryReport(id, Map.of(), Map.of(DC, "connection refused")));
    }
    try {
      Path target = path(id);
      if (!Files.exists(target)) {
        DurableFiles.write(
            target,
            tmp -> {
              Files.copy(file, tmp);
              return null;
            });
      }
      delivered.add(id);
      return CompletableFuture.completedFuture(
          new DeliveryReport(id, Map.of(DC, dir.toString()), Map.of()));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(new UncheckedIOException(e));
    }
  }

  /** Sets or ends an outage of the one datacenter. */
  void down(boolean down) {
    this.down = down;
  }

  /** Sends refused during outages. */
  int refused() {
    return refused.get();
  }

  Path path(PartitionFileId id) {
    return new PartitionLayout(dir).file(id);
  }

  List<PartitionFileId> delivered() {
    return List.copyOf(delivered);
  }
}
