package dev.mosaic.transport.impl;

import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to get a version to one searcher: its change set first when there is one, then, if
 * the receiver answers need-full (it lacks the base, the change set is malformed, or the rebuilt
 * file does not match the manifest), the whole file on a new connection. Not instantiable.
 */
final class DeltaFirstTransfer {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaFirstTransfer.class);

  private DeltaFirstTransfer() {}

  /**
   * @param delta the change set to offer, or empty to send the file
   * @param file the file of {@code header}, read only when the receiver needs it
   */
  static CompletionStage<FileAck> attempt(
      TransferClient client,
      TransportMetrics metrics,
      SearcherEndpoint target,
      FileHeader header,
      Optional<DeltaOffer> delta,
      Path file) {
    if (delta.isEmpty()) {
      return client.push(target, header, file);
    }
    return client
        .pushDelta(target, header, delta.get())
        .thenCompose(
            ack -> {
              if (!ack.getNeedFull()) {
                return CompletableFuture.completedFuture(ack);
              }
              metrics.fullFallback(ack.getFallback());
              LOG.info(
                  "{} needs the whole file of v{}/{}/{} ({}): {}; sending it",
                  target.nodeId(),
                  header.getSchemaVersion(),
                  header.getPartition(),
                  header.getVersion(),
                  ack.getFallback(),
                  ack.getReason());
              return client.push(target, header, file);
            });
  }
}
