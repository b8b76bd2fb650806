package dev.mosaic.indexer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends rejected messages to the dead-letter topic with their reason. Never throws: a failure to
 * dead-letter is logged (the message is dropped either way; the pipeline keeps going).
 *
 * <p>Thread safety: safe for concurrent use (Kafka producers are).
 */
final class DeadLetterPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterPublisher.class);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final String stage;
  private final Counter counter;

  DeadLetterPublisher(
      Producer<byte[], byte[]> producer,
      String topic,
      String stage,
      String node,
      MeterRegistry registry) {
    this.producer = producer;
    this.topic = topic;
    this.stage = stage;
    this.counter =
        Counter.builder("mosaic.indexer.dead.letters")
            .description("messages sent to the dead-letter topic")
            .tag("stage", stage)
            .tag("node", node)
            .register(registry);
  }

  void publish(byte[] key, byte[] value, String source, String reason) {
    counter.increment();
    LOG.warn("dead-lettering message from {}: {}", source, reason);
    RecordHeaders headers = new RecordHeaders();
    headers.add(OfferTopics.REASON_HEADER, reason.getBytes(StandardCharsets.UTF_8));
    headers.add(OfferTopics.STAGE_HEADER, stage.getBytes(StandardCharsets.UTF_8));
    headers.add(OfferTopics.SOURCE_HEADER, source.getBytes(StandardCharsets.UTF_8));
    try {
      producer.send(
          new ProducerRecord<>(topic, null, key, value, headers),
          (metadata, e) -> {
            if (e != null) {
              LOG.error(
                  "could not dead-letter message from {} ({}): {}", source, reason, e.toString());
            }
          });
    } catch (RuntimeException e) {
      LOG.error("could not dead-letter message from {} ({})", source, reason, e);
    }
  }

  double count() {
    return counter.count();
  }
}
