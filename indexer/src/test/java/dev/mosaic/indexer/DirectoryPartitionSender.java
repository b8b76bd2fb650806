package dev.mosaic.indexer;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real, simple {@link PartitionSender}: copies each file into {@code <dir>/v<schema>/<partition>/
 * <version>.mosaic} (through a temporary name and an atomic rename) and reports it accepted by one
 * datacenter. Remembers every id it delivered, in order.
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
      Path target = path(id);
      Files.createDirectories(target.getParent());
      Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
      Files.copy(file, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      delivered.add(id);
      return CompletableFuture.completedFuture(
          new DeliveryReport(id, Map.of("dc-test", dir.toString()), Map.of()));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(new UncheckedIOException(e));
    }
  }

  Path path(PartitionFileId id) {
    return dir.resolve("v" + id.schemaVersion())
        .resolve(Integer.toString(id.partition()))
        .resolve(id.version() + ".mosaic");
  }

  List<PartitionFileId> delivered() {
    return List.copyOf(delivered);
  }
}
