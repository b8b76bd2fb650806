package dev.mosaic.indexer;

import dev.mosaic.partition.DurableFiles;
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

/**
 * A real, simple {@link PartitionSender}: copies each file durably into the {@link PartitionLayout}
 * under {@code dir} and reports it accepted by one datacenter. Remembers every id it delivered, in
 * order.
 */
final class DirectoryPartitionSender implements PartitionSender {
  private final Path dir;
  private final List<PartitionFileId> delivered = new CopyOnWriteArrayList<>();

  DirectoryPartitionSender(Path dir) {
    this.dir = dir;
  }

  @Override
  public CompletionStage<DeliveryReport> send(PartitionFileId id, Path file) {
    try {
      DurableFiles.write(
          path(id),
          tmp -> {
            Files.copy(file, tmp);
            return null;
          });
      delivered.add(id);
      return CompletableFuture.completedFuture(
          new DeliveryReport(id, Map.of("dc-test", dir.toString()), Map.of()));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(new UncheckedIOException(e));
    }
  }

  Path path(PartitionFileId id) {
    return new PartitionLayout(dir).file(id);
  }

  List<PartitionFileId> delivered() {
    return List.copyOf(delivered);
  }
}
