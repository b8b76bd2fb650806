package dev.mosaic.transport.impl;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FileAck;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * What one delivery must achieve: each group (a datacenter for an entry delivery, a single peer for
 * a relay) must acknowledge the file once, trying the group's live candidates in shuffled order
 * with backoff. Immutable.
 *
 * @param kind metric tag: entry or relay
 * @param groups the groups that must each accept the file
 * @param candidates the live candidates of a group, asked anew at every attempt
 * @param transfer one attempt to one candidate
 * @param onFirstAccept called once, in the delivery actor, when a first group accepted
 * @param obsolete asked before every retry: true ends the delivery of the remaining groups as
 *     superseded (a newer version exists), without further attempts
 */
record DeliveryPlan(
    PartitionFileId id,
    String kind,
    Set<String> groups,
    Function<String, List<SearcherEndpoint>> candidates,
    Function<SearcherEndpoint, CompletionStage<FileAck>> transfer,
    int maxAttempts,
    Duration backoffMin,
    Duration backoffMax,
    BiConsumer<String, SearcherEndpoint> onFirstAccept,
    BooleanSupplier obsolete) {

  /** Per group: who accepted, or the last error. */
  record Outcome(PartitionFileId id, Map<String, String> acceptedBy, Map<String, String> failed) {}
}
