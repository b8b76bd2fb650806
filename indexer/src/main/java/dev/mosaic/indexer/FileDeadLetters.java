package dev.mosaic.indexer;

import dev.mosaic.api.feedfile.MalformedRecord;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A {@link FeedDirectoryWatcher.DeadLetterSink} sending malformed records of snapshot files to the
 * dead-letter topic, like the feed loader's rejects: key the file name, value the record's raw
 * bytes, headers {@code mosaic.dlq.reason} (file and line or record number, and why), {@code
 * mosaic.dlq.stage} {@code file} and {@code mosaic.dlq.source} {@code file <name>}; counted in
 * {@code mosaic.indexer.dead.letters{stage=file}}.
 *
 * <p>Thread safety: safe for concurrent use. Owns its Kafka producer: close it.
 */
public final class FileDeadLetters implements FeedDirectoryWatcher.DeadLetterSink, AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final DeadLetterPublisher publisher;

  /** A sink producing to {@code topic} on those bootstrap servers. */
  public FileDeadLetters(
      String bootstrapServers, String topic, String node, MeterRegistry registry) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers));
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    this.publisher = new DeadLetterPublisher(producer, topic, "file", node, registry);
  }

  @Override
  public void deadLetter(MalformedRecord record) {
    publisher.publish(
        record.file().getBytes(StandardCharsets.UTF_8),
        record.raw(),
        "file " + record.file(),
        record.reason());
  }

  /** Sends what is buffered. */
  public void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close();
  }
}
