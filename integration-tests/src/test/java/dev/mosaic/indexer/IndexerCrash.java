package dev.mosaic.indexer;

/**
 * Reaches the indexer node's crash simulation from the end-to-end tests (it is package-private):
 * the node stops without leaving its consumer group, abandoning running rebuilds, so the group only
 * notices when the session times out, as after a process crash.
 */
public final class IndexerCrash {
  private IndexerCrash() {}

  /** Crashes the node. */
  public static void kill(IndexerNode node) {
    node.kill();
  }
}
