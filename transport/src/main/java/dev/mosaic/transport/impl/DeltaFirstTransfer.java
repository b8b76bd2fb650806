package dev.mosaic.transport.impl;

import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to get a version to one searcher: its change set first when there is one; if the
 * receiver lacks the base but holds an older version, the change sets since that version composed
 * into one ({@link ChangeSetChain}, when the sender keeps them); then, if the receiver still
 * answers need-full (it lacks any usable base, the change set is malformed, or the rebuilt file
 * does not match the manifest), the whole file on a new connection. Not instantiable.
 */
final class DeltaFirstTransfer {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaFirstTransfer.class);

  private DeltaFirstTransfer() {}

  /** An attempt by a sender that keeps no change sets (a relay). */
  static CompletionStage<FileAck> attempt(
      TransferClient client,
      TransportMetrics metrics,
      SearcherEndpoint target,
      FileHeader header,
      Optional<DeltaOffer> delta,
      Path file) {
    return attempt(client, metrics, target, header, delta, null, Runnable::run, file);
  }

  /**
   * @param delta the change set to offer, or empty to send the file
   * @param chain the change sets since a held version, or null when the sender keeps none (a relay)
   * @param blocking where {@code chain} reads its files
   * @param file the file of {@code header}, read only when the receiver needs it
   */
  static CompletionStage<FileAck> attempt(
      TransferClient client,
      TransportMetrics metrics,
      SearcherEndpoint target,
      FileHeader header,
      Optional<DeltaOffer> delta,
      ChangeSetChain chain,
      Executor blocking,
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
              if (chain == null
                  || !ack.getFallback().equals("base_missing")
                  || ack.getHeldVersion() <= 0) {
                return full(client, metrics, target, header, file, ack);
              }
              return CompletableFuture.supplyAsync(
                      () -> chain.since(ack.getHeldVersion()), blocking)
                  .thenCompose(
                      composed -> {
                        if (composed.isEmpty()) {
                          return full(client, metrics, target, header, file, ack);
                        }
                        metrics.chainedDelta();
                        LOG.debug(
                            "{} holds v{} of partition {}: offering the change sets since then"
                                + " ({} bytes) for v{}",
                            target.nodeId(),
                            ack.getHeldVersion(),
                            header.getPartition(),
                            composed.get().changes().length,
                            header.getVersion());
                        return client
                            .pushDelta(target, header, composed.get())
                            .thenCompose(
                                again ->
                                    again.getNeedFull()
                                        ? full(client, metrics, target, header, file, again)
                                        : CompletableFuture.completedFuture(again));
                      });
            });
  }

  private static CompletionStage<FileAck> full(
      TransferClient client,
      TransportMetrics metrics,
      SearcherEndpoint target,
      FileHeader header,
      Path file,
      FileAck ack) {
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
  }
}
