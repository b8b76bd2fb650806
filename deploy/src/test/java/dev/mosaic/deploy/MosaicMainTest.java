package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MosaicMainTest {

  private static CommandRun run(String... args) {
    return CommandRun.of(args);
  }

  @Test
  void helpListsEveryCommand() {
    CommandRun r = run("--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("local-cluster", "searcher", "indexer", "feed-loader");
  }

  @Test
  void roleWithoutExternalZooKeeperSaysWhichKeyToSet() {
    CommandRun r = run("searcher");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("mosaic.zookeeper.connect");
  }

  @Test
  void indexerWithoutExternalKafkaSaysWhichKeyToSet() {
    CommandRun r = run("indexer", "--set", "mosaic.zookeeper.connect=127.0.0.1:1");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("mosaic.kafka.bootstrap-servers");
  }

  @Test
  void aFeedLoaderWithNothingToLoadSaysWhichKeysGiveItPartnerFeeds() {
    CommandRun r =
        run(
            "feed-loader",
            "--set",
            "mosaic.kafka.bootstrap-servers=127.0.0.1:1",
            "--set",
            "mosaic.indexes=[{name = cars, simulate = none}]");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("index cars has no feed", "feed-directory", "snapshot-topic");
  }

  @Test
  void badOverrideIsRefusedBeforeAnythingStarts() {
    CommandRun r = run("local-cluster", "--set", "mosaic.searcher.nodes-per-dc=0");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("mosaic.searcher.nodes-per-dc must be >= 1, got 0");
  }

  @Test
  void localClusterScaleOptionsOutOfRangeAreRefusedNamingTheOption() {
    CommandRun r = run("local-cluster", "--offers", "0");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("--offers must be at least 1, got 0");
    r = run("local-cluster", "--partitions", "40000");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("--partitions must be between 1 and 32768, got 40000");
    r = run("local-cluster", "--partitions", "many");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("--partitions").contains("many");
  }

  @Test
  void rolesRefuseToStartWithoutAZooKeeperCredentialNamingTheKeysToSet() {
    CommandRun r = run("searcher", "--set", "mosaic.zookeeper.connect=127.0.0.1:1");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err())
        .contains("needs a ZooKeeper credential")
        .contains("mosaic.transport.zookeeper.digest-password")
        .contains("mosaic.zookeeper.allow-insecure");
    r =
        run(
            "indexer",
            "--set",
            "mosaic.zookeeper.connect=127.0.0.1:1",
            "--set",
            "mosaic.kafka.bootstrap-servers=127.0.0.1:1",
            "--set",
            "mosaic.kafka.create-topics=false");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("the indexer command needs a ZooKeeper credential");
  }

  @Test
  void aCredentialOrTheExplicitInsecureFlagLetsARolePastTheCheck() {
    // both stop at the next check, not at the credential
    for (String key :
        new String[] {
          "mosaic.transport.zookeeper.digest-password=s3cret-for-tests",
          "mosaic.zookeeper.allow-insecure=true"
        }) {
      CommandRun r = run("searcher", "--set", "mosaic.zookeeper.connect=127.0.0.1:1", "--set", key);
      assertThat(r.exitCode()).isNotZero();
      // the next check is the transport certificate
      assertThat(r.err()).doesNotContain("ZooKeeper credential").contains("has no certificate");
    }
  }
}
