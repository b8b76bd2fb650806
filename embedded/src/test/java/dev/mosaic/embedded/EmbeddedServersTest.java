package dev.mosaic.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedServersTest {

  @Test
  void zooKeeperAndKafkaStartAndKafkaRoundTripsARecord() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build().start();
        EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
      try (CuratorFramework client =
          CuratorFrameworkFactory.newClient(
              zk.connectString(), new ExponentialBackoffRetry(100, 3))) {
        client.start();
        client.create().forPath("/mosaic", "hello".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(client.getData().forPath("/mosaic"), StandardCharsets.UTF_8))
            .isEqualTo("hello");
      }

      kafka.createCompactedTopic("offers", 3);
      kafka.createCompactedTopic("offers", 3); // idempotent
      try (Admin admin = kafka.admin()) {
        ConfigEntry policy =
            admin
                .describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "offers")))
                .all()
                .get(10, TimeUnit.SECONDS)
                .values()
                .iterator()
                .next()
                .get("cleanup.policy");
        assertThat(policy.value()).isEqualTo("compact");
      }
      produce(kafka, "offers", "k1", "v1");
      assertThat(consumeOne(kafka, "offers")).isEqualTo("k1=v1");
    }
  }

  @Test
  void keptLogDirectorySurvivesARestart(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().logDir(dir).build().start()) {
      kafka.createTopic("kept", 1, Map.of());
      produce(kafka, "kept", "k", "v");
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().logDir(dir).build().start()) {
      try (Admin admin = kafka.admin()) {
        assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).contains("kept");
      }
      assertThat(consumeOne(kafka, "kept")).isEqualTo("k=v");
    }
  }

  @Test
  void lifecycleIsEnforced() throws Exception {
    EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build();
    assertThatThrownBy(zk::connectString).hasMessageContaining("LATENT");
    zk.start();
    assertThatThrownBy(zk::start).hasMessageContaining("STARTED");
    zk.close();
    zk.close();
    assertThatThrownBy(zk::start).hasMessageContaining("CLOSED");
    EmbeddedKafka kafka = EmbeddedKafka.builder().build();
    assertThatThrownBy(kafka::bootstrapServers).hasMessageContaining("LATENT");
    kafka.close();
    assertThatThrownBy(kafka::start).hasMessageContaining("CLOSED");
  }

  private static void produce(EmbeddedKafka kafka, String topic, String key, String value)
      throws Exception {
    Properties p = kafka.clientProperties();
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    }
  }

  private static String consumeOne(EmbeddedKafka kafka, String topic) {
    Properties p = kafka.clientProperties();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + topic);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(Set.of(topic));
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  seen.add(r.key() + "=" + r.value());
                }
                return !seen.isEmpty();
              });
    }
    return seen.getFirst();
  }
}
