package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.api.OfferPartitioning;
import java.nio.charset.StandardCharsets;
import net.jpountz.xxhash.XXHashFactory;
import org.junit.jupiter.api.Test;

class OfferKeysTest {

  @Test
  void indexPartitionIsXxHash64OfTheDedupKeyModuloP() {
    byte[] bytes = "VIN-WDB2110421A123456".getBytes(StandardCharsets.UTF_8);
    long hash = XXHashFactory.safeInstance().hash64().hash(bytes, 0, bytes.length, 0L);
    int expected = (int) Long.remainderUnsigned(hash, 1024);
    assertThat(OfferKeys.indexPartition("VIN-WDB2110421A123456", 1024)).isEqualTo(expected);
    assertThat(OfferKeys.indexPartition("VIN-WDB2110421A123456", 1024))
        .isEqualTo(OfferPartitioning.partitionOf("VIN-WDB2110421A123456", 1024));
  }

  @Test
  void partitionsAreStableAcrossCallsAndSpreadEvenly() {
    int p = 1024;
    int[] counts = new int[p];
    for (int i = 0; i < 200_000; i++) {
      String key = "dedup-" + i;
      int partition = OfferKeys.indexPartition(key, p);
      assertThat(OfferKeys.indexPartition(key, p)).isEqualTo(partition);
      counts[partition]++;
    }
    // 195 expected per partition; a fair hash stays well within +-40% at this size.
    for (int c : counts) {
      assertThat(c).isBetween(117, 273);
    }
  }

  @Test
  void recordKeyStartsWithTheIndexPartitionAndParsesBack() {
    byte[] key = OfferKeys.recordKey(917, "partner-001", "partner-001-42");
    String text = new String(key, StandardCharsets.UTF_8);
    assertThat(text).startsWith("917|partner-001|").hasSize("917|partner-001|".length() + 16);
    assertThat(OfferKeys.partitionOfKey(key)).isEqualTo(917);
    assertThat(OfferKeys.recordKey(917, "partner-001", "partner-001-42")).isEqualTo(key);
    assertThat(OfferKeys.recordKey(917, "partner-001", "partner-001-43")).isNotEqualTo(key);
  }

  @Test
  void kafkaPartitionIsIndexPartitionModuloK() {
    assertThat(OfferKeys.kafkaPartition(917, 8)).isEqualTo(917 % 8);
    assertThat(OfferKeys.kafkaPartition(3, 8)).isEqualTo(3);
  }

  @Test
  void malformedKeysAndPartnerIdsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> OfferKeys.partitionOfKey(null)).hasMessageContaining("no key");
    assertThatThrownBy(() -> OfferKeys.partitionOfKey("abc|x".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("does not start with '<index partition>|'");
    assertThatThrownBy(() -> OfferKeys.partitionOfKey("123".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("does not start with");
    assertThatThrownBy(() -> OfferKeys.recordKey(1, "a|b", "x")).hasMessageContaining("'|'");
    assertThatThrownBy(() -> OfferKeys.recordKey(1, "", "x")).hasMessageContaining("empty");
    assertThatThrownBy(() -> OfferKeys.indexPartition("", 8)).hasMessageContaining("dedup key");
  }
}
